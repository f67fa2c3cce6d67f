"""Spell areas on the grid: bursts, spreads, cones, lines and squares (SRD « Aiming a Spell »).

Pure functions of the map (their results are cached on it) and of the
creatures' squares; the decisions are in ``docs/rules.md``, « Spell areas ».

* **Points.** A spell's point of origin is a grid intersection (SRD « Area »):
  a :data:`Point` is ``row * (width + 1) + col`` for the intersection at the
  top-left corner of the square ``(row, col)``; rows ``0..height`` and columns
  ``0..width``. A ``target_pos`` square names the intersection at its top-left
  corner (:func:`aim_point`); a creature, the top-left corner of the square at
  the centre of its space (:func:`creature_point`: its top-left corner for one
  square, the exact centre of a 2 × 2 space).
* **Distance.** Counted from intersection to intersection by the 5-10-5 rule; a
  square is in an area when its far corner is within the area's size (SRD: « if
  the far edge of a square is within the spell's area, anything within that
  square is within the spell's area »).
* **Burst** (:func:`burst_cells`): the squares within the radius that have line
  of effect from the origin (a burst does not go around corners); a **spread**
  also fills the squares a path of that length reaches around barriers.
* **Cone** (:func:`cone_cells`): a quarter circle from a corner of the caster's
  space in one of eight directions; the squares whose centres lie in the 90°
  wedge (its edges included), within the length, with line of effect from the
  apex.
* **Line** (:func:`line_cells`): from a corner of the caster's space toward the
  centre of the aimed square and on to the line's length, the squares whose
  interior it crosses, in order; the first square that blocks line of effect
  is its last square.
* **Square** (:func:`square_cells`, Grease's « 10-ft. square »): ``n × n``
  squares centred on the origin (on the named square when ``n`` is odd).

Line of effect from a point to a square (:func:`sees`) follows
:mod:`engine.geometry.los`: some segment from the point to a corner of the
square crosses no ``blocks_los`` square's interior. An impassable
``blocks_los`` square (a wall) is never part of an area; a passable one (a
curtain) is, when the area reaches it. A creature is in an area when any square
of its space is (:func:`creatures_in_area`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, Protocol, TypeVar, cast

from engine.content.actions import Reason
from engine.content.maps import Cell, GameMap
from engine.content.space import footprint
from engine.geometry.los import crossed_squares

#: a grid intersection: ``row * (width + 1) + col`` (rows ``0..height``, columns ``0..width``)
Point = int
#: a cone's direction: (row step, column step), each −1, 0 or 1, not both 0
Direction = tuple[int, int]
#: the area shapes (Foundry's ``measureTemplate`` types: circle → burst or spread,
#: cone → cone, ray → line, rect → square)
Shape = Literal["burst", "spread", "cone", "line", "square"]

#: the eight directions, clockwise from north
DIRECTIONS: tuple[Direction, ...] = (
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
)

_FAR = 1 << 30


class Placed(Protocol):
    """What the areas read of a creature: a :class:`~engine.state.state.CombatantState`
    or an Observation's view of one."""

    @property
    def id(self) -> str: ...
    @property
    def side(self) -> str: ...
    @property
    def cell(self) -> Cell: ...
    @property
    def space(self) -> int: ...
    @property
    def active(self) -> bool: ...
    @property
    def dead(self) -> bool: ...


P = TypeVar("P", bound=Placed)


# -- points -------------------------------------------------------------------------
def point(gmap: GameMap, row: int, col: int) -> Point:
    """The intersection at row line ``row`` and column line ``col``."""
    return row * (gmap.width + 1) + col


def point_rc(gmap: GameMap, p: Point) -> tuple[int, int]:
    """``(row, col)`` of an intersection."""
    return divmod(p, gmap.width + 1)


def aim_point(gmap: GameMap, cell: Cell) -> Point:
    """The point a square names (a ``target_pos``): its top-left corner."""
    r, c = divmod(cell, gmap.width)
    return r * (gmap.width + 1) + c


