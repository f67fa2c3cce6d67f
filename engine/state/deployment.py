"""Other ways for a side to start than its map zone: a zone, start cells, a formation.

A :class:`Deployment` replaces the map's ``deployment`` zone of one side (see
:func:`engine.state.encounter.build_encounter`). Coordinates are ``(row, col)`` as in
map files. Three kinds:

* :class:`ZoneDeployment` — another zone: a zone letter of the map, or a list
  of squares. It is filled exactly like a map zone: (row, col) order, a large
  creature at the first square where its whole space fits, squares already
  taken by another side skipped.
* :class:`CellsDeployment` — one start square per combatant, in the side's
  order (for a large creature, the top-left square of its space).
* :class:`FormationDeployment` — a named formation around an anchor square,
  facing a direction:

  - ``line``: side by side across the facing, the first combatant on the
    anchor, then alternately on its left and right;
  - ``column``: one behind the other, the first on the anchor;
  - ``wedge``: a V whose point (the first combatant) is on the anchor, the
    others alternately behind-left and behind-right.

  ``spacing`` (1 by default) is the step between neighbours in squares; it is
  multiplied by the widest space of the side, so large creatures never overlap.
  Without ``facing`` the formation faces the other sides: the main direction
  from the anchor to the centre of their map zones (east or west on a tie).

Decisions: every square given or computed must be on the map, passable and
free — a wall, a pillar or a square already taken is an error naming the
combatant and the square, never silently moved. A zone given as squares must
contain only passable squares, like a map zone.

>>> formation_offsets("wedge", "east", 3, 1)
[(0, 0), (-1, -1), (1, -1)]
>>> formation_offsets("line", "north", 3, 1)
[(0, 0), (0, -1), (0, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.content.maps import Cell, GameMap
from engine.core.errors import EncounterError

Shape = Literal["line", "column", "wedge"]
Facing = Literal["north", "south", "east", "west"]
RowCol = tuple[int, int]

SHAPES: tuple[Shape, ...] = ("line", "column", "wedge")
FACINGS: tuple[Facing, ...] = ("north", "south", "east", "west")

#: (row, col) unit step of each facing
_FORWARD: dict[Facing, RowCol] = {
    "north": (-1, 0),
    "south": (1, 0),
    "east": (0, 1),
    "west": (0, -1),
}

SHAPE_FR: dict[Shape, str] = {"line": "ligne", "column": "colonne", "wedge": "coin"}
FACING_FR: dict[Facing, str] = {
    "north": "le nord",
    "south": "le sud",
    "east": "l'est",
    "west": "l'ouest",
}


@dataclass(frozen=True, slots=True)
class ZoneDeployment:
    """Another zone: a zone ``letter`` of the map, or explicit ``squares``."""

    letter: str | None = None
    squares: tuple[RowCol, ...] = ()


@dataclass(frozen=True, slots=True)
class CellsDeployment:
    """One start square per combatant of the side, in the side's order."""

    squares: tuple[RowCol, ...]


@dataclass(frozen=True, slots=True)
class FormationDeployment:
    """A named formation: ``shape`` around ``anchor``, facing ``facing`` (or the enemy)."""

    shape: Shape
    anchor: RowCol
    facing: Facing | None = None
    spacing: int = 1


Deployment = ZoneDeployment | CellsDeployment | FormationDeployment


def formation_offsets(shape: Shape, facing: Facing, count: int, step: int) -> list[RowCol]:
    """(row, col) offsets from the anchor of ``count`` members, in the side's order."""
    fr, fc = _FORWARD[facing]
    rr, rc = fc, -fr  # the facing's right-hand side
    out: list[RowCol] = []
    for i in range(count):
        rank = (i + 1) // 2
        lateral = -rank if i % 2 else rank  # 0, left 1, right 1, left 2…
        if shape == "line":
            f, lat = 0, lateral
        elif shape == "column":
            f, lat = -i, 0
        else:
            f, lat = -rank, lateral
        out.append(((f * fr + lat * rr) * step, (f * fc + lat * rc) * step))
    return out


def facing_towards(gmap: GameMap, anchor: RowCol, letters: Sequence[str]) -> Facing:
    """The main direction from ``anchor`` to the centre of the zones ``letters``."""
    cells = [c for letter in letters for c in gmap.zone_cells(letter)]
    if not cells:
        return "east"
    rows = sum(c // gmap.width for c in cells)
    cols = sum(c % gmap.width for c in cells)
    n = len(cells)
    dr, dc = rows - anchor[0] * n, cols - anchor[1] * n  # n × the offset to the centre
    if abs(dc) >= abs(dr):
        return "west" if dc < 0 else "east"
    return "north" if dr < 0 else "south"


def square(gmap: GameMap, rc: RowCol, what: str) -> Cell:
    """The cell of ``rc`` if it is on the map and passable.

    :raises EncounterError: off the map or impassable, naming ``what``.
    """
    r, c = rc
    if not gmap.in_bounds(r, c):
        raise EncounterError(
            f"{what} : ({r},{c}) est hors de la carte ({gmap.height} lignes × "
            f"{gmap.width} colonnes)"
        )
    cell = gmap.cell(r, c)
    if not gmap.passable(cell):
        ch = gmap.terrain_rows[r][c]
        kind = next((t.type for t in gmap.terrain_types if t.char == ch), ch)
        raise EncounterError(f"{what} : ({r},{c}) est infranchissable (« {ch} », {kind})")
    return cell


def zone_squares(gmap: GameMap, zone: ZoneDeployment) -> list[Cell]:
    """The cells of a zone in (row, col) order. :raises EncounterError: bad square or letter."""
    if zone.letter is not None:
        cells = gmap.zone_cells(zone.letter)
        if not cells:
            letters = sorted({z for z in gmap.zone_of if z != "."})
            raise EncounterError(
                f"zone « {zone.letter} » absente de la carte « {gmap.name} » (zones : "
                f"{', '.join(f'« {x} »' for x in letters) or 'aucune'})"
            )
        return cells
    return sorted({square(gmap, rc, "case de zone") for rc in zone.squares})
