"""Start-up of the command line: a heuristic run imports only what it uses.

What a heuristic ``pf1e-sim --runs 1`` never needs (the LLM policy and its
providers, jinja2 prompts, the narrator, HTML, encounter-file, script and
strategy models, sweeps and experiments) is imported where it is used, not when
the CLI starts; ``bench/bench_instructions.py --startup`` counts what is left.
Each case runs in a fresh interpreter, so that no other test's imports count.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOBLIN = "data/monsters/goblin.json"
ORC = "data/monsters/orc.json"
QUICK = ["--map", "data/maps/sample_arena.yaml", "--side", "players", GOBLIN, GOBLIN, GOBLIN,
         "--side", "monsters", ORC, ORC]  # fmt: skip

#: modules (and packages) a heuristic run must not import
LAZY = (
    "jinja2",
    "llama_cpp",
    "openai",
    "tenacity",
    "rich",
    "policies.llm",
    "policies.tactics",
    "policies.scripted",
    "policies.strategy",
    "policies.strategy_compile",
    "harness.models",
    "harness.narrative",
    "harness.reporter",
    "harness.html",
    "harness.analysis",
    "harness.encounter_file",
    "harness.experiment",
    "harness.sweep",
    "harness.checkpoint",
    "harness.rolls",
    "engine.schemas",
)

PROGRAM = """
import contextlib, io, json, sys
from harness.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _modules_after(args: list[str]) -> tuple[int, set[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM, json.dumps(args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )
    found = json.loads(proc.stdout.splitlines()[-1])
    return found["code"], set(found["modules"])


def _imported(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize(
    "args",
    [[*QUICK, "--runs", "1"], [*QUICK, "--runs", "3", "--transcript", "--json", "/dev/null"]],
    ids=["quick-start", "transcript-json"],
)
def test_a_heuristic_run_does_not_import_what_it_never_uses(args: list[str]) -> None:
    code, modules = _modules_after(args)
    assert code == 0
    assert [name for name in LAZY if _imported(modules, name)] == []
    # only the command that runs is built
    assert {m for m in modules if m.startswith("harness.cli.")} == {
        "harness.cli.common", "harness.cli.config", "harness.cli.main", "harness.cli.simulate",
    }  # fmt: skip


def test_the_lazy_modules_are_still_imported_when_they_are_used() -> None:
    """The list above means something: a strategy run does import its policy."""
    code, modules = _modules_after(
        [*QUICK, "--runs", "1", "--policy", "players=strategy:data/strategies/focus_dangerous.yaml"]
    )
    assert code == 0 and "policies.strategy" in modules and "jinja2" not in modules
