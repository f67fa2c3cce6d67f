"""``pf1e-sim strategy compile``: a text → a strategy YAML, through the cache.

Compiled specs are cached as YAML under ``<cache>/strategies/<hash>.yaml``, the
hash of (text, model id, prompts and schemas, the encounter's names): the same
text compiled again with the same model, prompts and encounter costs no model
call (the model is not even loaded). What the text asks that the spec cannot
express is kept in the file as ``# non compris : …`` comment lines, read back
from the cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.content.validation import read_text
from engine.core.errors import DataError
from harness.models import DEFAULT_EMBEDDED, ReplayModel, cache_dir, open_model
from harness.output import write_atomic
from policies.strategy import dump_strategy, parse_strategy
from policies.strategy_compile import (
    Compilation,
    Roster,
    StrategyCompileError,
    Unit,
    cache_key,
    check_tactical,
    compile_text,
)

#: the start of a comment line of a compiled file that keeps one « non compris » report
NOT_UNDERSTOOD = "# non compris : "


def model_id_of(spec: str) -> str:
    """The id a model string's model will report, without loading the model."""
    kind, _, arg = spec.partition(":")
    if kind == "local":
        return f"local:{arg or DEFAULT_EMBEDDED}"
    if kind == "gguf" and arg:
        return f"gguf:{Path(arg).name}"
    if kind == "replay" and arg:
        return ReplayModel(Path(arg)).model_id
    if kind == "openai" and arg:
        return f"openai:{arg}"
    return str(open_model(spec).model_id)  # raises the French error of an unknown form


def roster_of(encounter_path: str, side: str) -> Roster:
    """The combatants of an encounter file (ids as the fight gives them), ``side`` ours.

    :raises DataError: an unreadable or invalid encounter file;
    :raises StrategyCompileError: ``side`` is not one of its sides.
    """
    from engine.content.creatures import load_combatant
    from engine.content.maps import load_map
    from engine.state.encounter import build_encounter
    from harness.encounter_file import load_encounter_file

    loaded = load_encounter_file(encounter_path)
    names = [name for name, _ in loaded.sides]
    if side not in names:
        raise StrategyCompileError(f"camp inconnu « {side} » : la rencontre a {', '.join(names)}")
    gmap = load_map(loaded.map_path)
    sides = [(name, [load_combatant(f) for f, _ in members]) for name, members in loaded.sides]
    encounter = build_encounter(gmap, sides)
    return Roster(
        tuple(Unit(p.id, p.profile.spec.name, p.side == side) for p in encounter.placements)
    )


def render(compiled: Compilation) -> str:
    """The YAML of a compilation: its « non compris » reports as comments, then the spec."""
    notes = "".join(f"{NOT_UNDERSTOOD}{n}\n" for n in compiled.not_understood)
    return notes + dump_strategy(compiled.spec)


def compile_cached(
    text: str, model: str, *, roster: Roster | None = None, threads: int | None = None
) -> tuple[Compilation, bool]:
    """``(compilation, from_cache)`` for ``text`` compiled by ``model`` (a model string).

    A text without a word of combat is refused before the model is even loaded.
    """
    check_tactical(text)
    key = cache_key(text, model_id_of(model), roster)
    path = cache_dir() / "strategies" / f"{key}.yaml"
    if path.is_file():
        try:
            body, source = read_text(path)
            notes = tuple(
                line[len(NOT_UNDERSTOOD) :]
                for line in body.splitlines()
                if line.startswith(NOT_UNDERSTOOD)
            )
            return Compilation(parse_strategy(body, source), notes), True
        except Exception:
            pass
    chat: Any = open_model(model, threads=threads) if threads else open_model(model)
    compiled = compile_text(text, chat, roster)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, render(compiled))
    except (OSError, DataError):
        pass  # the cache is an optimisation: a read-only cache costs a recompilation only
    return compiled, False
