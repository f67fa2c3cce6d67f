"""The public dev set of the strategy compiler (``bench/strategy_devset.yaml``): its
shape, its independence from the prompts' examples, the deterministic pre-pass on
every text, and the recorded compilation of every text by the embedded 1.5B
(``cassettes/strategy_devset_qwen15.json``, replayed; ``bench/bench_strategy_devset.py``
plays the specs and measures the behaviour)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from policies.strategy import StrategySpec
from policies.strategy_compile import (
    ASPECTS,
    StrategyCompileError,
    _plain,  # pyright: ignore[reportPrivateUsage]
    compile_text,
    spot,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

DEVSET = yaml.safe_load((ROOT / "bench/strategy_devset.yaml").read_text(encoding="utf-8"))
CASSETTE = ROOT / "cassettes" / "strategy_devset_qwen15.json"
#: fields each aspect asked to the model may set
ASPECT_FIELDS = {
    "targets": {"targets", "target_roles"}, "engagement": {"engagement"},
    "positioning": {"positioning"}, "charge": {"charge", "prefer_charge"},
    "stance": {"stance"},
}  # fmt: skip


def _roster(side):
    from harness.strategy_compile import roster_of

    return roster_of(str(ROOT / "bench/devset/encounter.yaml"), side)


def test_devset_has_thirty_french_and_english_texts_with_their_expectations():
    assert len(DEVSET) >= 30
    texts = [item["text"] for item in DEVSET]
    assert len(set(texts)) == len(texts)
    french = [t for t in texts if re.search(r"[éèàçêù]|\b(?:le|la|les|vos|leur)\b", t)]
    assert 10 <= len(french) <= len(texts) - 10
    for item in DEVSET:
        assert set(item) <= {"text", "fields", "not_understood", "behaviour", "refused", "side"}
        assert item.get("fields") or item.get("refused")
        StrategySpec.model_validate(item.get("fields", {}))  # expectations are valid specs
        for metric, way in item.get("behaviour", []):
            assert way in ("more", "less") and metric
    assert sum(bool(i.get("not_understood")) for i in DEVSET) >= 5


def _ngrams(text, n=3):
    words = _plain(text).split()
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


def prompt_examples():
    """The example orders of every strategy question (``Order: "…"`` in the prompts)."""
    examples = []
    for path in sorted((ROOT / "prompts/strategy").glob("*.j2")):
        examples += re.findall(r'^Order: "([^"]+)"', path.read_text(encoding="utf-8"), re.M)
    return examples


def test_prompt_examples_share_no_text_with_the_devset():
    """No example of a question repeats a devset text, nor three words in a row of one."""
    examples = prompt_examples()
    assert len(examples) >= 2 * len(ASPECTS)
    devset = set().union(*(_ngrams(item["text"]) for item in DEVSET))
    for example in examples:
        assert not _ngrams(example) & devset, example
        assert _plain(example) not in {_plain(i["text"]) for i in DEVSET}


def check_pre_pass(item):
    """Without any model: the fields read by code are the expected ones, and every
    expected field the model decides belongs to an aspect the pre-pass asks about."""
    frags = spot(item["text"], _roster(item.get("side", "players")))
    expected = item.get("fields", {})
    flat = dict(expected)
    for phase in expected.get("phases", []):
        flat.update(phase["then"])
    for role in expected.get("roles", {}).values():
        flat.update(role)
    by_code: dict = {}
    for f in frags:
        for k, v in f.fields.items():
            by_code[k] = [*by_code.get(k, []), *v] if k == "focus" else v
        for who, tags in f.tags.items():
            by_code.setdefault("combatant_roles", {}).setdefault(who, []).extend(tags)
    reachable = set(by_code)
    for f in frags:
        for aspect in f.ask:
            reachable |= ASPECT_FIELDS.get(aspect, {aspect})
    assert set(flat) - {"phases", "roles"} <= reachable
    for key, value in by_code.items():
        assert flat.get(key) == value
    for phase in expected.get("phases", []):
        assert any(phase["when"] in (f.when, f.until) for f in frags)


@pytest.mark.parametrize("item", DEVSET, ids=lambda i: i["text"][:40])
def test_the_pre_pass_alone_can_reach_every_expected_field_and_no_other(item):
    check_pre_pass(item)


def _changed(spec):
    return json.loads(spec.model_dump_json(exclude_defaults=True, exclude={"name"}))


def _fold(text):
    return _plain(text)


#: the recorded compilations that do not give the expected fields (bench: « NON »)
RECORDED_MISSES: dict[str, object] = {
    # « les autres chargent »: the 1.5B answers not_said; the fragment is reported
    "Nos archers restent à 9 m, les autres chargent.": {
        "roles": {"ranged": {"keep_distance_ft": 30}}
    },
}


def check_recorded(item, cassette, misses):
    """The recorded compilation of ``item`` (replayed from ``cassette``): every expected
    field and no other, every expected « non compris » reported and nothing else
    reported; for a text of ``misses`` (text → the fields it got instead, or
    ``"refused"``), those fields, and a report of what it missed."""
    from harness.models import ReplayModel

    text = item["text"]
    model = ReplayModel(cassette)
    try:
        compiled = compile_text(text, model, _roster(item.get("side", "players")))
    except StrategyCompileError as err:
        reports = str(err)
        changed = None
    else:
        reports = " ".join(compiled.not_understood)
        changed = _changed(compiled.spec)
    for wanted in item.get("not_understood", []):
        assert _fold(wanted) in _fold(reports)
    if not item.get("not_understood") and changed is not None and text not in misses:
        assert reports == ""  # nothing reported that the text did not leave out
    if text in misses:
        assert (changed if changed is not None else "refused") == misses[text]
        assert reports  # what it missed is reported, never replaced
        return
    if item.get("refused"):
        assert changed is None
    else:
        assert changed == item["fields"]  # every expected field, and no other


@pytest.mark.parametrize("item", DEVSET, ids=lambda i: i["text"][:40])
def test_recorded_compilations_of_the_devset(item):
    check_recorded(item, CASSETTE, RECORDED_MISSES)
