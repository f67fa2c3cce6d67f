"""Creature space: footprints of several squares (SRD « Big and Little Creatures in Combat »).

A creature fills a square of ``k × k`` squares whose top-left square is its
*anchor* (``pos``): Fine to Medium 1, Large 2, Huge 3, Gargantuan 4, Colossal 6
(Table 8-4 gives 15 ft for Huge and 20 ft for Gargantuan, 30 ft for Colossal).
Tiny and smaller creatures fill one square here and never share it (the SRD's
2½-foot spaces and sharing a square are not modelled; see ``docs/rules.md``).

Every geometric rule between two creatures is the rule between their best
pair of squares:

* **distance** is the shortest 5-10-5 distance between a square of each
  (:func:`body_distance_squares`), so reach and range are measured from the
  nearest squares;
* **line of effect** exists when some pair of squares has it;
* **cover**: the attacker picks the pair of squares (one of its own, one of the
  target's) that gives the target the least cover (SRD « Big Creatures and
  Cover »);
* **movement**: the anchor moves on a *sized map* where a square is passable
  only if the whole footprint placed there fits on passable squares, costs the
  dearest of them and stands as high as the highest. A creature therefore
  cannot enter a corridor narrower than itself (squeezing is not modelled).

With every footprint of one square these functions reduce to the one-square
ones exactly, and the engine calls the one-square ones directly then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import cast

from engine.content.maps import Cell, GameMap

#: squares per side of a creature's space, by size (SRD Table 8-4)
SPACE_SQUARES = {
    "Fine": 1,
    "Diminutive": 1,
    "Tiny": 1,
    "Small": 1,
    "Medium": 1,
    "Large": 2,
    "Huge": 3,
    "Gargantuan": 4,
    "Colossal": 6,
}


#: sizes that may share a square with a creature of another size class (SRD
#: « Tiny, Diminutive, and Fine Creatures »)
VERY_SMALL = frozenset({"Fine", "Diminutive", "Tiny"})


def may_share(a_small: bool, b_small: bool) -> bool:
    """Whether two creatures may stand in the same square: exactly one of them is
    Tiny or smaller (decision: two very small creatures never share)."""
    return a_small != b_small


def space_of(size: str) -> int:
    """Squares per side of the space of a creature of ``size`` (1 if unknown)."""
    return SPACE_SQUARES.get(size, 1)


def fits(gmap: GameMap, anchor: Cell, k: int) -> bool:
    """Whether a ``k × k`` footprint anchored on ``anchor`` lies inside the map."""
    r, c = divmod(anchor, gmap.width)
    return r + k <= gmap.height and c + k <= gmap.width


def footprint(gmap: GameMap, anchor: Cell, k: int) -> tuple[Cell, ...]:
    """The squares of a ``k × k`` space anchored on ``anchor`` (row-major order).

    Squares beyond the map's edge are left out (deployment and movement never
    put a creature there).
    """
    if k == 1:
        return (anchor,)
    w = gmap.width
    r0, c0 = divmod(anchor, w)
    return tuple(
        r * w + c for r in range(r0, min(gmap.height, r0 + k)) for c in range(c0, min(w, c0 + k))
    )


def _gap(a0: int, ka: int, b0: int, kb: int) -> int:
    """Squares between two intervals ``[a0, a0 + ka)`` and ``[b0, b0 + kb)`` on one axis
    (0 when they touch or overlap), plus one: the coordinate difference of the
    nearest pair."""
    if b0 >= a0 + ka:
        return b0 - (a0 + ka - 1)
    if a0 >= b0 + kb:
        return a0 - (b0 + kb - 1)
    return 0


def body_deltas(gmap: GameMap, a: Cell, ka: int, b: Cell, kb: int) -> tuple[int, int]:
    """Row and column differences of the nearest pair of squares of two spaces."""
    w = gmap.width
    ar, ac = divmod(a, w)
    br, bc = divmod(b, w)
    return _gap(ar, ka, br, kb), _gap(ac, ka, bc, kb)


def body_distance_squares(gmap: GameMap, a: Cell, ka: int, b: Cell, kb: int) -> int:
    """Shortest 5-10-5 distance in squares between a square of each space.

    >>> from engine.content.maps import parse_map
    >>> rows = '\\n'.join(['  ......'] * 3)
    >>> m = parse_map(f'name: t\\nterrain: |\\n{rows}\\nlegend:\\n  ".": {{type: floor}}\\n')
    >>> body_distance_squares(m, m.cell(0, 0), 2, m.cell(0, 2), 1)  # Large next to Medium
    1
    >>> body_distance_squares(m, m.cell(0, 0), 2, m.cell(2, 4), 1)  # 1 row and 3 columns apart
    3
    """
    if ka == 1 and kb == 1:
        w = gmap.width
        dr, dc = abs(a // w - b // w), abs(a % w - b % w)
    else:
        dr, dc = body_deltas(gmap, a, ka, b, kb)
    return dr + dc // 2 if dr > dc else dc + dr // 2


def body_distance_ft(gmap: GameMap, a: Cell, ka: int, b: Cell, kb: int) -> int:
    return 5 * body_distance_squares(gmap, a, ka, b, kb)


def pairs(gmap: GameMap, a: Cell, ka: int, b: Cell, kb: int) -> Iterator[tuple[Cell, Cell]]:
    """Every (square of a, square of b), nearest pairs first, then in row-major order."""
    fa, fb = footprint(gmap, a, ka), footprint(gmap, b, kb)
    w = gmap.width

    def dist(pair: tuple[Cell, Cell]) -> int:
        x, y = pair
        dr, dc = abs(x // w - y // w), abs(x % w - y % w)
        return dr + dc // 2 if dr > dc else dc + dr // 2

    yield from sorted(((x, y) for x in fa for y in fb), key=dist)


def inflate(gmap: GameMap, cells: Iterable[Cell], k: int) -> set[Cell]:
    """Anchors from which a ``k × k`` footprint would cover one of ``cells``."""
    if k == 1:
        return set(cells)
    w = gmap.width
    out: set[Cell] = set()
    for cell in cells:
        r, c = divmod(cell, w)
        for rr in range(max(0, r - k + 1), r + 1):
            for cc in range(max(0, c - k + 1), c + 1):
                out.add(rr * w + cc)
    return out


def sized_map(gmap: GameMap, k: int) -> GameMap:
    """The map as a ``k × k`` creature's anchor moves on it (cached; ``gmap`` for k = 1).

    An anchor is passable when the footprint fits on the map and every square
    of it is passable; entering it costs the dearest square's cost and its
    elevation is the highest square's. Line-of-sight tables are the original
    map's (the movement functions only read costs and elevations from it).
    """
    if k == 1:
        return gmap
    key = ("sized_map", k)
    cached = gmap.cache.get(key)
    if cached is not None:
        return cast(GameMap, cached)
    cost: list[int] = []
    elevation: list[int] = []
    for anchor in range(gmap.size):
        if not fits(gmap, anchor, k):
            cost.append(0)
            elevation.append(gmap.elevation[anchor])
            continue
        cells = footprint(gmap, anchor, k)
        costs = [gmap.move_cost[c] for c in cells]
        cost.append(0 if 0 in costs else max(costs))
        elevation.append(max(gmap.elevation[c] for c in cells))
    smap = dataclasses.replace(gmap, move_cost=tuple(cost), elevation=tuple(elevation), cache={})
    gmap.cache[key] = smap
    return smap


def top_elevation(gmap: GameMap, anchor: Cell, k: int) -> int:
    """Elevation of the highest square of a space (high ground compares these)."""
    if k == 1:
        return gmap.elevation[anchor]
    return max(gmap.elevation[c] for c in footprint(gmap, anchor, k))


def in_band(gmap: GameMap, a: Cell, ka: int, b: Cell, kb: int, reach_ft: int, dead_ft: int) -> bool:
    """Whether some pair of squares of two spaces is within ``reach_ft`` and,
    with a reach weapon's dead zone ``dead_ft``, farther than it (line of effect
    not checked; distance 0 is a shared square)."""
    w = gmap.width
    for x, y in pairs(gmap, a, ka, b, kb):
        dr, dc = abs(x // w - y // w), abs(x % w - y % w)
        dist = 5 * (dr + dc // 2 if dr > dc else dc + dr // 2)
        if dist <= reach_ft and not (dead_ft and dist <= dead_ft):
            return True
    return False
