"""Putting an encounter together: sides, deployment, combatant ids.

* Side names must match the map's ``deployment`` exactly, every deployed side
  must be given, and each side needs at least one combatant.
* Combatants are numbered globally in deployment order (the order of the map's
  ``deployment`` section, then file order within a side): the first ``Goblin``
  is ``goblin``, the next ``goblin-2``, ``goblin-3``… The base id is the
  combatant's ``name`` in lowercase ASCII (``Épée`` → ``epee``).
* A side fills its zone's cells in (row, col) order; a zone with fewer cells
  than combatants is an error.
* A creature larger than one square (Large 2×2 …, :mod:`engine.space`) takes
  the first cell in that order from which its whole space lies in the zone, on
  passable squares, clear of those already taken; a zone where it cannot fit
  is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.creatures import CombatantProfile
from engine.errors import EncounterError, suggestion
from engine.maps import Cell, GameMap
from engine.space import fits, footprint
from engine.state import CombatantState


@dataclass(frozen=True, slots=True)
class Placement:
    id: str
    side: str
    profile: CombatantProfile
    cell: Cell


@dataclass(frozen=True, slots=True)
class Encounter:
    """A map and the deployed combatants, ready to be fought many times."""

    gmap: GameMap
    #: side names in deployment order
    sides: tuple[str, ...]
    placements: tuple[Placement, ...]

    def side_size(self, side: str) -> int:
        return sum(1 for p in self.placements if p.side == side)

    def fresh_states(self, *, monsters_die_at_zero: bool = False) -> list[CombatantState]:
        """New runtime states for one fight."""
        return [
            CombatantState(
                id=p.id,
                side=p.side,
                profile=p.profile,
                index=i,
                pos=p.cell,
                hp=p.profile.spec.hp_max,
                dies_at_zero=monsters_die_at_zero and not p.profile.is_pc,
                aware=p.profile.spec.aware,
            )
            for i, p in enumerate(self.placements)
        ]


def build_encounter(
    gmap: GameMap, sides: Sequence[tuple[str, Sequence[CombatantProfile]]]
) -> Encounter:
    """Check the sides against the map's deployment and place every combatant.

    :raises EncounterError: unknown or missing side, empty side, zone too small.
    """
    check_sides(gmap, sides)
    deployment = gmap.deployment
    given = dict(sides)
    counts: dict[str, int] = {}
    used: set[str] = set()
    placements: list[Placement] = []
    taken: set[Cell] = set()
    for side, letter in deployment.items():
        cells = gmap.zone_cells(letter)
        profiles = given[side]
        if len(profiles) > len(cells):
            raise EncounterError(
                f"zone trop petite : le camp « {side} » a {len(profiles)} combattants mais la "
                f"zone « {letter} » n'a que {len(cells)} case{'s' if len(cells) > 1 else ''}"
            )
        for profile in profiles:
            cell = _place(gmap, cells, taken, profile.space)
            if cell is None:
                k = profile.space
                raise EncounterError(
                    f"zone trop petite : « {profile.name} » (taille {profile.spec.size}, "
                    f"{k}×{k} cases) ne tient pas dans ce qui reste de la zone « {letter} » "
                    f"du camp « {side} »"
                )
            taken.update(footprint(gmap, cell, profile.space))
            base = profile.base_id
            counts[base] = counts.get(base, 0) + 1
            ident = base if counts[base] == 1 else f"{base}-{counts[base]}"
            while ident in used:  # « Orc 2 » next to two « Orc »: keep every id unique
                counts[base] += 1
                ident = f"{base}-{counts[base]}"
            used.add(ident)
            placements.append(Placement(ident, side, profile, cell))
    return Encounter(gmap, tuple(deployment), tuple(placements))


def _place(gmap: GameMap, zone: Sequence[Cell], taken: set[Cell], k: int) -> Cell | None:
    """First cell of ``zone`` (in order) where a ``k × k`` space fits inside the
    zone, on passable squares, clear of ``taken``."""
    inside = set(zone)
    for cell in zone:
        if k == 1:
            if cell not in taken:
                return cell
            continue
        if not fits(gmap, cell, k):
            continue
        space = footprint(gmap, cell, k)
        if all(c in inside and gmap.move_cost[c] > 0 and c not in taken for c in space):
            return cell
    return None


def check_sides(gmap: GameMap, sides: Sequence[tuple[str, Sequence[object]]]) -> None:
    """Check side names and counts against the map's deployment (before loading files).

    :raises EncounterError: no deployment, unknown, repeated, empty or missing side.
    """
    deployment = gmap.deployment
    if not deployment:
        raise EncounterError(
            f"la carte « {gmap.name} » n'a pas de section « deployment » : impossible de "
            "placer les camps"
        )
    seen: set[str] = set()
    for name, files in sides:
        if name not in deployment:
            raise EncounterError(
                f"camp inconnu « {name} » : la carte déploie {_names(deployment)}"
                f"{suggestion(name, deployment)}"
            )
        if name in seen:
            raise EncounterError(f"le camp « {name} » est donné deux fois (--side)")
        if not files:
            raise EncounterError(f"le camp « {name} » n'a aucun fichier de combattant")
        seen.add(name)
    missing = [s for s in deployment if s not in seen]
    if missing:
        raise EncounterError(
            f"camp de déploiement manquant : {_names(missing)} (ajoutez --side "
            f"{missing[0]} FICHIER…)"
        )


def _names(names: Sequence[str] | dict[str, str]) -> str:
    return ", ".join(f"« {n} »" for n in names)
