"""Encounter files (``data/encounters/*.yaml``): one committed file per experiment.

.. code-block:: yaml

    name: "Démarrage rapide"          # optional
    map: ../maps/sample_arena.yaml    # paths are relative to this file
    runs: 1000                        # optional (1000)
    seed: 1                           # optional (1)
    round_cap: 100                    # optional (100)
    simple_monster_death: false       # optional
    spells: ../spells-maison          # optional: a directory of spell files, read before
                                      # the shipped registry (homebrew or test spells)
    sides:                            # side name -> its combatants and policy
      players:
        policy: heuristic             # heuristic (default) or scripted:PATH
        creatures:
          - ../monsters/goblin.json
          - file: ../monsters/goblin.json         # one combatant with its own policy
            policy: scripted:../scripts/goblin_archer.yaml
          - file: ../monsters/goblin.json         # one combatant's starting state
            aware: false                          # (replaces the file's; optional)
            conditions: [shaken, { name: confused, rounds: 2 }]
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
    sweep:                            # optional: what « pf1e-sim sweep » plays
      side: players                   # the side whose deployment and policy change
      variants:                       # name -> how that side deploys (rows first)
        zone de la carte: {}          # the map's zone (also: no value)
        zone A: { zone: A }           # a zone letter of the map
        bas: { zone: { rows: [5, 6], cols: [1, 2] } }     # a rectangle (inclusive)
        piliers: { zone: [[6, 2], [5, 3], [6, 4]] }       # a list of squares
        embuscade: { cells: [[3, 13], [4, 12], [5, 13]] } # one square per combatant
        ligne: { formation: { shape: line, anchor: [4, 5] } }
        coin: { formation: { shape: wedge, anchor: [4, 5], facing: east, spacing: 1 } }
      strategies:                     # name -> policy of that side
        heuristique: heuristic
        prudents: strategy:../strategies/cautious_archers.yaml
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal, cast

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from engine.content.abilities import StartConditionSpec, parse_start_conditions
from engine.content.maps import GameMap
from engine.content.validation import StrictModel, load_yaml, read_text, validate
from engine.core.errors import DataError
from engine.state.deployment import (
    CellsDeployment,
    Deployment,
    FormationDeployment,
    RowCol,
    ZoneDeployment,
    square,
)
from policies.registry import HEURISTIC, PolicySpec, parse_policy_spec


class CreatureEntry(StrictModel):
    """One combatant of a side: its creature file, and optionally its own policy
    and starting state (``aware``, ``conditions``: they replace the file's, with
    the same rules, :func:`engine.content.creatures.with_start`)."""

    file: str = Field(min_length=1)
    policy: str | None = None
    aware: bool | None = None
    conditions: list[str | StartConditionSpec] | None = None

    @field_validator("conditions", mode="before")
    @classmethod
    def _conditions(cls, value: object) -> object:
        return parse_start_conditions(value)

    def start(self) -> StartOverride | None:
        """Its starting-state overrides, or ``None`` when it gives none."""
        if self.aware is None and self.conditions is None:
            return None
        return StartOverride(
            self.aware, tuple(self.conditions) if self.conditions is not None else None
        )


@dataclass(frozen=True, slots=True)
class StartOverride:
    """An encounter file's starting state for one combatant (``None``: the file's)."""

    aware: bool | None
    conditions: tuple[str | StartConditionSpec, ...] | None


def _creature_kind(value: object) -> str:
    """Which member of a side's creature entry a value is (a file name, or an object)."""
    return "str" if isinstance(value, str) else "CreatureEntry"


#: a side's combatant: its creature file, or an object (a discriminated union, so
#: that a mistake in an object is reported as such, not as « text expected »)
Creature = Annotated[
    Annotated[str, Tag("str")] | Annotated[CreatureEntry, Tag("CreatureEntry")],
    Discriminator(_creature_kind),
]


class SideEntry(StrictModel):
    policy: str = "heuristic"
    creatures: list[Creature] = Field(min_length=1)


