"""Putting an encounter together: sides, deployment, combatant ids.

* Side names must match the map's ``deployment`` exactly, every deployed side
  must be given, and each side needs at least one combatant.
* Combatants are numbered globally in deployment order (the order of the map's
  ``deployment`` section, then file order within a side): the first ``Goblin``
  is ``goblin``, the next ``goblin-2``, ``goblin-3``… The base id is the
  combatant's ``name`` in lowercase ASCII (``Épée`` → ``epee``).
* A side fills its zone's cells in (row, col) order; a zone with fewer cells
  than combatants is an error.
* A creature larger than one square (Large 2×2 …, :mod:`engine.content.space`) takes
  the first cell in that order from which its whole space lies in the zone, on
  passable squares, clear of those already taken; a zone where it cannot fit
  is an error.
* A side may start elsewhere than its map zone (:mod:`engine.state.deployment`:
  another zone, one square per combatant, a formation); it is placed after the
  sides that keep their zone, and a square off the map, impassable or taken is
  an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.content.creatures import CombatantProfile
from engine.content.maps import Cell, GameMap
from engine.content.space import fits, footprint
from engine.core.errors import EncounterError, suggestion
from engine.state.casting import Casting
from engine.state.deployment import (
    FACING_FR,
    SHAPE_FR,
    CellsDeployment,
    Deployment,
    FormationDeployment,
    ZoneDeployment,
    facing_towards,
    formation_offsets,
    square,
    zone_squares,
)
from engine.state.state import CombatantState

if TYPE_CHECKING:  # (the spell files' models are imported only when a creature casts)
    from engine.content.spellbook import Spellbook, SpellSource


@dataclass(frozen=True, slots=True)
class Placement:
    id: str
    side: str
    profile: CombatantProfile
    cell: Cell
    #: its spells, resolved when the encounter is built (``None``: it casts nothing)
    spellbook: Spellbook | None = None


@dataclass(frozen=True, slots=True)
class Encounter:
    """A map and the deployed combatants, ready to be fought many times."""

    gmap: GameMap
    #: side names in deployment order
    sides: tuple[str, ...]
    placements: tuple[Placement, ...]
    #: the indices of the placements with spells
    casters: tuple[int, ...] = ()
    #: where its creatures' spells were resolved (``None``: the shipped registry)
    spells: SpellSource | None = None

    def side_size(self, side: str) -> int:
        return sum(1 for p in self.placements if p.side == side)

    def fresh_states(self, *, monsters_die_at_zero: bool = False) -> list[CombatantState]:
        """New runtime states for one fight."""
        states = [
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
        for i in self.casters:  # each fight starts again from the files' slots
            book = self.placements[i].spellbook
            assert book is not None
            states[i].casting = Casting(book)
        return states


def build_encounter(
    gmap: GameMap,
    sides: Sequence[tuple[str, Sequence[CombatantProfile]]],
    deployments: Mapping[str, Deployment] | None = None,
    *,
    spells: SpellSource | None = None,
) -> Encounter:
    """Check the sides against the map's deployment and place every combatant.

    The spells of every creature that lists some are resolved against ``spells``
    (default: the shipped registry, ``data/spells``) into its
    :class:`~engine.content.spellbook.Spellbook`, once per creature file.

    ``deployments`` replaces the map zone of some sides (:mod:`engine.state.deployment`):
    the sides that keep their map zone are placed first, then the others, so an
    explicit square never pushes a combatant of another side out of its zone.
    Ids and the order of combatants do not depend on where they start.

    :raises EncounterError: unknown or missing side, empty side, zone too small,
        a start square off the map, impassable or taken.
    """
    check_sides(gmap, sides)
    deployment = gmap.deployment
    given = dict(sides)
    others = deployments or {}
    for side in others:
        if side not in deployment:
            raise EncounterError(
                f"déploiement d'un camp inconnu « {side} » : la carte déploie {_names(deployment)}"
            )
    taken: dict[Cell, str] = {}
    starts: dict[str, list[Cell]] = {}
    order = [s for s in deployment if s not in others] + [s for s in deployment if s in others]
    for side in order:
        profiles = given[side]
        how = others.get(side)
        if how is None:
            cells = gmap.zone_cells(deployment[side])
            starts[side] = _fill(gmap, side, profiles, cells, f"la zone « {deployment[side]} »",
                                 taken)  # fmt: skip
        elif isinstance(how, ZoneDeployment):
            cells = zone_squares(gmap, how)
            label = f"la zone « {how.letter} »" if how.letter else "la zone donnée"
            starts[side] = _fill(gmap, side, profiles, cells, label, taken)
        else:
            starts[side] = _explicit(gmap, side, profiles, how, deployment, taken)
    counts: dict[str, int] = {}
    used: set[str] = set()
    placements: list[Placement] = []
    books: dict[int, Spellbook] = {}
    for side in deployment:
        for profile, cell in zip(given[side], starts[side], strict=True):
            base = profile.base_id
            counts[base] = counts.get(base, 0) + 1
            ident = base if counts[base] == 1 else f"{base}-{counts[base]}"
            while ident in used:  # « Orc 2 » next to two « Orc »: keep every id unique
                counts[base] += 1
                ident = f"{base}-{counts[base]}"
            used.add(ident)
            book: Spellbook | None = None
            if profile.spec.spells:
                book = books.get(id(profile))
                if book is None:
                    book = books[id(profile)] = _spellbook(profile, spells)
            placements.append(Placement(ident, side, profile, cell, book))
    casters = tuple(i for i, p in enumerate(placements) if p.spellbook is not None)
    return Encounter(gmap, tuple(deployment), tuple(placements), casters, spells)


def _spellbook(profile: CombatantProfile, spells: SpellSource | None) -> Spellbook:
    """``profile``'s spells resolved against ``spells`` (default: the shipped registry)."""
    from engine.content.spellbook import build_spellbook
    from engine.content.spells import default_registry

    return build_spellbook(profile.spec, spells if spells is not None else default_registry())


