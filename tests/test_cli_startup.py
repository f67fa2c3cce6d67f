"""Start-up of the command line: a heuristic run imports only what it uses.

What a heuristic ``pf1e-sim --runs 1`` never needs (the LLM policy and its
providers, jinja2 prompts, the narrator, HTML, encounter-file, script and
strategy models, sweeps and experiments) is imported where it is used, not when
the CLI starts; ``bench/bench_instructions.py --startup`` counts what is left.
Each case runs in a fresh interpreter, so that no other test's imports count.
The start-up also runs without the garbage collector (``harness.cli.entry``),
and pydantic reads no builtin's signature (content models' default factories).
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
    "engine.run.schemas",
    # one process plays: no pool
    "multiprocessing",
    "concurrent.futures",
    # a report without unprintable characters is written as it is
    "policies.answers",
)

PROGRAM = """
import contextlib, io, json, sys
from harness.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _python(program: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``program`` in a fresh interpreter at the repository root (it must succeed)."""
    return subprocess.run(
        [sys.executable, "-c", program, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
        timeout=120,
    )


def _modules_after(args: list[str]) -> tuple[int, set[str]]:
    proc = _python(PROGRAM, json.dumps(args))
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


def test_the_help_imports_neither_the_engine_nor_pydantic() -> None:
    code, modules = _modules_after(["--help"])
    assert code == 0
    heavy = ("pydantic", "yaml", "policies", "engine.content.creatures", "engine.turn.battle",
             "harness.parallel")  # fmt: skip
    assert [name for name in heavy if _imported(modules, name)] == []


GC_PROGRAM = """
import gc, json, sys
import harness.parallel
from harness.cli import entry
real = harness.parallel.simulate
before = sum(s["collections"] for s in gc.get_stats())
def spy(*args, **kwargs):
    during = sum(s["collections"] for s in gc.get_stats())
    seen = {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
            "collections": during - before}
    sys.stderr.write(json.dumps(seen) + "\\n")
    return real(*args, **kwargs)
harness.parallel.simulate = spy
sys.argv = ["pf1e-sim", *json.loads(sys.argv[1])]
entry()
"""


def test_the_start_up_runs_without_collections_and_the_fights_with_them() -> None:
    proc = _python(GC_PROGRAM, json.dumps([*QUICK, "--runs", "2"]))
    seen = json.loads(proc.stderr.splitlines()[-1])
    # nothing collected between the entry point and the fights; the fights run with
    # the collector on, the start-up's objects frozen
    assert seen["collections"] == 0
    assert seen["enabled"] and seen["frozen"] > 10_000
    assert "Rapport d'équilibrage" in proc.stdout


def test_no_engine_content_model_has_a_builtin_default_factory() -> None:
    """``Field(default_factory=list)`` makes pydantic tokenize ``list``'s text
    signature, which compiles a large regular expression at every start-up: the
    engine's models (and the strategy spec's, built by every strategy run) use
    ``engine.content.validation.empty_list`` / ``empty_dict``."""
    import engine.content.creatures
    import engine.content.maps
    import engine.content.packs
    import policies.strategy
    from engine.content.validation import StrictModel

    assert engine.content.creatures and engine.content.maps and engine.content.packs
    assert policies.strategy
    models: list[type[StrictModel]] = []
    todo = [StrictModel]
    while todo:
        for sub in todo.pop().__subclasses__():
            models.append(sub)
            todo.append(sub)
    engine_models = [m for m in models if m.__module__.startswith(("engine.", "policies.strategy"))]
    assert len(engine_models) > 15
    builtin = [
        f"{m.__module__}.{m.__name__}.{name}"
        for m in engine_models
        for name, info in m.model_fields.items()
        if getattr(info.default_factory, "__module__", None) == "builtins"
    ]
    assert builtin == []


ROLL_GC_PROGRAM = """
import gc, sys
import harness.cli.roll
real = harness.cli.roll.emit
def spy(*args, **kwargs):
    sys.stderr.write(f"enabled={gc.isenabled()}\\n")
    return real(*args, **kwargs)
harness.cli.roll.emit = spy
from harness.cli import entry
sys.argv = ["pf1e-sim", "roll", "+2 vs 10", "--seed", "1"]
entry()
"""


def test_a_command_without_fights_runs_with_the_collector_on() -> None:
    """``roll`` (as ``report`` or ``strategy``, which may run a model) turns the
    collector back on when it is dispatched: only the start-up runs without it."""
    proc = _python(ROLL_GC_PROGRAM)
    assert "enabled=True" in proc.stderr
