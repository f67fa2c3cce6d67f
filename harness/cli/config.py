"""The fights a command plays: the encounter (from ``--map``/``--side`` or an
encounter file, read once), one policy per combatant, and the run settings
(those of every command and those of ``experiment``) merged from the file and
the flags in one place, :meth:`RunConfig.merge`.

>>> file = RunConfig(runs=200, seed=7, round_cap=30, simple_monster_death=True, side="players")
>>> merged = file.merge(runs=50, seed=None, level=0.01)
>>> merged.runs, merged.seed, merged.round_cap, merged.simple_monster_death
(50, 7, 30, True)
>>> merged.side, merged.level, merged.target_width
('players', 0.01, None)
>>> RunConfig().merge(simple_monster_death=True).simple_monster_death
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.common import SIDE_SEP, UserError

if TYPE_CHECKING:
    from engine.content.creatures import CombatantProfile
    from engine.content.maps import GameMap
    from engine.content.spellbook import SpellSource
    from engine.state.encounter import Encounter
    from harness.encounter_file import LoadedEncounter, StartOverride
    from policies.registry import PolicySpec


@dataclass(frozen=True, slots=True)
class RunConfig:
    """How many fights, from which seed, under which cap and death rule; for
    ``experiment``, which side's arms are compared and how it stops."""

    #: fights played (per arm, per cell)
    runs: int = 1000
    #: fight ``i`` uses ``seed + i``
    seed: int = 1
    #: rounds per fight before it is a draw
    round_cap: int = 100
    #: monsters die at 0 hit points
    simple_monster_death: bool = False
    #: experiment: the side whose policy changes (``None``: not given)
    side: str | None = None
    #: experiment: the arms, (name, policy) in order, the first the baseline
    arms: tuple[tuple[str, PolicySpec], ...] = ()
    #: experiment: the level of the test
    level: float = 0.05
    #: experiment: adaptive stopping's interval width (``None``: fixed runs)
    target_width: float | None = None
    #: experiment: adaptive stopping's most runs per arm
    max_runs: int | None = None

    def merge(
        self,
        runs: int | None = None,
        seed: int | None = None,
        round_cap: int | None = None,
        simple_monster_death: bool = False,
        *,
        side: str | None = None,
        arms: Sequence[tuple[str, PolicySpec]] | None = None,
        level: float | None = None,
        target_width: float | None = None,
        max_runs: int | None = None,
    ) -> RunConfig:
        """These values with the flags laid over them: a flag that was given (not
        ``None``; a switch that is on) wins."""
        return RunConfig(
            self.runs if runs is None else runs,
            self.seed if seed is None else seed,
            self.round_cap if round_cap is None else round_cap,
            simple_monster_death or self.simple_monster_death,
            self.side if side is None else side,
            self.arms if arms is None else tuple(arms),
            self.level if level is None else level,
            self.target_width if target_width is None else target_width,
            self.max_runs if max_runs is None else max_runs,
        )


@dataclass(frozen=True, slots=True)
class Setup:
    """An encounter ready to play, and where it came from."""

    encounter: Encounter
    #: one policy per combatant, in placement order
    policies: tuple[PolicySpec, ...]
    map_path: str
    side_files: dict[str, list[str]]
    #: the encounter file's values (defaults without one), flags not yet laid over
    config: RunConfig = field(default_factory=RunConfig)
    #: the encounter file, read once, when there is one
    file: LoadedEncounter | None = None