def _fill(
    gmap: GameMap,
    side: str,
    profiles: Sequence[CombatantProfile],
    cells: Sequence[Cell],
    label: str,
    taken: dict[Cell, str],
) -> list[Cell]:
    """Start cells of ``profiles`` filling the zone ``cells`` in order."""
    free = [c for c in cells if c not in taken]
    if len(profiles) > len(free):
        n = len(free)
        plural = "s" if n > 1 else ""
        free_word = f" libre{plural}" if n < len(cells) else ""
        raise EncounterError(
            f"zone trop petite : le camp « {side} » a {len(profiles)} combattants mais "
            f"{label} n'a que {n} case{plural}{free_word}"
        )
    out: list[Cell] = []
    mine: set[Cell] = set(taken)
    for profile in profiles:
        cell = _place(gmap, cells, mine, profile.space)
        if cell is None:
            k = profile.space
            raise EncounterError(
                f"zone trop petite : « {profile.name} » (taille {profile.spec.size}, "
                f"{k}×{k} cases) ne tient pas dans ce qui reste de {label} du camp « {side} »"
            )
        for c in footprint(gmap, cell, profile.space):
            mine.add(c)
            taken[c] = profile.name
        out.append(cell)
    return out


def _explicit(
    gmap: GameMap,
    side: str,
    profiles: Sequence[CombatantProfile],
    how: CellsDeployment | FormationDeployment,
    deployment: Mapping[str, str],
    taken: dict[Cell, str],
) -> list[Cell]:
    """Start cells given one per combatant, or computed from a formation."""
    if isinstance(how, CellsDeployment):
        if len(how.squares) != len(profiles):
            raise EncounterError(
                f"le camp « {side} » a {len(profiles)} combattants mais {len(how.squares)} "
                f"case{'s' if len(how.squares) > 1 else ''} de départ "
                f"{'sont données' if len(how.squares) > 1 else 'est donnée'}"
            )
        squares = list(how.squares)
        where = "case de départ"
    else:
        facing = how.facing or facing_towards(
            gmap, how.anchor, [letter for s, letter in deployment.items() if s != side]
        )
        step = how.spacing * max(p.space for p in profiles)
        ar, ac = how.anchor
        squares = [
            (ar + dr, ac + dc)
            for dr, dc in formation_offsets(how.shape, facing, len(profiles), step)
        ]
        where = (
            f"formation en {SHAPE_FR[how.shape]} ancrée en ({ar},{ac}), face à {FACING_FR[facing]}"
        )
    out: list[Cell] = []
    for profile, rc in zip(profiles, squares, strict=True):
        what = f"{where} de « {profile.name} » (camp « {side} »)"
        cell = square(gmap, rc, what)
        k = profile.space
        if not fits(gmap, cell, k):
            raise EncounterError(
                f"{what} : ({rc[0]},{rc[1]}) est trop près du bord pour un espace de {k}×{k} cases"
            )
        for c in footprint(gmap, cell, k):
            r, col = gmap.rc(c)
            square(gmap, (r, col), what)
            if c in taken:
                raise EncounterError(f"{what} : ({r},{col}) est déjà occupée par « {taken[c]} »")
        for c in footprint(gmap, cell, k):
            taken[c] = profile.name
        out.append(cell)
    return out


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
