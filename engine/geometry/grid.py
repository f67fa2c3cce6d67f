"""Grid geometry and movement cost: 5-10-5 diagonals, terrain, elevation, corner rule.

Distances (SRD « Diagonals »): the first diagonal costs 5 ft, the second 10 ft,
alternating. Between two squares that is ``max(dr, dc) + min(dr, dc) // 2``
squares.

Movement cost of one step, in squares (decision documented in docs/rules.md):

* an orthogonal step into a square of cost ``k`` costs ``k``;
* a diagonal step into a square of cost 1 costs 1 or 2 by the 5-10-5 parity of
  the path so far, and flips the parity;
* a diagonal step into difficult terrain (cost ``k`` ≥ 2) costs ``3k/2`` squares
  (SRD « Difficult Terrain »: a diagonal into difficult terrain counts as 3
  squares) and leaves the parity unchanged;
* climbing adds one square per level of elevation gained; descending is free.

Corner rule (SRD « Moving Diagonally »; stricter than RAW like the seed): a
diagonal step needs both orthogonal flank squares passable.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass

from engine.content.maps import Cell, GameMap

#: per cell: neighbours as (cell, is_diagonal), respecting passability and the corner rule
Neighbours = tuple[tuple[tuple[Cell, bool], ...], ...]


def neighbours(gmap: GameMap) -> Neighbours:
    """Passable neighbours of every cell (cached on the map)."""
    cached = gmap.cache.get("neighbours")
    if cached is not None:
        return cached  # type: ignore[return-value]
    h, w = gmap.height, gmap.width
    cost = gmap.move_cost
    table: list[tuple[tuple[Cell, bool], ...]] = []
    for cell in range(h * w):
        r, c = divmod(cell, w)
        out: list[tuple[Cell, bool]] = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == 0 and dc == 0:
                    continue
                nr, nc = r + dr, c + dc
                if not (0 <= nr < h and 0 <= nc < w):
                    continue
                n = nr * w + nc
                if cost[n] == 0:
                    continue
                diag = dr != 0 and dc != 0
                if diag and (cost[r * w + nc] == 0 or cost[nr * w + c] == 0):
                    continue
                out.append((n, diag))
        table.append(tuple(out))
    result = tuple(table)
    gmap.cache["neighbours"] = result
    return result


def distance_squares(gmap: GameMap, a: Cell, b: Cell) -> int:
    """5-10-5 distance in squares between two cells (terrain ignored)."""
    w = gmap.width
    dr = abs(a // w - b // w)
    dc = abs(a % w - b % w)
    if dr > dc:
        return dr + dc // 2
    return dc + dr // 2


def distance_ft(gmap: GameMap, a: Cell, b: Cell) -> int:
    """5-10-5 distance in feet between two cells (:func:`distance_squares` written
    again inline: one of the engine's most frequent calls)."""
    w = gmap.width
    dr = a // w - b // w
    dc = a % w - b % w
    if dr < 0:
        dr = -dr
    if dc < 0:
        dc = -dc
    return 5 * (dr + dc // 2 if dr > dc else dc + dr // 2)


def step_cost(gmap: GameMap, src: Cell, dst: Cell, diagonal: bool, parity: int) -> tuple[int, int]:
    """Cost in squares of one step and the parity after it (see module docstring)."""
    k = gmap.move_cost[dst]
    if diagonal:
        if k == 1:
            cost, parity = 1 + parity, parity ^ 1
        else:
            cost = (3 * k) // 2
    else:
        cost = k
    climb = gmap.elevation[dst] - gmap.elevation[src]
    if climb > 0:
        cost += climb
    return cost, parity


@dataclass(frozen=True, slots=True)
class Path:
    """A walked path: the cells entered (start excluded) and the cumulative cost after each."""

    cells: tuple[Cell, ...]
    costs: tuple[int, ...]
    end_parity: int

    @property
    def cost(self) -> int:
        return self.costs[-1] if self.costs else 0


def _zero(_cell: Cell) -> int:
    return 0


def find_path(
    gmap: GameMap,
    start: Cell,
    goals: Container[Cell],
    *,
    blocked: Container[Cell] = (),
    parity: int = 0,
    heuristic: Callable[[Cell], int] | None = None,
) -> Path | None:
    """Cheapest path from ``start`` to any cell of ``goals`` (A* when ``heuristic`` is given).

    ``blocked`` cells can never be entered (walls are excluded already). Ties are
    broken deterministically by cost, then cell index.
    """
    if start in goals:
        return Path((), (), parity)
    nbrs = neighbours(gmap)
    h = heuristic or _zero
    start_key = start * 2 + parity
    best: dict[int, int] = {start_key: 0}
    came: dict[int, int] = {}
    heap: list[tuple[int, int, int]] = [(h(start), 0, start_key)]
    while heap:
        _f, g, key = heapq.heappop(heap)
        if best.get(key, 1 << 30) < g:
            continue
        cell, par = key >> 1, key & 1
        if cell in goals and key != start_key:
            return _rebuild(gmap, came, key, start_key)
        for n, diag in nbrs[cell]:
            if n in blocked:
                continue
            cost, npar = step_cost(gmap, cell, n, diag, par)
            ng = g + cost
            nkey = n * 2 + npar
            if ng < best.get(nkey, 1 << 30):
                best[nkey] = ng
                came[nkey] = key
                heapq.heappush(heap, (ng + h(n), ng, nkey))
    return None


def _rebuild(gmap: GameMap, came: dict[int, int], key: int, start_key: int) -> Path:
    keys = [key]
    while keys[-1] != start_key:
        keys.append(came[keys[-1]])
    keys.reverse()
    cells: list[Cell] = []
    costs: list[int] = []
    total = 0
    nb = neighbours(gmap)
    for prev, cur in itertools.pairwise(keys):
        pc, pp = prev >> 1, prev & 1
        cc = cur >> 1
        diag = next(d for n, d in nb[pc] if n == cc)
        cost, _ = step_cost(gmap, pc, cc, diag, pp)
        total += cost
        cells.append(cc)
        costs.append(total)
    return Path(tuple(cells), tuple(costs), keys[-1] & 1)


def _dijkstra(
    gmap: GameMap, sources: Iterable[Cell], blocked: Container[Cell], limit: int
) -> dict[Cell, int]:
    """Cheapest cost in squares from the nearest source to every reachable square."""
    nbrs = neighbours(gmap)
    best: dict[int, int] = {}
    heap: list[tuple[int, int]] = []
    for s in sources:
        best[s * 2] = 0
        heap.append((0, s * 2))
    heapq.heapify(heap)
    while heap:
        g, key = heapq.heappop(heap)
        if best.get(key, 1 << 30) < g:
            continue
        cell, par = key >> 1, key & 1
        for n, diag in nbrs[cell]:
            if n in blocked:
                continue
            cost, npar = step_cost(gmap, cell, n, diag, par)
            ng = g + cost
            nkey = n * 2 + npar
            if ng <= limit and ng < best.get(nkey, 1 << 30):
                best[nkey] = ng
                heapq.heappush(heap, (ng, nkey))
    out: dict[Cell, int] = {}
    for key, g in best.items():
        cell = key >> 1
        if g < out.get(cell, 1 << 30):
            out[cell] = g
    return out


def reachable(
    gmap: GameMap,
    start: Cell,
    *,
    blocked: Container[Cell] = (),
    budget: int | None = None,
) -> dict[Cell, int]:
    """Dijkstra from ``start``: the cheapest cost in squares of every square
    reachable without entering ``blocked``, within ``budget`` squares if given."""
    return _dijkstra(gmap, (start,), blocked, (1 << 30) if budget is None else budget)


def cost_field(gmap: GameMap, sources: Iterable[Cell]) -> list[int]:
    """Movement cost in squares from the nearest source to every cell (-1: unreachable).

    Walls are impassable; creatures are ignored. Parity starts fresh at each source.
    """
    costs = _dijkstra(gmap, sources, (), 1 << 30)
    return [costs.get(cell, -1) for cell in range(gmap.size)]


def bresenham(gmap: GameMap, a: Cell, b: Cell) -> list[Cell]:
    """Cells of the straight line from ``a`` to ``b`` (both included), centre to centre."""
    w = gmap.width
    r0, c0 = divmod(a, w)
    r1, c1 = divmod(b, w)
    dr, dc = abs(r1 - r0), abs(c1 - c0)
    sr = 1 if r1 > r0 else -1
    sc = 1 if c1 > c0 else -1
    err = dc - dr
    out = [a]
    r, c = r0, c0
    while (r, c) != (r1, c1):
        e2 = 2 * err
        if e2 > -dr:
            err -= dr
            c += sc
        if e2 < dc:
            err += dc
            r += sr
        out.append(r * w + c)
    return out
