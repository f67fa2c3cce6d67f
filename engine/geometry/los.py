"""Line of effect and cover by the corner rule (SRD « Cover », « Line of Effect »).

Lines run from corners of the attacker's square to corners of the target's
square. A line is affected by a square only when it passes through that
square's *interior*: grazing a corner or running along an edge does not count
(the map has no thin walls), except along an edge between two cover squares
(or a cover square and the map's edge), which is inside a solid mass.

* **Line of effect** exists when at least one line crosses no ``blocks_los``
  square.
* **Ranged cover** (and melee at reach): the attacker chooses the corner of its
  square that gives the target the least cover; from that corner the target's
  cover is the highest level among the four lines. A corner all of whose lines
  are blocked sees nothing. Terrain cover comes from the crossed squares
  (``cover_bonus`` 2/4/8; ``cover: true`` or a ``blocks_los`` square partially
  in the way: +4). Soft cover: an active creature in a crossed square gives +4
  against ranged attacks only.
* **Adjacent melee**: any of the sixteen lines crossing a cover square gives the
  target that cover; the attacker does not choose a corner and creatures never
  give cover.

Per pair of squares the terrain part is computed once and cached on the map.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection
from dataclasses import dataclass
from typing import cast

from engine.content.maps import Cell, GameMap

#: value of a line that crosses a ``blocks_los`` square, for corner selection
BLOCKED = 1000
SOFT_COVER = 4


@dataclass(frozen=True, slots=True)
class PairGeometry:
    """Terrain facts for (attacker square, target square), cached per map."""

    #: at least one line free of ``blocks_los`` squares
    line_of_effect: bool
    #: per attacker corner, per line: (terrain value or BLOCKED, crossed squares)
    corners: tuple[tuple[tuple[int, tuple[Cell, ...]], ...], ...]
    #: ranged/reach terrain cover (attacker's best corner), 0 when no LoE
    ranged_cover: int
    #: adjacent-melee terrain cover (any of the 16 lines)
    melee_cover: int
    #: every square crossed by some line (soft-cover fast path)
    crossed: frozenset[Cell]


def _crossed(gmap: GameMap, x0: int, y0: int, x1: int, y1: int) -> list[Cell]:
    """Squares whose interior the segment (x0,y0)→(x1,y1) passes through.

    Exact integer arithmetic: the parameter t ∈ [0, 1] is scaled by
    ``L = |dx|·|dy|`` so that every grid-line crossing is an integer; the square
    containing the midpoint of each piece between crossings is crossed.
    """
    dx, dy = x1 - x0, y1 - y0
    if dx == 0 or dy == 0:
        return _along_edge(gmap, x0, y0, x1, y1)
    adx, ady = abs(dx), abs(dy)
    scale = adx * ady
    ts = {0, scale}
    for k in range(1, adx):
        ts.add(k * ady)
    for k in range(1, ady):
        ts.add(k * adx)
    ordered = sorted(ts)
    two_l = 2 * scale
    h, w = gmap.height, gmap.width
    out: list[Cell] = []
    for t0, t1 in itertools.pairwise(ordered):
        tm = t0 + t1  # midpoint, scaled by 2L
        col = (two_l * x0 + dx * tm) // two_l
        row = (two_l * y0 + dy * tm) // two_l
        if 0 <= row < h and 0 <= col < w:
            out.append(row * w + col)
    return out


def crossed_squares(gmap: GameMap, x0: int, y0: int, x1: int, y1: int) -> list[Cell]:
    """Squares whose interior the segment between the grid intersections ``(x0, y0)``
    and ``(x1, y1)`` (``x`` a column line, ``y`` a row line) crosses, in order from
    the first end, by this module's rules (an edge inside a solid mass crosses its
    squares); squares beyond the map's edge are left out. The spell areas
    (:mod:`engine.geometry.areas`) trace their lines of effect with it.

    >>> from engine.content.maps import parse_map
    >>> m = parse_map('name: t\\nterrain: |\\n  ...\\n  ...\\nlegend:\\n  ".": {type: floor}\\n')
    >>> crossed_squares(m, 0, 0, 3, 2)  # (row, col) (0, 0), (0, 1), (1, 1), (1, 2)
    [0, 1, 4, 5]
    """
    return _crossed(gmap, x0, y0, x1, y1)


def _along_edge(gmap: GameMap, x0: int, y0: int, x1: int, y1: int) -> list[Cell]:
    """A segment running along grid lines touches no interior; it is still inside
    a solid mass when the squares on *both* sides of an edge give cover (two
    walls side by side, or a wall against the map's edge), and then it crosses
    them."""
    out: list[Cell] = []
    h, w = gmap.height, gmap.width

    def solid(r: int, col: int) -> bool | None:
        if not (0 <= r < h and 0 <= col < w):
            return None  # outside the map: solid, but not a square
        return gmap.cover[r * w + col] > 0

    if x0 == x1:
        sides = [((y, x0 - 1), (y, x0)) for y in range(min(y0, y1), max(y0, y1))]
    else:
        sides = [((y0 - 1, x), (y0, x)) for x in range(min(x0, x1), max(x0, x1))]
    for (ra, ca), (rb, cb) in sides:
        sa, sb = solid(ra, ca), solid(rb, cb)
        if sa is False or sb is False or (sa is None and sb is None):
            continue
        if sa:
            out.append(ra * w + ca)
        if sb:
            out.append(rb * w + cb)
    return out


def _corners(gmap: GameMap, cell: Cell) -> tuple[tuple[int, int], ...]:
    r, c = divmod(cell, gmap.width)
    return ((c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1))


def pair_geometry(gmap: GameMap, a: Cell, b: Cell) -> PairGeometry:
    """Line of effect and terrain cover between two squares (cached)."""
    key = ("pair", a, b)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cached  # type: ignore[return-value]
    corners: list[tuple[tuple[int, tuple[Cell, ...]], ...]] = []
    any_clear = False
    melee = 0
    crossed_all: set[Cell] = set()
    for ax, ay in _corners(gmap, a):
        lines: list[tuple[int, tuple[Cell, ...]]] = []
        for bx, by in _corners(gmap, b):
            cells = tuple(c for c in _crossed(gmap, ax, ay, bx, by) if c not in (a, b))
            crossed_all.update(cells)
            value = 0
            blocked = False
            for c in cells:
                value = max(value, gmap.cover[c])
                if gmap.blocks_los[c]:
                    blocked = True
            if not blocked:
                any_clear = True
            melee = max(melee, value)
            lines.append((BLOCKED if blocked else value, cells))
        corners.append(tuple(lines))
    ranged = 0
    if any_clear:
        ranged = min(_corner_value(lines) for lines in corners)
        if ranged >= BLOCKED:  # every corner has a blocked line: partial cover
            ranged = min(
                max(v if v < BLOCKED else 4 for v, _ in lines)
                for lines in corners
                if any(v < BLOCKED for v, _ in lines)
            )
    geo = PairGeometry(any_clear, tuple(corners), ranged, melee, frozenset(crossed_all))
    gmap.cache[key] = geo
    return geo


def _corner_value(lines: tuple[tuple[int, tuple[Cell, ...]], ...]) -> int:
    if all(v >= BLOCKED for v, _ in lines):
        return BLOCKED * 2  # sees nothing from this corner
    return max(lines, key=lambda item: item[0])[0]


def has_line_of_effect(gmap: GameMap, a: Cell, b: Cell) -> bool:
    """Whether a clear line exists between two squares."""
    if a == b:
        return True
    return pair_geometry(gmap, a, b).line_of_effect


def adjacent(gmap: GameMap, a: Cell, b: Cell) -> bool:
    w = gmap.width
    return a != b and abs(a // w - b // w) <= 1 and abs(a % w - b % w) <= 1


def cover_bonus(
    gmap: GameMap,
    a: Cell,
    b: Cell,
    *,
    melee: bool,
    creatures: Collection[Cell] = (),
) -> int:
    """AC bonus from cover for an attack from ``a`` against ``b``.

    ``creatures`` holds the squares of active creatures other than attacker and
    target; they give soft cover to ranged attacks only.
    """
    if a == b:
        return 0
    geo = pair_geometry(gmap, a, b)
    if not geo.line_of_effect:
        return 0
    if melee and adjacent(gmap, a, b):
        return geo.melee_cover
    if melee:
        return geo.ranged_cover
    crossed = geo.crossed.intersection(creatures) if creatures else None
    if not crossed:
        return geo.ranged_cover
    blockers = tuple(sorted(crossed))
    key = ("soft", a, b, blockers)
    cached = gmap.cache.get(key)
    if cached is None:
        cached = _soft_cover(geo, set(blockers))
        gmap.cache[key] = cached
    return cast(int, cached)


def _soft_cover(geo: PairGeometry, creatures: set[Cell]) -> int:
    best = BLOCKED * 2
    for lines in geo.corners:
        if all(v >= BLOCKED for v, _ in lines):
            continue
        worst = 0
        for value, cells in lines:
            v = 4 if value >= BLOCKED else value
            if any(c in creatures for c in cells):
                v = max(v, SOFT_COVER)
            worst = max(worst, v)
        best = min(best, worst)
    return 0 if best >= BLOCKED else best


def _crosses_border(
    p: tuple[int, int], q: tuple[int, int], axis: int, at: int, lo: int, hi: int
) -> bool:
    """Whether segment ``p``→``q`` meets the border ``coord[axis] == at`` between
    ``lo`` and ``hi`` (inclusive) on the other axis. Exact integer arithmetic."""
    den = q[axis] - p[axis]
    num = at - p[axis]
    if den == 0:
        # parallel to the border: one-square centres are odd and borders even, so
        # never along it; an even-sized space's centre may lie on the border's
        # line, and running along a border is not passing through it
        return False
    if den < 0:
        den, num = -den, -num
    if not 0 <= num <= den:
        return False
    other = 1 - axis
    scaled = p[other] * den + num * (q[other] - p[other])
    return lo * den <= scaled <= hi * den


def flanks(
    gmap: GameMap,
    attacker: Cell,
    ally: Cell,
    target: Cell,
    sizes: tuple[int, int, int] = (1, 1, 1),
) -> bool:
    """SRD « Flanking »: the line between the centres of ``attacker``'s and
    ``ally``'s spaces passes through opposite borders of ``target``'s space
    (corners count as part of both borders they join). ``sizes``: squares per
    side of the three spaces (anchored on their top-left square). Cached per map.

    >>> from engine.content.maps import parse_map
    >>> text = 'name: t\\nterrain: |\\n  ...\\n  ...\\n  ...\\n'
    >>> m = parse_map(text + 'legend:\\n  ".": {type: floor}\\n')
    >>> flanks(m, m.cell(0, 1), m.cell(2, 1), m.cell(1, 1))  # north and south
    True
    >>> flanks(m, m.cell(0, 0), m.cell(2, 2), m.cell(1, 1))  # opposite corners
    True
    >>> flanks(m, m.cell(0, 1), m.cell(1, 2), m.cell(1, 1))  # north and east
    False
    """
    key = (
        ("flanks", attacker, ally, target)
        if sizes == (1, 1, 1)
        else (
            "flanks",
            attacker,
            ally,
            target,
            sizes,
        )
    )
    cached = gmap.cache.get(key)
    if cached is None:
        w = gmap.width
        ka, kl, kt = sizes
        # doubled coordinates: a square (r, c) spans [2r, 2r + 2]; a k-square space
        # anchored there spans [2r, 2r + 2k] and its centre is 2r + k
        p = (2 * (attacker // w) + ka, 2 * (attacker % w) + ka)
        q = (2 * (ally // w) + kl, 2 * (ally % w) + kl)
        tr, tc = 2 * (target // w), 2 * (target % w)
        span = 2 * kt
        north = _crosses_border(p, q, 0, tr, tc, tc + span)
        south = _crosses_border(p, q, 0, tr + span, tc, tc + span)
        west = _crosses_border(p, q, 1, tc, tr, tr + span)
        east = _crosses_border(p, q, 1, tc + span, tr, tr + span)
        cached = (north and south) or (west and east)
        gmap.cache[key] = cached
    return cast(bool, cached)
