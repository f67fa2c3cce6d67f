"""The README's quick start shows exactly what the command prints."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.models import EMBEDDED

ROOT = Path(__file__).resolve().parent.parent


def test_quick_start_block_matches_the_real_output(capsys, monkeypatch):
    """On a fresh install (no LLM extra) the quick start prints exactly the README's block."""
    monkeypatch.chdir(ROOT)
    # what a fresh `uv sync` lacks: the llama.cpp binding and the weights' packages
    # (a None entry makes the import fail); the cache is empty (tests/conftest.py)
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    for model in EMBEDDED.values():
        for i in range(1, model.parts + 1):
            monkeypatch.setitem(sys.modules, f"{model.package_prefix}{i}", None)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"```sh\n(uv run [^\n]+)\n```", readme)
    assert commands[:2][1] == "uv run pytest"
    quick = commands[0]
    assert quick.startswith("uv run pf1e-sim ")
    assert main(quick.split()[3:]) == 0
    out, _ = capsys.readouterr()
    assert "```\n" + out in readme, "README quick-start output is stale"


@pytest.mark.parametrize(
    "name", ["quickstart", "scripted_brutes", "strategy_archers", "lich", "casters"]
)
def test_encounter_examples_run(name, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["--encounter", f"data/encounters/{name}.yaml", "--runs", "20"]) == 0
    assert "=== Rapport d'équilibrage ===" in capsys.readouterr()[0]


def test_narrative_example_matches_its_replay(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"```sh\n(uv run pf1e-sim report [^\n]+replay:[^\n]+)\n```", readme)
    assert command is not None
    assert main(command.group(1).split()[3:]) == 0
    analysis = capsys.readouterr()[0].split("\n=== Analyse ===\n", 1)[1]
    assert "```\n=== Analyse ===\n" + analysis + "```" in readme


def test_experiment_example_matches_the_real_output(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "uv run pf1e-sim experiment --encounter data/encounters/experiment_archers.yaml"
    assert f"$ {command}\n" in readme
    assert main(command.split()[3:]) == 0
    out, _ = capsys.readouterr()
    assert f"$ {command}\n{out}```" in readme, "README experiment output is stale"


def test_sweep_example_matches_the_real_output(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "uv run pf1e-sim sweep --encounter data/encounters/sweep_archers.yaml"
    assert f"$ {command}\n" in readme
    assert main(command.split()[3:]) == 0
    out, _ = capsys.readouterr()
    assert f"$ {command}\n{out}```" in readme, "README sweep output is stale"


def test_encounter_excerpts_match_the_real_output(capsys, monkeypatch):
    """Every ``$ uv run pf1e-sim --encounter FILE`` block cut with « … » is the real
    output's beginning (the scripted brutes' figures had gone stale unnoticed)."""
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(
        r"```\n\$ uv run pf1e-sim (--encounter \S+)\n(.*?)\n…\n```", readme, flags=re.S
    )
    assert len(blocks) >= 2
    for command, excerpt in blocks:
        assert main(command.split()) == 0
        out, _ = capsys.readouterr()
        assert out.startswith(excerpt + "\n"), f"README excerpt of {command} is stale"
