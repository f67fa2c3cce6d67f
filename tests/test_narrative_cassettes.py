"""Replays of the real embedded model choosing the narrative's clauses (cassettes).

The cassettes were recorded from Qwen2.5-Coder-1.5B-Instruct by
``scripts/record_narrative_cassettes.py`` over the report objects of
``tests/reports/``, plus the light model (Qwen2.5-Coder-0.5B) on ``quatre_camps``.
Each holds the one request of a report (every fact with the vetted clauses of its
type) and the model's real, grammar-constrained answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.analysis import analyse, fill
from harness.clauses import BY_ID
from harness.cli.main import main
from harness.models import ReplayModel
from harness.narrative import PATH_LLM, PATH_TEMPLATE, narrate, options, template_narrative

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_narrative import audit  # noqa: E402

NAMES = tuple(sorted(p.stem for p in (ROOT / "tests" / "reports").glob("*.json")))
LIGHT = ROOT / "cassettes" / "narrative_quatre_camps_qwen05.json"


def load(name):
    return json.loads((ROOT / "tests" / "reports" / f"{name}.json").read_text(encoding="utf-8"))


def cassette(name):
    return ROOT / "cassettes" / f"narrative_{name}_qwen15.json"


def replay(name, path=None):
    return narrate(load(name), ReplayModel(path or cassette(name)))


@pytest.mark.parametrize(
    ("name", "path"), [*((n, cassette(n)) for n in NAMES), ("quatre_camps", LIGHT)]
)
def test_replayed_narrative_uses_the_recorded_answer_and_passes_the_audit(name, path):
    report = load(name)
    story = replay(name, path)
    recorded = json.loads(path.read_text(encoding="utf-8"))["interactions"]
    assert story.model_calls == len(recorded)
    a = analyse(report)
    assert audit(report, story) == []  # numbers, clause types, lexicon
    if story.path == PATH_LLM:
        offered = options(a)
        assert len(story.choices) == len(a.facts)
        for line, fact, opts, cid in zip(story.lines, a.facts, offered, story.choices, strict=True):
            assert cid in {c for c, _ in opts} and BY_ID[cid][0] == fact.clause
            assert line == fill(fact.head, a.values) + " " + BY_ID[cid][1] + "."
        assert len(set(story.choices)) == len(story.choices)
    else:
        assert story.lines == template_narrative(a)
    assert replay(name, path).lines == story.lines  # replays are exact


def test_the_recorded_models_take_the_llm_path():
    """Under the grammar, the real models' answers are valid: one request per report."""
    for name in NAMES:
        story = replay(name)
        assert story.path == PATH_LLM and story.model_calls == 1, (name, story.reason)
    light = replay("quatre_camps", LIGHT)
    assert light.path in (PATH_LLM, PATH_TEMPLATE)
    if light.path == PATH_TEMPLATE:  # a real invalid answer, recorded: it says why
        assert light.rejections and "invalide" in (light.reason or "")


def test_cli_report_command_narrates_a_saved_report(capsys):
    name = NAMES[0]
    stats = ROOT / "tests" / "reports" / f"{name}.json"
    code = main(["report", str(stats), "--narrator-model", f"replay:{cassette(name)}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "=== Rapport d'équilibrage ===" in out and "\n=== Analyse ===\n" in out
    assert "Rédaction : modèle local:qwen-1.5b, suites choisies parmi des phrases vérifiées" in out
