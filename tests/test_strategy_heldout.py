"""The held-out set of the strategy compiler (``bench/strategy_heldout.yaml``): written
after the compiler, measured once before any fix (15/26, README), then fixed; the same
checks as the dev set (``tests/test_strategy_devset.py``): its shape, its independence
from the prompts' examples and from the dev set, the deterministic pre-pass on every
text, and the recorded compilation of every text by the embedded 1.5B
(``cassettes/strategy_heldout_qwen15.json``, replayed; the bench plays the specs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from test_strategy_devset import DEVSET, _ngrams, check_pre_pass, check_recorded

from policies.strategy import StrategySpec

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = yaml.safe_load((ROOT / "bench/strategy_heldout.yaml").read_text(encoding="utf-8"))
CASSETTE = ROOT / "cassettes" / "strategy_heldout_qwen15.json"

#: the recorded compilations that do not give the expected fields (bench: « NON »)
RECORDED_MISSES: dict[str, object] = {
    # the 1.5B answers « other » to « en commençant par le plus faible », even with the
    # whole sentence: reported « non compris », never replaced
    "Frappez tous la même cible jusqu'à ce qu'elle tombe, en commençant par le plus faible.": {
        "focus_fire": True
    },
}


def test_heldout_has_fifteen_french_and_english_texts_with_their_expectations():
    assert len(HELDOUT) >= 15
    texts = [item["text"] for item in HELDOUT]
    assert len(set(texts)) == len(texts)
    french = [t for t in texts if re.search(r"[éèàçêù]|\b(?:le|la|les|vos|leur)\b", t)]
    assert 5 <= len(french) <= len(texts) - 5
    for item in HELDOUT:
        assert set(item) <= {"text", "fields", "not_understood", "behaviour", "refused", "side"}
        assert item.get("fields") or item.get("refused")
        StrategySpec.model_validate(item.get("fields", {}))
        for metric, way in item.get("behaviour", []):
            assert way in ("more", "less") and metric
    assert sum(bool(i.get("not_understood")) for i in HELDOUT) >= 5
    # the new paths of the compiler are exercised
    shown = yaml.safe_dump([i.get("fields", {}) for i in HELDOUT])
    for needle in ("combatant_roles", "own_hp_pct_below", "stance: fight", "hold_zone"):
        assert needle in shown


def test_heldout_shares_no_text_with_the_prompts_nor_the_devset():
    """No three words in a row with a prompt example, no five with a dev set text."""
    examples = []
    for path in sorted((ROOT / "prompts/strategy").glob("*.j2")):
        examples += re.findall(r'^Order: "([^"]+)"', path.read_text(encoding="utf-8"), re.M)
    prompts = set().union(*(_ngrams(e) for e in examples))
    devset = set().union(*(_ngrams(item["text"], 5) for item in DEVSET))
    for item in HELDOUT:
        assert not _ngrams(item["text"]) & prompts, item["text"]
        assert not _ngrams(item["text"], 5) & devset, item["text"]


@pytest.mark.parametrize("item", HELDOUT, ids=lambda i: i["text"][:40])
def test_the_pre_pass_alone_can_reach_every_expected_field_and_no_other(item):
    if item["text"] in RECORDED_MISSES:
        pytest.skip("a model miss: the pre-pass is right, the answer is not")
    check_pre_pass(item)


@pytest.mark.parametrize("item", HELDOUT, ids=lambda i: i["text"][:40])
def test_recorded_compilations_of_the_heldout_set(item):
    check_recorded(item, CASSETTE, RECORDED_MISSES)


HELDOUT2 = yaml.safe_load((ROOT / "bench/strategy_heldout2.yaml").read_text(encoding="utf-8"))


def test_second_heldout_set_has_its_expectations_and_shares_no_text_with_the_others():
    """The second held-out set: the same shape, no three words in a row with a prompt
    example and no five with the dev set or the first held-out set."""
    texts = [item["text"] for item in HELDOUT2]
    assert len(texts) >= 30 and len(set(texts)) == len(texts)
    french = [t for t in texts if re.search(r"[éèàçêù]|\b(?:le|la|les|vos|leur)\b", t)]
    assert 10 <= len(french) <= len(texts) - 10
    for item in HELDOUT2:
        assert set(item) <= {"text", "fields", "not_understood", "behaviour", "refused", "side"}
        assert item.get("fields") or item.get("refused")
        StrategySpec.model_validate(item.get("fields", {}))
    examples = []
    for path in sorted((ROOT / "prompts/strategy").glob("*.j2")):
        examples += re.findall(r'^Order: "([^"]+)"', path.read_text(encoding="utf-8"), re.M)
    prompts = set().union(*(_ngrams(e) for e in examples))
    others = set().union(*(_ngrams(item["text"], 5) for item in [*DEVSET, *HELDOUT]))
    for text in texts:
        assert not _ngrams(text) & prompts, text
        assert not _ngrams(text, 5) & others, text
