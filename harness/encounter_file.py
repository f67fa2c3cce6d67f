"""Encounter files (``data/encounters/*.yaml``): one committed file per experiment.

.. code-block:: yaml

    name: "Démarrage rapide"          # optional
    map: ../maps/sample_arena.yaml    # paths are relative to this file
    runs: 1000                        # optional (1000)
    seed: 1                           # optional (1)
    round_cap: 100                    # optional (100)
    simple_monster_death: false       # optional
    sides:                            # side name -> its combatants and policy
      players:
        policy: heuristic             # heuristic (default) or scripted:PATH
        creatures:
          - ../monsters/goblin.json
          - file: ../monsters/goblin.json         # one combatant with its own policy
            policy: scripted:../scripts/goblin_archer.yaml
      monsters:
        creatures: [../monsters/orc.json, ../monsters/orc.json]
    experiment:                       # optional: what « pf1e-sim experiment » compares
      side: players                   # the side whose policy changes
      arms:                           # name -> policy; the first is the baseline
        heuristique: heuristic
        prudents: strategy:../strategies/cautious_archers.yaml
      level: 0.05                     # optional (0.05)
      target_width: 0.05              # optional: adaptive stopping (interval width)
      max_runs: 5000                  # optional: its maximum of runs
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from engine.errors import DataError
from engine.validation import StrictModel, load_yaml, read_text, validate
from policies.registry import HEURISTIC, PolicySpec, parse_policy_spec


class CreatureEntry(StrictModel):
    file: str = Field(min_length=1)
    policy: str | None = None


class SideEntry(StrictModel):
    policy: str = "heuristic"
    creatures: list[str | CreatureEntry] = Field(min_length=1)


class ExperimentEntry(StrictModel):
    side: str = Field(min_length=1)
    arms: dict[str, str] = Field(min_length=2)
    level: float = Field(default=0.05, gt=0, lt=1)
    target_width: float | None = Field(default=None, gt=0, le=2)
    max_runs: int | None = Field(default=None, ge=1)


@dataclass(frozen=True, slots=True)
class LoadedExperiment:
    side: str
    #: (name, policy) in file order; the first is the baseline
    arms: tuple[tuple[str, PolicySpec], ...]
    level: float
    target_width: float | None
    max_runs: int | None


class EncounterFile(StrictModel):
    name: str | None = None
    map: str = Field(min_length=1)
    runs: int = Field(default=1000, ge=1)
    seed: int = 1
    round_cap: int = Field(default=100, ge=1)
    simple_monster_death: bool = False
    sides: dict[str, SideEntry] = Field(min_length=1)
    experiment: ExperimentEntry | None = None


@dataclass(frozen=True, slots=True)
class LoadedEncounter:
    """An encounter file with paths resolved and policies loaded."""

    source: str
    name: str | None
    map_path: str
    runs: int
    seed: int
    round_cap: int
    simple_monster_death: bool
    #: (side, [(creature file, policy spec)]) in file order
    sides: tuple[tuple[str, tuple[tuple[str, PolicySpec], ...]], ...]
    experiment: LoadedExperiment | None = None


def load_encounter_file(path: str | Path) -> LoadedEncounter:
    """Read an encounter file. :raises DataError: unreadable or invalid file."""
    text, source = read_text(path, "chemin de rencontre vide")
    p = Path(source)
    data = load_yaml(text, source)
    doc = validate(EncounterFile, data, str(p))
    base = p.parent

    def rel(name: str) -> str:
        q = Path(name)
        return os.path.normpath(q if q.is_absolute() else base / q)

    def spec(text: str, where: str) -> PolicySpec:
        try:
            return parse_policy_spec(text, base)
        except DataError as err:
            raise DataError(err.message, source=err.source or str(p), location=where) from None

    sides: list[tuple[str, tuple[tuple[str, PolicySpec], ...]]] = []
    for side, entry in doc.sides.items():
        side_spec = (
            HEURISTIC
            if entry.policy == "heuristic"
            else spec(entry.policy, f'sides["{side}"].policy')
        )
        members: list[tuple[str, PolicySpec]] = []
        for i, creature in enumerate(entry.creatures):
            if isinstance(creature, str):
                members.append((rel(creature), side_spec))
            else:
                own = (
                    spec(creature.policy, f'sides["{side}"].creatures[{i}].policy')
                    if creature.policy
                    else side_spec
                )
                members.append((rel(creature.file), own))
        sides.append((side, tuple(members)))
    experiment: LoadedExperiment | None = None
    if doc.experiment is not None:
        exp = doc.experiment
        if exp.side not in doc.sides:
            raise DataError(f"camp inconnu « {exp.side} » (camps : {', '.join(doc.sides)})",
                            source=str(p), location="experiment.side")  # fmt: skip
        arms = tuple(
            (name, spec(policy, f'experiment.arms["{name}"]')) for name, policy in exp.arms.items()
        )
        experiment = LoadedExperiment(exp.side, arms, exp.level, exp.target_width, exp.max_runs)
    return LoadedEncounter(
        source=str(p),
        name=doc.name,
        map_path=rel(doc.map),
        runs=doc.runs,
        seed=doc.seed,
        round_cap=doc.round_cap,
        simple_monster_death=doc.simple_monster_death,
        sides=tuple(sides),
        experiment=experiment,
    )