class ExperimentEntry(StrictModel):
    side: str = Field(min_length=1)
    arms: dict[str, str] = Field(min_length=2)
    level: float = Field(default=0.05, gt=0, lt=1)
    target_width: float | None = Field(default=None, gt=0, le=2)
    max_runs: int | None = Field(default=None, ge=1)


def _row_col(value: list[int]) -> list[int]:
    if len(value) != 2:
        raise ValueError(f"[ligne, colonne] attendu, reçu {value!r}")
    return value


class ZoneRect(StrictModel):
    """A rectangle of squares: first and last row, first and last column (inclusive)."""

    rows: list[int]
    cols: list[int]

    @field_validator("rows", "cols")
    @classmethod
    def _pair(cls, value: list[int]) -> list[int]:
        if len(value) != 2 or value[0] > value[1]:
            raise ValueError(f"[première, dernière] attendu (première ≤ dernière), reçu {value!r}")
        return value


class FormationEntry(StrictModel):
    shape: Literal["line", "column", "wedge"]
    anchor: list[int]
    facing: Literal["north", "south", "east", "west"] | None = None
    spacing: int = Field(default=1, ge=1)

    @field_validator("anchor")
    @classmethod
    def _anchor(cls, value: list[int]) -> list[int]:
        return _row_col(value)