def centre_square(gmap: GameMap, anchor: Cell, k: int) -> Cell:
    """The square at the centre of a ``k × k`` space anchored on ``anchor`` (for
    an even ``k``, the one south-east of the centre)."""
    w = gmap.width
    r, c = divmod(anchor, w)
    return (r + k // 2) * w + c + k // 2


def creature_point(gmap: GameMap, anchor: Cell, k: int) -> Point:
    """The origin of a burst aimed at a creature, or centred on the caster: the
    top-left corner of the square at the centre of its space."""
    return aim_point(gmap, centre_square(gmap, anchor, k))


def _steps(a: int, b: int) -> int:
    """5-10-5 distance in squares of a displacement ``(a, b)`` (both ≥ 0)."""
    return a + b // 2 if a >= b else b + a // 2


def _far(u: int) -> int:
    """Distance in squares to the far edge of a square ``u`` columns (or rows) from
    an intersection (the square spans ``[u, u + 1]``)."""
    return u + 1 if u >= 0 else -u


def _wall(gmap: GameMap, cell: Cell) -> bool:
    return gmap.blocks_los[cell] and gmap.move_cost[cell] == 0


# -- line of effect ----------------------------------------------------------------
def sees(gmap: GameMap, origin: Point, cell: Cell) -> bool:
    """Whether square ``cell`` has line of effect from intersection ``origin``: some
    segment from the point to a corner of the square crosses no ``blocks_los``
    square but ``cell`` itself (:func:`engine.geometry.los.crossed_squares`; a
    square one of whose corners is the point always has it). Cached per map."""
    key = ("area_sees", origin, cell)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cast(bool, cached)
    py, px = point_rc(gmap, origin)
    r, c = divmod(cell, gmap.width)
    blocks = gmap.blocks_los
    result = False
    for cx, cy in ((c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1)):
        if (cx == px and cy == py) or not any(
            blocks[s] for s in crossed_squares(gmap, px, py, cx, cy) if s != cell
        ):
            result = True
            break
    gmap.cache[key] = result
    return result


def in_sight(gmap: GameMap, anchor: Cell, k: int, origin: Point) -> bool:
    """Whether a ``k × k`` space anchored on ``anchor`` has line of effect to the
    intersection ``origin`` (some square of it :func:`sees` the point)."""
    return any(sees(gmap, origin, s) for s in footprint(gmap, anchor, k))


def point_distance_ft(gmap: GameMap, anchor: Cell, k: int, origin: Point) -> int:
    """5-10-5 distance in feet from the nearest intersection of a ``k × k`` space
    to ``origin`` (0 on its corners, edges and inside)."""
    r0, c0 = divmod(anchor, gmap.width)
    py, px = point_rc(gmap, origin)
    dx = max(0, c0 - px, px - (c0 + k))
    dy = max(0, r0 - py, py - (r0 + k))
    return 5 * _steps(dx, dy)


def point_reason(
    gmap: GameMap, anchor: Cell, k: int, row: int, col: int, range_ft: int
) -> Reason | None:
    """``None`` when a caster in the ``k × k`` space anchored on ``anchor`` may put
    the origin of a burst, spread or square at the point ``target_pos = (row,
    col)`` names, else why not (seed « Point targeting »): ``invalid_destination``
    off the map or without line of effect, ``out_of_range`` beyond ``range_ft``.
    (Cones and lines start on the caster: their ``target_pos`` only aims them.)
    """
    if not gmap.in_bounds(row, col):
        return Reason.INVALID_DESTINATION
    origin = point(gmap, row, col)
    if point_distance_ft(gmap, anchor, k, origin) > range_ft:
        return Reason.OUT_OF_RANGE
    if not in_sight(gmap, anchor, k, origin):
        return Reason.INVALID_DESTINATION
    return None


# -- shapes -------------------------------------------------------------------------
def _disc(gmap: GameMap, px: int, py: int, radius: int) -> list[Cell]:
    """Squares whose far corner is within ``radius`` squares of ``(px, py)``, row-major."""
    h, w = gmap.height, gmap.width
    out: list[Cell] = []
    for r in range(max(0, py - radius), min(h, py + radius)):
        fy = _far(r - py)
        for c in range(max(0, px - radius), min(w, px + radius)):
            if _steps(_far(c - px), fy) <= radius:
                out.append(r * w + c)
    return out


def _flood(gmap: GameMap, origin: Point, radius: int) -> frozenset[Cell]:
    """Squares a spread of ``radius`` squares fills from ``origin``, going around
    barriers (cached): the cheapest 5-10-5 path from the intersection, entering
    first one of its four squares (1 square, as the diagonal to its far corner)
    then moving square to square, never through a ``blocks_los`` square (it is
    reached, not crossed) nor diagonally past one (movement's corner rule)."""
    key = ("area_flood", origin, radius)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cast("frozenset[Cell]", cached)
    h, w = gmap.height, gmap.width
    blocks = gmap.blocks_los
    py, px = point_rc(gmap, origin)
    best: dict[int, int] = {}
    heap: list[tuple[int, int]] = []
    if radius >= 1:
        for r in (py - 1, py):
            for c in (px - 1, px):
                if 0 <= r < h and 0 <= c < w:
                    state = (r * w + c) * 2 + 1  # one diagonal counted: parity 1
                    best[state] = 1
                    heap.append((1, state))
    heapq.heapify(heap)
    reached: set[Cell] = set()
    while heap:
        g, state = heapq.heappop(heap)
        if best.get(state, _FAR) < g:
            continue
        cell, parity = state >> 1, state & 1
        reached.add(cell)
        if blocks[cell]:
            continue
        r, c = divmod(cell, w)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                nr, nc = r + dr, c + dc
                if (dr == 0 and dc == 0) or not (0 <= nr < h and 0 <= nc < w):
                    continue
                if dr != 0 and dc != 0:
                    if blocks[r * w + nc] or blocks[nr * w + c]:
                        continue
                    cost, nparity = g + 1 + parity, parity ^ 1
                else:
                    cost, nparity = g + 1, parity
                nstate = (nr * w + nc) * 2 + nparity
                if cost <= radius and cost < best.get(nstate, _FAR):
                    best[nstate] = cost
                    heapq.heappush(heap, (cost, nstate))
    result = frozenset(reached)
    gmap.cache[key] = result
    return result


def _in_burst(gmap: GameMap, origin: Point, cell: Cell, radius: int, spread: bool) -> bool:
    """Whether a square within the burst's radius is in it (line of effect from the
    origin, or for a spread a path around barriers; never a wall)."""
    if _wall(gmap, cell):
        return False
    if sees(gmap, origin, cell):
        return True
    return spread and cell in _flood(gmap, origin, radius)


def burst_cells(
    gmap: GameMap, origin: Point, radius_ft: int, *, spread: bool = False
) -> frozenset[Cell]:
    """Squares of a burst (or ``spread``) of ``radius_ft`` centred on the
    intersection ``origin`` (cached).

    SRD « Burst, Emanation, or Spread »: a burst « can't affect creatures with
    total cover from its point of origin »; a spread « can turn corners ».

    >>> from engine.content.maps import parse_map
    >>> rows = ''.join(['  ......\\n'] * 6)
    >>> m = parse_map(f'name: t\\nterrain: |\\n{rows}legend:\\n  ".": {{type: floor}}\\n')
    >>> sorted(m.rc(c) for c in burst_cells(m, point(m, 3, 3), 5))
    [(2, 2), (2, 3), (3, 2), (3, 3)]
    >>> len(burst_cells(m, point(m, 3, 3), 10))  # a 4 × 4 block less its corners
    12
    """
    key = ("area_burst", origin, radius_ft, spread)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cast("frozenset[Cell]", cached)
    radius = radius_ft // 5
    py, px = point_rc(gmap, origin)
    result = frozenset(
        c for c in _disc(gmap, px, py, radius) if _in_burst(gmap, origin, c, radius, spread)
    )
    gmap.cache[key] = result
    return result


def _in_wedge(direction: Direction, u2: int, v2: int) -> bool:
    """Whether a square whose centre is ``(u2, v2)`` half-squares from the apex
    (columns, rows) lies in the 90° wedge of ``direction`` (edges included)."""
    dr, dc = direction
    if dr == 0:
        return (u2 > 0) == (dc > 0) and abs(v2) <= abs(u2)
    if dc == 0:
        return (v2 > 0) == (dr > 0) and abs(u2) <= abs(v2)
    return (u2 > 0) == (dc > 0) and (v2 > 0) == (dr > 0)


def cone_cells(gmap: GameMap, apex: Point, direction: Direction, length_ft: int) -> frozenset[Cell]:
    """Squares of a cone of ``length_ft`` from the intersection ``apex`` toward
    ``direction`` (cached).

    SRD « Cone »: a quarter circle that « starts from any corner of your square
    and widens out as it goes »; most cones are bursts, so a square needs line
    of effect from the apex. A diagonal cone is a quadrant of the burst of the
    same radius; a straight one is symmetric about the grid line through its
    apex.

    >>> from engine.content.maps import parse_map
    >>> rows = ''.join(['  ......\\n'] * 6)
    >>> m = parse_map(f'name: t\\nterrain: |\\n{rows}legend:\\n  ".": {{type: floor}}\\n')
    >>> sorted(m.rc(c) for c in cone_cells(m, point(m, 3, 3), (-1, 1), 10))
    [(1, 3), (2, 3), (2, 4)]

    :raises ValueError: ``direction`` is not one of :data:`DIRECTIONS`.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction de cône invalide : {direction}")
    key = ("area_cone", apex, direction, length_ft)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cast("frozenset[Cell]", cached)
    radius = length_ft // 5
    py, px = point_rc(gmap, apex)
    w = gmap.width
    out: list[Cell] = []
    for cell in _disc(gmap, px, py, radius):
        r, c = divmod(cell, w)
        if (
            _in_wedge(direction, 2 * (c - px) + 1, 2 * (r - py) + 1)
            and not _wall(gmap, cell)
            and sees(gmap, apex, cell)
        ):
            out.append(cell)
    result = frozenset(out)
    gmap.cache[key] = result
    return result


def line_cells(gmap: GameMap, start: Point, aim: Cell, length_ft: int) -> tuple[Cell, ...]:
    """Squares of a line of ``length_ft`` from the intersection ``start`` toward the
    centre of square ``aim`` and beyond, in order (cached).

    SRD « Line »: it « extends to the limit of its range or until it strikes a
    barrier that blocks line of effect » and « affects all creatures in squares
    through which the line passes »: the squares whose interior the segment
    crosses (:func:`engine.geometry.los.crossed_squares`), while their far corner
    is within the length; the first ``blocks_los`` square ends it (kept when a
    creature may stand there, a curtain; dropped when it is a wall). Aimed at a
    square's centre from an intersection, the segment never runs along a grid
    line.

    >>> from engine.content.maps import parse_map
    >>> rows = ''.join(['  ........\\n'] * 3)
    >>> m = parse_map(f'name: t\\nterrain: |\\n{rows}legend:\\n  ".": {{type: floor}}\\n')
    >>> [m.rc(c) for c in line_cells(m, point(m, 1, 1), m.cell(1, 7), 20)]
    [(1, 1), (1, 2), (1, 3), (1, 4)]
    """
    key = ("area_line", start, aim, length_ft)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cast("tuple[Cell, ...]", cached)
    radius = length_ft // 5
    w = gmap.width
    oy, ox = point_rc(gmap, start)
    ar, ac = divmod(aim, w)
    # the segment from the point through the aimed centre C ends on 2C − O + …: an
    # intersection again; m copies of (2C − 2O) reach past the line's length
    dx, dy = 2 * ac + 1 - 2 * ox, 2 * ar + 1 - 2 * oy
    m = max(1, -(-(radius + 1) // max(abs(dx), abs(dy))))
    out: list[Cell] = []
    for cell in crossed_squares(gmap, ox, oy, ox + m * dx, oy + m * dy):
        r, c = divmod(cell, w)
        if _steps(_far(c - ox), _far(r - oy)) > radius:
            break
        if gmap.blocks_los[cell]:
            if gmap.move_cost[cell] > 0:
                out.append(cell)
            break
        out.append(cell)
    result = tuple(out)
    gmap.cache[key] = result
    return result


def square_cells(gmap: GameMap, origin: Point, side_ft: int) -> frozenset[Cell]:
    """Squares of a square area ``side_ft`` wide (Grease's « 10-ft. square »): the
    ``n × n`` block centred on ``origin`` (for an odd ``n``, centred on the square
    whose top-left corner it is), with line of effect from it, on the map
    (cached)."""
    key = ("area_square", origin, side_ft)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cast("frozenset[Cell]", cached)
    n = max(1, side_ft // 5)
    py, px = point_rc(gmap, origin)
    h, w = gmap.height, gmap.width
    r0, c0 = py - n // 2, px - n // 2
    result = frozenset(
        r * w + c
        for r in range(max(0, r0), min(h, r0 + n))
        for c in range(max(0, c0), min(w, c0 + n))
        if not _wall(gmap, r * w + c) and sees(gmap, origin, r * w + c)
    )
    gmap.cache[key] = result
    return result


# -- aiming from the caster ---------------------------------------------------------
def _inside(gmap: GameMap, anchor: Cell, k: int, cell: Cell) -> bool:
    r0, c0 = divmod(anchor, gmap.width)
    r, c = divmod(cell, gmap.width)
    return r0 <= r < r0 + k and c0 <= c < c0 + k


def cone_toward(gmap: GameMap, anchor: Cell, k: int, aim: Cell) -> tuple[Point, Direction] | None:
    """The apex and direction of a cone that a caster in the ``k × k`` space
    anchored on ``anchor`` aims at square ``aim`` (``None`` for a square of its own
    space).

    The direction is the one of the eight nearest to the line from the centre of
    the caster's space to the centre of ``aim`` (exact: orthogonal when the
    angle to the axis is under 22.5°, i.e. ``(a + b)² < 2b²`` with ``b`` the larger
    component); the apex is the corner of the space in a diagonal direction, and
    for a straight one the corner of that side nearer to the aimed centre (the
    west or north one on a tie).
    """
    if _inside(gmap, anchor, k, aim):
        return None
    w = gmap.width
    r0, c0 = divmod(anchor, w)
    ar, ac = divmod(aim, w)
    tx, ty = 2 * ac + 1, 2 * ar + 1
    dx, dy = tx - (2 * c0 + k), ty - (2 * r0 + k)
    a, b = abs(dx), abs(dy)
    sx = (dx > 0) - (dx < 0)
    sy = (dy > 0) - (dy < 0)
    west, east, north, south = c0, c0 + k, r0, r0 + k
    if b > a and (a + b) * (a + b) < 2 * b * b:
        y = north if sy < 0 else south
        x = west if abs(2 * west - tx) <= abs(2 * east - tx) else east
        return point(gmap, y, x), (sy, 0)
    if a > b and (a + b) * (a + b) < 2 * a * a:
        x = west if sx < 0 else east
        y = north if abs(2 * north - ty) <= abs(2 * south - ty) else south
        return point(gmap, y, x), (0, sx)
    return point(gmap, south if sy > 0 else north, east if sx > 0 else west), (sy, sx)


def line_start(gmap: GameMap, anchor: Cell, k: int, aim: Cell) -> Point | None:
    """The corner of a ``k × k`` space from which its line toward square ``aim``
    starts: the corner nearest to the aimed centre (ties: north-west, north-east,
    south-west, south-east), so that the line leaves the space at once; ``None``
    for a square of its own space."""
    if _inside(gmap, anchor, k, aim):
        return None
    w = gmap.width
    r0, c0 = divmod(anchor, w)
    ar, ac = divmod(aim, w)
    tx, ty = 2 * ac + 1, 2 * ar + 1
    best: tuple[int, int, int] | None = None
    for y, x in ((r0, c0), (r0, c0 + k), (r0 + k, c0), (r0 + k, c0 + k)):
        d = (2 * x - tx) ** 2 + (2 * y - ty) ** 2
        if best is None or d < best[0]:
            best = (d, y, x)
    assert best is not None
    return point(gmap, best[1], best[2])


def area_of(
    gmap: GameMap,
    shape: Shape,
    size_ft: int,
    anchor: Cell,
    k: int,
    aim: Cell | None,
    *,
    centred_on_caster: bool = False,
) -> frozenset[Cell]:
    """Squares of an area of ``shape`` and ``size_ft`` (radius, length or side) cast
    from the ``k × k`` space anchored on ``anchor`` at square ``aim`` (a
    ``target_pos``, or the :func:`centre_square` of a target creature): the one
    entry point of the casting rules and of :func:`area_placements`.

    A burst, spread or square is centred on :func:`aim_point` of ``aim``, or on
    the caster (:func:`creature_point`) with ``centred_on_caster`` (Bless, Bane:
    « centered on you »); a cone (:func:`cone_toward`) or line
    (:func:`line_start`) starts on the caster and never holds a square of its
    space (aimed at its own space, it is empty). Range and line of effect to the
    point are :func:`point_reason`'s.

    :raises ValueError: no ``aim`` for an area that needs one.
    """
    if shape in ("burst", "spread", "square"):
        if centred_on_caster:
            origin = creature_point(gmap, anchor, k)
        elif aim is None:
            raise ValueError(f"zone {shape} sans point visé")
        else:
            origin = aim_point(gmap, aim)
        if shape == "square":
            return square_cells(gmap, origin, size_ft)
        return burst_cells(gmap, origin, size_ft, spread=shape == "spread")
    if aim is None:
        raise ValueError(f"zone {shape} sans point visé")
    own = footprint(gmap, anchor, k)
    if shape == "cone":
        placed = cone_toward(gmap, anchor, k, aim)
        if placed is None:
            return frozenset()
        cells: Iterable[Cell] = cone_cells(gmap, placed[0], placed[1], size_ft)
    else:
        start = line_start(gmap, anchor, k, aim)
        if start is None:
            return frozenset()
        cells = line_cells(gmap, start, aim, size_ft)
    return frozenset(c for c in cells if c not in own)


# -- creatures ------------------------------------------------------------------------
def caught(gmap: GameMap, cells: frozenset[Cell], creature: Placed) -> bool:
    """Whether some square of ``creature``'s space is in ``cells``."""
    if creature.space == 1:
        return creature.cell in cells
    return any(c in cells for c in footprint(gmap, creature.cell, creature.space))


def creatures_in_area(gmap: GameMap, cells: frozenset[Cell], creatures: Iterable[P]) -> list[P]:
    """The creatures with some square of their space in ``cells``, in the order of
    ``creatures`` (a situation's ``combatants``: the encounter's order, the same in
    a :class:`~engine.state.fight.FightState` and its Observation), dead ones
    included: the caller picks whom the effect concerns."""
    return [c for c in creatures if caught(gmap, cells, c)]


@dataclass(frozen=True, slots=True)
class Placement:
    """One way to lay an area, as :func:`area_placements` offers it."""

    #: the square a ``cast_spell`` names as ``target_pos`` to lay it (:func:`area_of`)
    target_pos: Cell
    cells: frozenset[Cell]
    #: the active creatures of other sides it catches, in the creatures' order
    enemies: tuple[str, ...]
    #: the creatures of the caster's side it catches, the caster included (dying
    #: and unconscious ones too: hurting them matters), dead ones excepted
    allies: tuple[str, ...]


def _burst_offsets(radius: int) -> list[tuple[int, int]]:
    """``(u, v)``: a square ``u`` columns and ``v`` rows from a point is within a
    burst of ``radius`` squares, nearest first (then by row, column)."""
    out = [
        (u, v)
        for v in range(-radius, radius)
        for u in range(-radius, radius)
        if _steps(_far(u), _far(v)) <= radius
    ]
    out.sort(key=lambda uv: (_steps(_far(uv[0]), _far(uv[1])), uv[1], uv[0]))
    return out


def _cone_aims(gmap: GameMap, anchor: Cell, k: int) -> dict[tuple[Point, Direction], Cell]:
    """For each cone placement a caster's space allows (up to 12: four diagonal,
    two straight per side), one square of the map that aims it there
    (:func:`cone_toward`): the nearest to the space's centre, then row-major.
    Cached per (anchor, size)."""
    key = ("area_cone_aims", anchor, k)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cast("dict[tuple[Point, Direction], Cell]", cached)
    h, w = gmap.height, gmap.width
    r0, c0 = divmod(anchor, w)
    reach = k + 4
    candidates: list[tuple[int, Cell]] = []
    for r in range(max(0, r0 - reach), min(h, r0 + k + reach)):
        for c in range(max(0, c0 - reach), min(w, c0 + k + reach)):
            d = max(abs(2 * c + 1 - 2 * c0 - k), abs(2 * r + 1 - 2 * r0 - k))
            candidates.append((d, r * w + c))
    candidates.sort()
    aims: dict[tuple[Point, Direction], Cell] = {}
    for _, cell in candidates:
        placed = cone_toward(gmap, anchor, k, cell)
        if placed is not None and placed not in aims:
            aims[placed] = cell
    gmap.cache[key] = aims
    return aims


def _split(
    gmap: GameMap, caster: Placed, creatures: Sequence[Placed], covers: Callable[[Cell], bool]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(enemies, allies) among ``creatures`` with a square ``covers`` accepts."""
    enemies: list[str] = []
    allies: list[str] = []
    for c in creatures:
        if c.dead or not any(covers(s) for s in footprint(gmap, c.cell, c.space)):
            continue
        if c.side == caster.side:
            allies.append(c.id)
        elif c.active:
            enemies.append(c.id)
    return tuple(enemies), tuple(allies)


def _placement(
    gmap: GameMap,
    caster: Placed,
    creatures: Sequence[Placed],
    target_pos: Cell,
    cells: frozenset[Cell],
) -> Placement:
    enemies, allies = _split(gmap, caster, creatures, cells.__contains__)
    return Placement(target_pos, cells, enemies, allies)


def area_placements(
    gmap: GameMap,
    caster: Placed,
    creatures: Sequence[Placed],
    shape: Shape,
    size_ft: int,
    range_ft: int,
    *,
    centred_on_caster: bool = False,
) -> tuple[Placement, ...]:
    """The distinct ways ``caster`` may lay an area that catches at least one active
    enemy among ``creatures`` (a situation's ``combatants``): the candidates a
    policy chooses among. Most enemies first, then fewest allies, then by
    ``target_pos``; one placement per set of creatures caught.

    * burst, spread, square: the points within ``range_ft`` of the caster that it
      sees and from which the area reaches an enemy's square (the first such
      point in distance then row-major order of each set caught; points on the
      map's last row or column line, which no square names, are left out);
    * cone: the up to twelve placements of :func:`cone_toward`;
    * line: a line aimed at each square of each active enemy;
    * ``centred_on_caster``: the one area centred on the caster.

    Pure function of the map and the creatures' squares and states.
    """
    enemies = [c for c in creatures if c.active and c.side != caster.side]
    if not enemies:
        return ()
    anchor, k = caster.cell, caster.space
    found: list[Placement]
    if centred_on_caster:
        cells = area_of(gmap, shape, size_ft, anchor, k, None, centred_on_caster=True)
        found = [_placement(gmap, caster, creatures, centre_square(gmap, anchor, k), cells)]
    elif shape == "cone":
        found = [
            _placement(gmap, caster, creatures, aim, area_of(gmap, shape, size_ft, anchor, k, aim))
            for aim in _cone_aims(gmap, anchor, k).values()
        ]
    elif shape == "line":
        found = []
        for enemy in enemies:
            for aim in footprint(gmap, enemy.cell, enemy.space):
                cells = area_of(gmap, shape, size_ft, anchor, k, aim)
                found.append(_placement(gmap, caster, creatures, aim, cells))
    else:
        found = _point_placements(gmap, caster, creatures, enemies, shape, size_ft, range_ft)
    best: dict[tuple[tuple[str, ...], tuple[str, ...]], Placement] = {}
    for p in found:
        if p.enemies and (p.enemies, p.allies) not in best:
            best[p.enemies, p.allies] = p
    return tuple(
        sorted(best.values(), key=lambda p: (-len(p.enemies), len(p.allies), p.target_pos))
    )


def _covers(gmap: GameMap, shape: Shape, size_ft: int, origin: Point, cell: Cell) -> bool:
    """Whether ``cell`` is in the burst, spread or square of ``size_ft`` at
    ``origin`` (what :func:`area_of` would hold, for one square)."""
    py, px = point_rc(gmap, origin)
    r, c = divmod(cell, gmap.width)
    if shape == "square":
        n = max(1, size_ft // 5)
        lo = n // 2
        if not (py - lo <= r < py - lo + n and px - lo <= c < px - lo + n):
            return False
        return not _wall(gmap, cell) and sees(gmap, origin, cell)
    radius = size_ft // 5
    if _steps(_far(c - px), _far(r - py)) > radius:
        return False
    return _in_burst(gmap, origin, cell, radius, shape == "spread")


def _point_placements(
    gmap: GameMap,
    caster: Placed,
    creatures: Sequence[Placed],
    enemies: Sequence[Placed],
    shape: Shape,
    size_ft: int,
    range_ft: int,
) -> list[Placement]:
    """Bursts, spreads and squares: every point from which the area could reach an
    enemy's square, grouped by the creatures it catches (tested square by square,
    without building each area); per group, the first point (distance to the
    caster, then row-major) in range and in sight."""
    h, w = gmap.height, gmap.width
    anchor, k = caster.cell, caster.space
    if shape == "square":
        n = max(1, size_ft // 5)
        lo = n // 2
        offsets = [(u, v) for v in range(-lo, n - lo) for u in range(-lo, n - lo)]
    else:
        offsets = _burst_offsets(size_ft // 5)
    points: set[Point] = set()
    for enemy in enemies:
        for cell in footprint(gmap, enemy.cell, enemy.space):
            r, c = divmod(cell, w)
            for u, v in offsets:
                py, px = r - v, c - u
                if 0 <= py < h and 0 <= px < w:  # a square's top-left corner: nameable
                    points.add(py * (w + 1) + px)
    ordered = sorted((point_distance_ft(gmap, anchor, k, p), p) for p in points)
    found: dict[tuple[tuple[str, ...], tuple[str, ...]], Placement] = {}
    for dist, p in ordered:
        if dist > range_ft:
            break
        group = _split(gmap, caster, creatures, partial(_covers, gmap, shape, size_ft, p))
        if group in found or not group[0] or not in_sight(gmap, anchor, k, p):
            continue
        py, px = point_rc(gmap, p)
        aim = py * w + px
        found[group] = Placement(aim, area_of(gmap, shape, size_ft, anchor, k, aim), *group)
    return list(found.values())
