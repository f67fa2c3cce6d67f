"""Movement actions: move, 5-foot step, charge, withdraw (SRD « Movement », « Charge »).

All functions are pure: they take the map, cells and the squares occupied by
other creatures, and return paths. The engine walks the paths; the Observation
reports what they would allow.

* **Move toward a target**: the cheapest real path (Dijkstra/A*, 5-10-5, terrain,
  elevation, corner rule) to a free square from which the mover's melee reach
  covers the target, walked up to the speed budget. Allies' squares can be
  crossed but never ended on (the walk backs up to the last free square);
  active enemies block. When no such square can be reached at all, the mover
  heads for the reachable free square closest to the target.
* **Move to a destination**: the square must be passable, free and reachable
  within the budget, else ``unreachable_destination``.
* **5-foot step**: one adjacent free square, corner rule, not into difficult
  terrain nor up a level (movement hampered), never for speed ≤ 5 ft.
* **Charge**: see :func:`charge_path`.
* **Withdraw**: up to 2× speed, each step to the free neighbour farthest (by
  movement cost) from the nearest active enemy, while it gets strictly farther.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Container
from dataclasses import dataclass
from typing import cast

from engine.content.actions import Reason
from engine.content.creatures import AttackProfile
from engine.content.maps import Cell, GameMap
from engine.content.space import (
    body_deltas,
    body_distance_squares,
    footprint,
    inflate,
    pairs,
    sized_map,
)
from engine.geometry.grid import (
    Path,
    bresenham,
    cost_field,
    distance_ft,
    distance_squares,
    find_path,
    neighbours,
    reachable,
    step_cost,
)
from engine.geometry.los import has_line_of_effect
from engine.geometry.reach import attack_reason, body_line_of_effect, melee_band


def attack_squares(
    gmap: GameMap, target: Cell, reach_ft: int, dead_zone_ft: int = 0, k: int = 1, kt: int = 1
) -> list[Cell]:
    """Passable squares within ``reach_ft`` of ``target`` (beyond a reach weapon's
    ``dead_zone_ft``) with line of effect to it (cached).

    With spaces of several squares (``k`` for the mover, ``kt`` for the target):
    the anchors where the mover's whole space fits, clear of the target's, from
    which some pair of squares is in that band with line of effect.
    """
    key = ("attack_squares", target, reach_ft, dead_zone_ft)
    if k != 1 or kt != 1:
        key = (*key, k, kt)
    cached = cast("list[Cell] | None", gmap.cache.get(key))
    if cached is not None:
        return cached
    if reach_ft == 0:  # a Tiny creature strikes only into the square it shares
        out = [c for c in footprint(gmap, target, kt) if gmap.move_cost[c] > 0]
    elif k == 1 and kt == 1:
        out = _attack_squares(gmap, target, reach_ft, dead_zone_ft)
    else:
        out = _body_attack_squares(gmap, target, reach_ft, dead_zone_ft, k, kt)
    gmap.cache[key] = out
    return out


def _body_attack_squares(
    gmap: GameMap, target: Cell, reach_ft: int, dead_zone_ft: int, k: int, kt: int
) -> list[Cell]:
    span = max(1, reach_ft // 5)
    pm = sized_map(gmap, k)
    w = gmap.width
    tr, tc = divmod(target, w)
    out: list[Cell] = []
    for r in range(max(0, tr - span - k + 1), min(gmap.height, tr + kt + span)):
        for c in range(max(0, tc - span - k + 1), min(w, tc + kt + span)):
            anchor = r * w + c
            if pm.move_cost[anchor] == 0 or body_deltas(gmap, anchor, k, target, kt) == (0, 0):
                continue
            for a, b in pairs(gmap, anchor, k, target, kt):
                dist = distance_ft(gmap, a, b)
                if dead_zone_ft < dist <= reach_ft and has_line_of_effect(gmap, a, b):
                    out.append(anchor)
                    break
    return out


def _attack_squares(gmap: GameMap, target: Cell, reach_ft: int, dead_zone_ft: int) -> list[Cell]:
    span = max(1, reach_ft // 5)
    w = gmap.width
    tr, tc = divmod(target, w)
    out: list[Cell] = []
    for r in range(max(0, tr - span), min(gmap.height, tr + span + 1)):
        for c in range(max(0, tc - span), min(w, tc + span + 1)):
            cell = r * w + c
            if cell == target or gmap.move_cost[cell] == 0:
                continue
            dist = distance_ft(gmap, cell, target)
            if dead_zone_ft < dist <= reach_ft and has_line_of_effect(gmap, cell, target):
                out.append(cell)
    return out


def walk_budget(path: Path, budget: int, occupied: Container[Cell]) -> Path:
    """The longest prefix of ``path`` within ``budget`` squares that ends on a free square."""
    n = 0
    for i, cost in enumerate(path.costs):
        if cost > budget:
            break
        n = i + 1
    while n > 0 and path.cells[n - 1] in occupied:
        n -= 1
    return Path(path.cells[:n], path.costs[:n], path.end_parity)


def path_toward(
    gmap: GameMap,
    start: Cell,
    target: Cell,
    reach_ft: int,
    *,
    occupied: Collection[Cell],
    hostile: Collection[Cell],
    dead_zone_ft: int = 0,
    k: int = 1,
    kt: int = 1,
) -> Path | None:
    """Full cheapest path (no budget) to a free square from which ``target`` is in reach
    (farther than ``dead_zone_ft``: a reach weapon backs away from an adjacent target).

    ``occupied``: squares of every other active creature (never ended on);
    ``hostile``: squares of active enemies (never entered). ``None`` if the mover
    already is in such a square or cannot get closer at all. With a mover of
    ``k × k`` squares (and a target of ``kt``), cells are anchors and
    ``occupied``/``hostile`` are the anchors whose footprint would overlap them
    (:func:`engine.content.space.inflate`).
    """
    goals = {
        c for c in attack_squares(gmap, target, reach_ft, dead_zone_ft, k, kt) if c not in occupied
    }
    if start in goals:
        return None
    pm = sized_map(gmap, k)
    span = max(1, reach_ft // 5)
    w = gmap.width
    tr, tc = divmod(target, w)

    def h(cell: Cell) -> int:
        if k == 1 and kt == 1:
            return max(0, max(abs(cell // w - tr), abs(cell % w - tc)) - span)
        return max(0, max(body_deltas(gmap, cell, k, target, kt)) - span)

    if goals:
        # The cheapest path ignoring creatures is also the cheapest real one when
        # it avoids every enemy and ends on a free square: reuse it (cached per map).
        key = ("static_path", start, target, reach_ft, dead_zone_ft)
        if k != 1 or kt != 1:
            key = (*key, k, kt)
        static = gmap.cache.get(key, False)
        if static is False:
            static = find_path(
                pm,
                start,
                set(attack_squares(gmap, target, reach_ft, dead_zone_ft, k, kt)),
                heuristic=h,
            )
            gmap.cache[key] = static
        if (
            isinstance(static, Path)
            and static.cells
            and static.cells[-1] in goals
            and not any(c in hostile for c in static.cells)
        ):
            return static
    # The searches around the creatures: memoised per map and layout (a pure function
    # of the static map and the key, so a warm cache changes no result; the engine
    # walks the very path a policy's observation just asked for).
    memo = _dynamic_paths(gmap)
    search = (start, target, reach_ft, dead_zone_ft, k, kt, frozenset(occupied), frozenset(hostile))
    if search in memo:
        return memo[search]
    found = _search_around(gmap, pm, start, target, goals, occupied, hostile, h, k, kt)
    memo[search] = found
    return found


#: cached searches around creatures per map (cleared beyond this many)
DYNAMIC_PATHS_MAX = 4096


def _dynamic_paths(gmap: GameMap) -> dict[tuple[object, ...], Path | None]:
    cached = gmap.cache.get("dynamic_paths")
    if isinstance(cached, dict):
        memo = cast("dict[tuple[object, ...], Path | None]", cached)
        if len(memo) >= DYNAMIC_PATHS_MAX:
            memo.clear()
        return memo
    fresh: dict[tuple[object, ...], Path | None] = {}
    gmap.cache["dynamic_paths"] = fresh
    return fresh


def _search_around(
    gmap: GameMap,
    pm: GameMap,
    start: Cell,
    target: Cell,
    goals: set[Cell],
    occupied: Collection[Cell],
    hostile: Collection[Cell],
    h: Callable[[Cell], int],
    k: int,
    kt: int,
) -> Path | None:
    """:func:`path_toward` past its shortcuts: the cheapest path around the enemies
    to a goal, else toward the closest reachable free square."""
    if goals:
        path = find_path(pm, start, goals, blocked=hostile, heuristic=h)
        if path is not None:
            return path
    # No square in reach can be reached: head for the closest reachable free square.
    costs = reachable(pm, start, blocked=hostile)
    best: tuple[int, int, Cell] | None = None
    for cell, cost in costs.items():
        if cell in occupied and cell != start:
            continue
        key = (body_distance_squares(gmap, cell, k, target, kt), cost, cell)
        if best is None or key < best:
            best = key
    if best is None or best[2] == start:
        return None
    return find_path(pm, start, {best[2]}, blocked=hostile)


def move_toward(
    gmap: GameMap,
    start: Cell,
    target: Cell,
    attacks: tuple[AttackProfile, ...],
    speed_ft: int,
    *,
    occupied: Collection[Cell],
    hostile: Collection[Cell],
    k: int = 1,
    kt: int = 1,
) -> Path:
    """What one move action toward ``target`` walks (possibly nothing).

    The one definition used by the engine to resolve ``move`` and by the
    Observation to tell policies where a move would end.
    """
    reach, dead = melee_band(attacks)
    path = path_toward(
        gmap,
        start,
        target,
        reach,
        occupied=occupied,
        hostile=hostile,
        dead_zone_ft=dead,
        k=k,
        kt=kt,
    )
    if path is None:
        return Path((), (), 0)
    return walk_budget(path, speed_ft // 5, occupied)


def path_to_destination(
    gmap: GameMap,
    start: Cell,
    dest: Cell,
    budget: int,
    *,
    occupied: Container[Cell],
    hostile: Container[Cell],
    k: int = 1,
) -> Path | None:
    """Cheapest path to a free passable ``dest`` within ``budget`` squares, else ``None``
    (``dest``: the anchor of a ``k × k`` mover's space)."""
    gmap = sized_map(gmap, k)
    if dest == start or gmap.move_cost[dest] == 0 or dest in occupied:
        return None
    w = gmap.width
    dr, dc = divmod(dest, w)

    def h(cell: Cell) -> int:
        return max(abs(cell // w - dr), abs(cell % w - dc))

    path = find_path(gmap, start, {dest}, blocked=hostile, heuristic=h)
    if path is None or path.cost > budget:
        return None
    return path


def step_allowed(
    gmap: GameMap, start: Cell, dest: Cell, occupied: Container[Cell], k: int = 1
) -> bool:
    """Whether a 5-foot step from ``start`` to ``dest`` is legal (anchors of a
    ``k × k`` space)."""
    gmap = sized_map(gmap, k)
    if dest in occupied:
        return False
    for n, diag in neighbours(gmap)[start]:
        if n == dest:
            cost, _ = step_cost(gmap, start, dest, diag, 0)
            return cost == 1
    return False


def step_toward(
    gmap: GameMap,
    start: Cell,
    target: Cell,
    attacks: tuple[AttackProfile, ...],
    occupied: Container[Cell],
    k: int = 1,
    kt: int = 1,
) -> tuple[Cell | None, bool]:
    """The auto-directed 5-foot step toward ``target``.

    Returns ``(square, in_reach)``: the first free square (row, col order) from
    which a melee attack reaches the target, else the free legal step that most
    reduces the distance, else ``(None, False)``.
    """
    key = (
        ("steps", start, target, attacks)
        if k == 1 and kt == 1
        else (
            "steps",
            start,
            target,
            attacks,
            k,
            kt,
        )
    )
    options = cast("list[tuple[Cell, bool, bool]] | None", gmap.cache.get(key))
    if options is None:
        options = _step_options(gmap, start, target, attacks, k, kt)
        gmap.cache[key] = options
    fallback: Cell | None = None
    for cell, in_reach, closer in options:
        if cell in occupied:
            continue
        if in_reach:
            return cell, True
        if closer and fallback is None:
            fallback = cell
    return fallback, False


def _step_options(
    gmap: GameMap, start: Cell, target: Cell, attacks: tuple[AttackProfile, ...], k: int, kt: int
) -> list[tuple[Cell, bool, bool]]:
    """Statically legal steps: (square, melee reach from it, gets closer), best first."""
    pm = sized_map(gmap, k)
    zero_reach = any(a.is_melee and a.reach_ft == 0 for a in attacks)
    here = body_distance_squares(gmap, start, k, target, kt)
    reach: list[tuple[Cell, bool, bool]] = []
    closer: list[tuple[int, Cell]] = []
    for n, diag in neighbours(pm)[start]:
        if step_cost(pm, start, n, diag, 0)[0] != 1:
            continue
        if body_deltas(gmap, n, k, target, kt) == (0, 0) and not zero_reach:
            continue  # onto the target's space (only a zero-reach attacker goes there)
        if any(a.is_melee and attack_reason(gmap, n, target, a, k, kt) is None for a in attacks):
            reach.append((n, True, True))
            continue
        d = body_distance_squares(gmap, n, k, target, kt)
        if d < here:
            closer.append((d, n))
    closer.sort()
    return reach + [(n, False, True) for _d, n in closer]


@dataclass(frozen=True, slots=True)
class ChargeResult:
    """Whether a charge is possible, along which line, and why not."""

    ok: bool
    reason: Reason | None
    path: Path | None = None
    attack: AttackProfile | None = None


def charge_path(
    gmap: GameMap,
    start: Cell,
    target: Cell,
    attacks: tuple[AttackProfile, ...],
    speed_ft: int,
    occupied: Container[Cell],
    k: int = 1,
    kt: int = 1,
) -> ChargeResult:
    """Charge rules (SRD « Charge »).

    The charger needs line of effect to the target and a melee attack; it moves
    in a straight line (Bresenham, centre to centre) to the closest free square
    from which that attack reaches the target, at least 10 ft and at most 2×
    speed. Every square of the line must be passable, not difficult terrain,
    free of any creature (allies included), and diagonals obey the corner rule.
    When the closest squares cannot be reached that way, there is no charge.
    """
    melee = [a for a in attacks if a.is_melee]
    if not melee:
        return ChargeResult(False, Reason.NO_WEAPON)
    if not body_line_of_effect(gmap, start, k, target, kt):
        return ChargeResult(False, Reason.NO_LINE_OF_EFFECT)
    budget = (2 * speed_ft) // 5
    for attack in melee:
        if attack_reason(gmap, start, target, attack, k, kt) is None:
            return ChargeResult(False, Reason.NO_CHARGE_PATH)  # already in reach
        key = ("charge", start, target, attack.reach_ft, attack.dead_zone_ft)
        if k != 1 or kt != 1:
            key = (*key, k, kt)
        plan = cast("list[tuple[Cell, int, Path | None]] | None", gmap.cache.get(key))
        if plan is None:
            plan = _charge_plan(gmap, start, target, attack.reach_ft, attack.dead_zone_ft, k, kt)
            gmap.cache[key] = plan
        nearest: int | None = None
        for dest, dist, path in plan:
            if dest in occupied:
                continue
            if nearest is None:
                nearest = dist
            elif dist != nearest:
                break
            if path is None or path.cost > budget or dist < 2:
                continue
            if any(c in occupied for c in path.cells):
                continue
            return ChargeResult(True, None, path, attack)
    return ChargeResult(False, Reason.NO_CHARGE_PATH)


def _charge_plan(
    gmap: GameMap, start: Cell, target: Cell, reach_ft: int, dead_zone_ft: int, k: int, kt: int
) -> list[tuple[Cell, int, Path | None]]:
    """Candidate end squares by distance, with their terrain-valid straight line
    (anchors of the charger's space, moving on its sized map)."""
    squares = sorted(
        attack_squares(gmap, target, reach_ft, dead_zone_ft, k, kt),
        key=lambda c: (distance_squares(gmap, start, c), c),
    )
    pm = sized_map(gmap, k)
    return [
        (c, distance_squares(gmap, start, c), _straight_line(pm, start, c, ())) for c in squares
    ]


def _straight_line(
    gmap: GameMap, start: Cell, dest: Cell, occupied: Container[Cell]
) -> Path | None:
    line = bresenham(gmap, start, dest)
    nbrs = neighbours(gmap)
    cells: list[Cell] = []
    costs: list[int] = []
    total, parity = 0, 0
    for prev, cur in itertools.pairwise(line):
        if gmap.move_cost[cur] != 1 or cur in occupied:
            return None
        diag = None
        for n, d in nbrs[prev]:
            if n == cur:
                diag = d
                break
        if diag is None:  # corner rule or impassable
            return None
        cost, parity = step_cost(gmap, prev, cur, diag, parity)
        total += cost
        cells.append(cur)
        costs.append(total)
    return Path(tuple(cells), tuple(costs), parity)


#: SRD « Run »: four times the speed (heavy armor's ×3 is not modelled)
RUN_MULTIPLIER = 4


def run_path(
    gmap: GameMap,
    start: Cell,
    goal: Cell,
    speed_ft: int,
    *,
    occupied: Container[Cell],
    hostile: Container[Cell],
    k: int = 1,
) -> Path:
    """What a run toward ``goal`` walks: the straight line (Bresenham, centre to
    centre) up to 4× speed, stopping before the first square it cannot take in
    stride — impassable or difficult terrain, a wall corner cut diagonally, an
    enemy (so a run at an enemy stops next to it). Allies are run through but
    never ended on (the run backs up). Cells are anchors of a ``k × k`` space."""
    gmap = sized_map(gmap, k)
    budget = (RUN_MULTIPLIER * speed_ft) // 5
    nbrs = neighbours(gmap)
    cells: list[Cell] = []
    costs: list[int] = []
    total, parity = 0, 0
    for prev, cur in itertools.pairwise(bresenham(gmap, start, goal)):
        if gmap.move_cost[cur] != 1 or cur in hostile:
            break
        diag = next((d for n, d in nbrs[prev] if n == cur), None)
        if diag is None:  # corner rule
            break
        cost, parity = step_cost(gmap, prev, cur, diag, parity)
        if total + cost > budget:
            break
        total += cost
        cells.append(cur)
        costs.append(total)
    while cells and cells[-1] in occupied:
        cells.pop()
        costs.pop()
    return Path(tuple(cells), tuple(costs), parity)


#: cached retreat fields per map (cleared beyond this many enemy layouts)
RETREAT_FIELDS_MAX = 4096


def _retreat_field(gmap: GameMap, enemies: Collection[Cell]) -> list[int]:
    """:func:`cost_field` from the enemies' squares, memoised per map and layout (a
    pure function of the static map, so a warm cache changes no result)."""
    cached = gmap.cache.get("retreat_fields")
    fields: dict[tuple[Cell, ...], list[int]]
    if isinstance(cached, dict):
        fields = cast("dict[tuple[Cell, ...], list[int]]", cached)
    else:
        fields = {}
        gmap.cache["retreat_fields"] = fields
    key = tuple(sorted(enemies))
    field = fields.get(key)
    if field is None:
        if len(fields) >= RETREAT_FIELDS_MAX:
            fields.clear()
        field = fields[key] = cost_field(gmap, key)
    return field


def can_withdraw_from(
    gmap: GameMap,
    start: Cell,
    enemies: Collection[Cell],
    speed_ft: int,
    occupied: Container[Cell],
    *,
    restricted: bool = False,
    k: int = 1,
) -> bool:
    """Whether :func:`withdraw_path` would move at least one square (the same
    arguments, the same answer), trying its first step only."""
    if not enemies:
        return False
    if k != 1:
        enemies = inflate(gmap, enemies, k)
        gmap = sized_map(gmap, k)
    field = _retreat_field(gmap, enemies)
    budget = (speed_ft if restricted else 2 * speed_ft) // 5
    here = field[start]
    for n, diag in neighbours(gmap)[start]:
        if n in occupied or field[n] <= here:
            continue
        if step_cost(gmap, start, n, diag, 0)[0] <= budget:
            return True
    return False


def withdraw_path(
    gmap: GameMap,
    start: Cell,
    enemies: Collection[Cell],
    speed_ft: int,
    occupied: Container[Cell],
    *,
    restricted: bool = False,
    k: int = 1,
) -> Path:
    """Greedy retreat up to 2× speed (1× for a restricted withdraw) away from the
    nearest enemies' squares (may be empty). A ``k × k`` mover's anchor moves on
    its sized map, away from the anchors where it would overlap an enemy."""
    if not enemies:
        return Path((), (), 0)
    if k != 1:
        enemies = inflate(gmap, enemies, k)
        gmap = sized_map(gmap, k)
    field = _retreat_field(gmap, enemies)
    budget = (speed_ft if restricted else 2 * speed_ft) // 5
    nbrs = neighbours(gmap)
    cells: list[Cell] = []
    costs: list[int] = []
    cur, total, parity = start, 0, 0
    while True:
        best: tuple[int, int, Cell, int, int] | None = None
        for n, diag in nbrs[cur]:
            if n in occupied or field[n] <= field[cur]:
                continue
            cost, npar = step_cost(gmap, cur, n, diag, parity)
            if total + cost > budget:
                continue
            key = (-field[n], n, n, cost, npar)
            if best is None or key < best:
                best = key
        if best is None:
            break
        _, _, cur, cost, parity = best
        total += cost
        cells.append(cur)
        costs.append(total)
    return Path(tuple(cells), tuple(costs), parity)