class VariantEntry(StrictModel):
    """How the studied side deploys: at most one of ``zone``, ``cells``, ``formation``
    (none: the map's zone)."""

    zone: str | ZoneRect | list[list[int]] | None = None
    cells: list[list[int]] | None = Field(default=None, min_length=1)
    formation: FormationEntry | None = None

    @field_validator("zone", mode="before")
    @classmethod
    def _zone(cls, value: object) -> object:
        # checked here so that a mistake gets its own message, not the union's first one
        if value is None or (isinstance(value, str) and len(value) == 1):
            return value
        if isinstance(value, dict):
            rect = cast("dict[object, object]", value)
            keys = sorted(str(k) for k in rect)
            if keys != ["cols", "rows"]:
                raise ValueError(
                    "rectangle {rows: [première, dernière], cols: [première, dernière]} "
                    f"attendu, clés reçues : {', '.join(keys)}"
                )
            for key in ("rows", "cols"):
                pair = rect[key]
                if not (
                    isinstance(pair, list)
                    and len(cast("list[object]", pair)) == 2
                    and all(isinstance(x, int) for x in cast("list[object]", pair))
                    and cast("list[int]", pair)[0] <= cast("list[int]", pair)[1]
                ):
                    raise ValueError(
                        f"{key} : [première, dernière] attendu (première ≤ dernière), reçu {pair!r}"
                    )
            return value
        if isinstance(value, list):
            for item in cast("list[object]", value):
                if not isinstance(item, list):
                    raise ValueError(f"[ligne, colonne] attendu, reçu {item!r}")
                _row_col(cast("list[int]", item))
            return value
        raise ValueError(
            "une lettre de zone de la carte, un rectangle {rows: […], cols: […]} ou une liste "
            f"de [ligne, colonne] attendu, reçu {value!r}"
        )

    @field_validator("cells")
    @classmethod
    def _cells(cls, value: list[list[int]] | None) -> list[list[int]] | None:
        for item in value or []:
            _row_col(item)
        return value

    @model_validator(mode="after")
    def _one_way(self) -> VariantEntry:
        given = [k for k in ("zone", "cells", "formation") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(
                f"une seule façon de se déployer par variante (zone, cells ou formation), "
                f"reçu : {', '.join(given)}"
            )
        return self

    def deployment(self) -> Deployment | ZoneRectangle | None:
        if isinstance(self.zone, str):
            return ZoneDeployment(letter=self.zone)
        if isinstance(self.zone, ZoneRect):
            (r0, r1), (c0, c1) = self.zone.rows, self.zone.cols
            return ZoneRectangle((r0, r1), (c0, c1))
        if self.zone is not None:
            return ZoneDeployment(squares=tuple(_rc(x) for x in self.zone))
        if self.cells is not None:
            return CellsDeployment(tuple(_rc(x) for x in self.cells))
        if self.formation is not None:
            f = self.formation
            return FormationDeployment(f.shape, _rc(f.anchor), f.facing, f.spacing)
        return None


@dataclass(frozen=True, slots=True)
class ZoneRectangle:
    """A zone given as a rectangle, kept as its bounds until the map is known: its
    squares are listed only once the rectangle is known to lie on the map."""

    #: first and last row, inclusive
    rows: tuple[int, int]
    #: first and last column, inclusive
    cols: tuple[int, int]

    def on(self, gmap: GameMap) -> ZoneDeployment:
        """The zone of the rectangle's squares on ``gmap``.

        :raises EncounterError: the rectangle leaves the map (the first square off it,
            in (row, column) order, is named, as for a list of squares) or one of the
            squares before that one is impassable.
        """
        (r0, r1), (c0, c1) = self.rows, self.cols
        h, w = gmap.height, gmap.width
        if r0 >= 0 and c0 >= 0 and r1 < h and c1 < w:
            return ZoneDeployment(
                squares=tuple((r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
            )
        # bounds checked before anything is listed: only squares on the map are
        # visited, the ones a list of squares would have checked before the first off it
        if not (0 <= r0 < h and 0 <= c0 < w):
            before, first = [], (r0, c0)
        elif c1 >= w:
            before, first = [(r0, c) for c in range(c0, w)], (r0, w)
        else:
            before = [(r, c) for r in range(r0, h) for c in range(c0, c1 + 1)]
            first = (h, c0)
        for rc in (*before, first):
            square(gmap, rc, "case de zone")
        raise AssertionError("unreachable: the first square is off the map")  # pragma: no cover


def _rc(value: list[int]) -> RowCol:
    return value[0], value[1]


class SweepEntry(StrictModel):
    side: str = Field(min_length=1)
    variants: dict[str, VariantEntry | None] = Field(min_length=1)
    strategies: dict[str, str] = Field(min_length=1)

    @field_validator("variants", "strategies")
    @classmethod
    def _named(cls, value: dict[str, object]) -> dict[str, object]:
        if any(not name.strip() for name in value):
            raise ValueError("chaque entrée a besoin d'un nom non vide")
        return value


@dataclass(frozen=True, slots=True)
class LoadedSweep:
    side: str
    #: (name, deployment or None for the map's zone) in file order
    variants: tuple[tuple[str, Deployment | ZoneRectangle | None], ...]
    #: (name, policy) in file order
    strategies: tuple[tuple[str, PolicySpec], ...]


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
    spells: str | None = Field(default=None, min_length=1)
    sides: dict[str, SideEntry] = Field(min_length=1)
    experiment: ExperimentEntry | None = None
    sweep: SweepEntry | None = None


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
    #: (side, index in that side's list) → its starting-state overrides, for the
    #: combatants that have some
    starts: Mapping[tuple[str, int], StartOverride] = field(default_factory=dict)
    experiment: LoadedExperiment | None = None
    sweep: LoadedSweep | None = None
    #: the directory of its own spell files, read before the shipped registry
    spells_dir: str | None = None


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
    starts: dict[tuple[str, int], StartOverride] = {}
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
                start = creature.start()
                if start is not None:
                    starts[(side, i)] = start
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
    sweep: LoadedSweep | None = None
    if doc.sweep is not None:
        sw = doc.sweep
        if sw.side not in doc.sides:
            raise DataError(f"camp inconnu « {sw.side} » (camps : {', '.join(doc.sides)})",
                            source=str(p), location="sweep.side")  # fmt: skip
        variants = tuple(
            (name, entry.deployment() if entry is not None else None)
            for name, entry in sw.variants.items()
        )
        strategies = tuple(
            (name, spec(policy, f'sweep.strategies["{name}"]'))
            for name, policy in sw.strategies.items()
        )
        sweep = LoadedSweep(sw.side, variants, strategies)
    return LoadedEncounter(
        source=str(p),
        name=doc.name,
        map_path=rel(doc.map),
        runs=doc.runs,
        seed=doc.seed,
        round_cap=doc.round_cap,
        simple_monster_death=doc.simple_monster_death,
        sides=tuple(sides),
        starts=starts,
        experiment=experiment,
        sweep=sweep,
        spells_dir=rel(doc.spells) if doc.spells is not None else None,
    )
