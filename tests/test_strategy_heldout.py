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
from test_strategy_devset import (
    DEVSET,
    _ngrams,
    check_pre_pass,
    check_recorded,
    prompt_examples,
)

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
    prompts = set().union(*(_ngrams(e) for e in prompt_examples()))
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
    prompts = set().union(*(_ngrams(e) for e in prompt_examples()))
    others = set().union(*(_ngrams(item["text"], 5) for item in [*DEVSET, *HELDOUT]))
    for text in texts:
        assert not _ngrams(text) & prompts, text
        assert not _ngrams(text, 5) & others, text


CASSETTE2 = ROOT / "cassettes" / "strategy_heldout2_qwen15.json"
#: the texts of the second held-out set that its one measurement got wrong (README):
#: kept as they were measured, each a strict expected failure (fixing one makes its
#: test pass, and the set is then no longer held-out for it)
HELDOUT2_MISSES: dict[str, str] = {
    "Commencez par le kobold, ensuite le gnoll.": "refusé : aucun mot de combat reconnu",
    "Ne dispersez pas vos attaques : un adversaire à la fois.": "le 1,5 B répond « non »",
    "Pas de charge, jamais.": "le 1,5 B ne lit pas « pas de charge » comme « jamais »",
    "Go around them so that nobody gets a swing at you.": "refusé : aucun mot reconnu",
    "Ne bougez pas d'ici, attendez qu'ils viennent.": "refusé : aucun mot de combat reconnu",
    # measured as silent substitutions (total defense all fight plus a melee engagement;
    # a withdraw every turn); now refused, the unread condition named
    "Protégez-vous totalement jusqu'au corps à corps.": "refusé : « jusqu'au » non lu",
    "If half our side is down, everyone withdraws.": "refusé : « if » (half our side) non lu",
    "Go fully defensive when you're below 40 percent health.": "refusé : aucun mot reconnu",
    "Frappez d'abord le plus amoché d'entre eux.": "refusé : « amoché » inconnu",
    "Aim for whoever hits hardest.": "refusé : « hits hardest » inconnu",
}
#: right by the bench (every field, nothing unasked), but with a fragment reported
#: « non compris » that was understood: counted as misses here
HELDOUT2_SPURIOUS: dict[str, str] = {
    "Décapitez leur commandement : le chef d'abord.": "« Décapitez leur commandement » signalé",
    "Suivez Norg : attaquez l'ennemi qu'il frappe.": "« attaquez l'ennemi qu'il frappe » signalé",
    "Attaquez-les de flanc, un allié de chaque côté.": "« un allié de chaque côté » signalé",
    "Battez en retraite une fois tombés sous 30 % de vie.": "« attitude » signalée en trop",
}


HELDOUT2_FAULTS = HELDOUT2_MISSES | HELDOUT2_SPURIOUS


@pytest.mark.parametrize(
    "item",
    [
        pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=HELDOUT2_FAULTS[i["text"]]))
        if i["text"] in HELDOUT2_FAULTS
        else i
        for i in HELDOUT2
    ],
    ids=lambda i: i["text"][:40],
)
def test_recorded_compilations_of_the_second_heldout_set(item):
    """The one measurement of the second held-out set, replayed: 20 texts right out of
    31 by the bench, 16 with no spurious report; the others fail as they did, but for
    those fixed since (:data:`HELDOUT2_FIXED`), which pass."""
    check_recorded(item, CASSETTE2, {})


#: fixed after the one measurement (no longer held-out figures): refused without
#: naming « capture » when measured
HELDOUT2_FIXED = ("Capture the kobold alive.",)


def test_the_second_heldout_score_is_the_measured_one():
    """The one measurement: 20 right out of 31 by the bench, 16 with no spurious report;
    the texts fixed since then are counted as the misses they were."""
    assert len(HELDOUT2) - len(HELDOUT2_MISSES) - len(HELDOUT2_FIXED) == 20
    assert len(HELDOUT2) == 31
    assert len(HELDOUT2) - len(HELDOUT2_FAULTS) - len(HELDOUT2_FIXED) == 16
    assert not set(HELDOUT2_FIXED) & set(HELDOUT2_FAULTS)
    assert set(HELDOUT2_FAULTS) <= {i["text"] for i in HELDOUT2}
    assert not set(HELDOUT2_MISSES) & set(HELDOUT2_SPURIOUS)
