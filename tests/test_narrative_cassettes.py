"""Replays of the real embedded model writing narratives (cassettes): no model needed.

The cassettes were recorded from Qwen2.5-Coder-1.5B-Instruct by
``scripts/record_narrative_cassettes.py`` over the report objects of
``tests/reports/``. They hold real answers the checker accepted and real answers
it rejected (then the regeneration). The light model (Qwen2.5-Coder-0.5B) on
``ecrasant`` holds a line refused at every attempt, which sent the narrative to
the template.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.analysis import analyse, fill
from harness.cli import main
from harness.models import ReplayModel
from harness.narrative import (
    ATTEMPTS,
    PATH_LLM,
    PATH_TEMPLATE,
    Checker,
    narrate,
    template_narrative,
)

ROOT = Path(__file__).resolve().parent.parent
NAMES = (
    "ecrasant",
    "equilibre_1000",
    "nuls_plafond",
    "trois_camps_outsider",
    "monstres_dominent",
)


def load(name):
    return json.loads((ROOT / "tests" / "reports" / f"{name}.json").read_text(encoding="utf-8"))


def cassette(name):
    return ROOT / "cassettes" / f"narrative_{name}_qwen15.json"


def replay(name):
    return narrate(load(name), ReplayModel(cassette(name)))


@pytest.mark.parametrize("name", NAMES)
def test_replayed_narrative_uses_every_recorded_answer_and_is_faithful(name):
    report = load(name)
    story = replay(name)
    recorded = json.loads(cassette(name).read_text(encoding="utf-8"))["interactions"]
    assert story.model_calls == len(recorded)
    a = analyse(report)
    if story.path == PATH_LLM:
        checker = Checker(a, report)
        for line, fact in zip(story.lines, a.facts, strict=True):
            head = fill(fact.head, a.values)
            assert line.startswith(head) and line.endswith(".")
            assert not re.search(r"\d", line[len(head) :])  # the model wrote no number
            assert checker.check(fact, line[len(head) :].rstrip(".")) is None
    else:
        assert story.lines == template_narrative(a)
    assert story.words > 0
    assert replay(name).lines == story.lines  # replays are exact


def test_a_recorded_answer_the_checker_rejects_is_regenerated():
    """The model really wrote these; the checker refused them, as the README says."""
    rejected = [(name, r) for name in NAMES for r in replay(name).rejections]
    assert rejected
    # a repeated clause is refused by the narrator, not by the checker
    checked = [(n, r) for n, r in rejected if not r.reason.startswith("répétition")]
    assert checked
    for name, r in checked:
        a = analyse(load(name))
        fact = next(f for f in a.facts if f.id == r.fact)
        assert Checker(a, load(name)).check(fact, r.text) == r.reason


def test_recorded_rejections_in_a_row_send_the_narrative_to_the_template():
    light = ROOT / "cassettes" / "narrative_quatre_camps_qwen05.json"
    report = load("quatre_camps")
    story = narrate(report, ReplayModel(light))
    assert story.path == PATH_TEMPLATE
    assert story.lines == template_narrative(analyse(report))
    assert story.provenance().startswith(
        f"Rédaction : gabarit déterministe (texte du modèle local:qwen-0.5b rejeté {ATTEMPTS} fois"
    )
    refused = story.rejections[-ATTEMPTS:]
    assert len({r.fact for r in refused}) == 1  # the same line, refused at every attempt
    recorded = json.loads(light.read_text(encoding="utf-8"))["interactions"]
    assert story.model_calls == len(recorded)


def test_cli_report_command_narrates_a_saved_report(capsys):
    name = next(n for n in NAMES if replay(n).path == PATH_LLM)
    stats = ROOT / "tests" / "reports" / f"{name}.json"
    code = main(["report", str(stats), "--narrator-model", f"replay:{cassette(name)}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "=== Rapport d'équilibrage ===" in out and "\n=== Analyse ===\n" in out
    assert out.rstrip().endswith("texte vérifié.") or "régénérée" in out
    assert "Rédaction : modèle local:qwen-1.5b" in out