def load_setup(
    map_path: str | None,
    side: list[str] | None,
    encounter_path: str | None,
    policy: list[str] | None,
) -> Setup:
    """Build the encounter and one policy spec per combatant from the options."""
    from engine.content.maps import load_map
    from engine.state.encounter import build_encounter, check_sides
    from policies.registry import HEURISTIC

    overrides = _parse_policies(policy or [])
    if encounter_path is not None:
        from harness.encounter_file import load_encounter_file

        if map_path is not None or side:
            raise UserError("--encounter remplace --map et --side : donnez l'un ou l'autre")
        loaded = load_encounter_file(encounter_path)
        gmap = load_map(loaded.map_path)
        listed = [(name, [f for f, _ in members]) for name, members in loaded.sides]
        check_sides(gmap, listed)
        _check_policy_sides(gmap, overrides)
        encounter = build_encounter(
            gmap, _load_sides(listed, loaded.starts), spells=_spells(loaded.spells_dir)
        )
        by_side = {name: [spec for _, spec in members] for name, members in loaded.sides}
        specs = _specs_in_placement_order(encounter, by_side, overrides)
        config = RunConfig(loaded.runs, loaded.seed, loaded.round_cap, loaded.simple_monster_death)
        if loaded.experiment is not None:
            exp = loaded.experiment
            config = replace(config, side=exp.side, arms=exp.arms, level=exp.level,
                             target_width=exp.target_width, max_runs=exp.max_runs)  # fmt: skip
        return Setup(encounter, specs, loaded.map_path, dict(listed), config, loaded)
    if map_path is None:
        raise UserError("option obligatoire manquante : --map (ou --encounter)")
    sides = _decode_sides(side or [])
    if not sides:
        raise UserError("aucun camp : ajoutez --side NOM FICHIER [FICHIER …] pour chaque camp")
    gmap = load_map(map_path)
    check_sides(gmap, sides)
    _check_policy_sides(gmap, overrides)
    encounter = build_encounter(gmap, _load_sides(sides))
    by_side = {name: [HEURISTIC] * len(files) for name, files in sides}
    specs = _specs_in_placement_order(encounter, by_side, overrides)
    return Setup(encounter, specs, map_path, dict(sides))


def _spells(directory: str | None) -> SpellSource | None:
    """The spells of an encounter file's own directory, then the shipped ones
    (``None``: the shipped registry alone)."""
    if directory is None:
        return None
    from engine.content.spellbook import LayeredRegistry
    from engine.content.spells import SpellRegistry, default_registry

    if not Path(directory).is_dir():
        raise UserError(f"« spells » : dossier de sorts introuvable « {directory} »")
    return LayeredRegistry(SpellRegistry(directory), default_registry())


def _decode_sides(values: list[str]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for raw in values:
        name, *files = raw.split(SIDE_SEP)
        out.append((name, files))
    return out


def _load_sides(
    sides: list[tuple[str, list[str]]],
    starts: Mapping[tuple[str, int], StartOverride] | None = None,
) -> list[tuple[str, list[CombatantProfile]]]:
    """The profiles of each side's files (each file read once), with an encounter
    file's starting-state overrides (``starts``: by side and index) laid over."""
    from engine.content.creatures import load_combatant, with_start

    cache: dict[str, CombatantProfile] = {}
    out: list[tuple[str, list[CombatantProfile]]] = []
    for name, files in sides:
        profiles: list[CombatantProfile] = []
        for i, f in enumerate(files):
            if f not in cache:
                cache[f] = load_combatant(f)
            profile = cache[f]
            start = starts.get((name, i)) if starts else None
            if start is not None:
                conditions = list(start.conditions) if start.conditions is not None else None
                profile = with_start(profile, aware=start.aware, conditions=conditions)
            profiles.append(profile)
        out.append((name, profiles))
    return out


def _parse_policies(values: list[str]) -> dict[str, PolicySpec]:
    from policies.registry import parse_policy_spec

    out: dict[str, PolicySpec] = {}
    for raw in values:
        name, sep, spec = raw.partition("=")
        if not sep or not name or not spec:
            raise UserError(f"--policy attend CAMP=POLITIQUE, reçu « {raw} »")
        if name in out:
            raise UserError(f"--policy : le camp « {name} » est donné deux fois")
        out[name] = parse_policy_spec(spec)
    return out


def _check_policy_sides(gmap: GameMap, overrides: dict[str, PolicySpec]) -> None:
    for name in overrides:
        if name not in gmap.deployment:
            names = ", ".join(f"« {n} »" for n in gmap.deployment)
            raise UserError(f"--policy : camp inconnu « {name} » (camps de la carte : {names})")


def _specs_in_placement_order(
    encounter: Encounter,
    by_side: dict[str, list[PolicySpec]],
    overrides: dict[str, PolicySpec],
) -> tuple[PolicySpec, ...]:
    taken = dict.fromkeys(by_side, 0)
    out: list[PolicySpec] = []
    for placement in encounter.placements:
        side = placement.side
        spec = by_side[side][taken[side]]
        taken[side] += 1
        out.append(overrides.get(side, spec))
    return tuple(out)
