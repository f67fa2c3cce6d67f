"""Geometry: 5-10-5 distances, step costs, corner rule, pathing, line of effect and cover."""

from __future__ import annotations

from builders import make_map

from engine.geometry.grid import (
    bresenham,
    cost_field,
    distance_ft,
    find_path,
    neighbours,
    step_cost,
)
from engine.geometry.los import cover_bonus, has_line_of_effect

OPEN = make_map(["........"] * 8)


def c(gmap, r, col):
    return gmap.cell(r, col)


def test_five_ten_five_distances():
    assert distance_ft(OPEN, c(OPEN, 0, 0), c(OPEN, 0, 1)) == 5
    assert distance_ft(OPEN, c(OPEN, 0, 0), c(OPEN, 1, 1)) == 5
    assert distance_ft(OPEN, c(OPEN, 0, 0), c(OPEN, 2, 2)) == 15
    assert distance_ft(OPEN, c(OPEN, 0, 0), c(OPEN, 3, 3)) == 20
    assert distance_ft(OPEN, c(OPEN, 0, 0), c(OPEN, 4, 4)) == 30
    assert distance_ft(OPEN, c(OPEN, 0, 0), c(OPEN, 2, 5)) == 30


def test_path_cost_alternates_diagonals():
    path = find_path(OPEN, c(OPEN, 0, 0), {c(OPEN, 4, 4)})
    assert path is not None
    assert path.costs == (1, 3, 4, 6)


def test_difficult_terrain_costs_double_and_three_on_a_diagonal():
    gmap = make_map(["...", ".~.", "..."])
    nb = dict(neighbours(gmap)[c(gmap, 0, 0)])
    assert nb[c(gmap, 1, 1)] is True
    assert step_cost(gmap, c(gmap, 0, 0), c(gmap, 1, 1), True, 0) == (3, 0)
    assert step_cost(gmap, c(gmap, 0, 0), c(gmap, 1, 1), True, 1) == (3, 1)
    assert step_cost(gmap, c(gmap, 0, 1), c(gmap, 1, 1), False, 0) == (2, 0)
    assert step_cost(gmap, c(gmap, 0, 0), c(gmap, 0, 1), False, 1) == (1, 1)


def test_climbing_costs_one_square_per_level_and_descending_is_free():
    gmap = make_map(["...."], elevation=[".2.."])
    assert step_cost(gmap, c(gmap, 0, 0), c(gmap, 0, 1), False, 0) == (3, 0)
    assert step_cost(gmap, c(gmap, 0, 1), c(gmap, 0, 2), False, 0) == (1, 0)


def test_corner_rule_forbids_cutting_a_wall_corner():
    gmap = make_map(["..", "#."])
    nb = {n for n, _ in neighbours(gmap)[c(gmap, 0, 0)]}
    assert c(gmap, 1, 1) not in nb
    path = find_path(gmap, c(gmap, 0, 0), {c(gmap, 1, 1)})
    assert path is not None and path.cells == (c(gmap, 0, 1), c(gmap, 1, 1))


def test_path_goes_around_walls():
    gmap = make_map([".....", ".###.", "....."])
    path = find_path(gmap, c(gmap, 1, 0), {c(gmap, 1, 4)})
    assert path is not None and path.cost == 6  # the corner rule forbids cutting (1,1)
    assert all(gmap.passable(x) for x in path.cells)


def test_blocked_cells_are_avoided_and_unreachable_gives_none():
    gmap = make_map(["...", "...", "..."])
    blocked = {c(gmap, 0, 1), c(gmap, 1, 1), c(gmap, 2, 1)}
    assert find_path(gmap, c(gmap, 1, 0), {c(gmap, 1, 2)}, blocked=blocked) is None


def test_cost_field():
    gmap = make_map(["....", ".#..", "...."])
    field = cost_field(gmap, [c(gmap, 0, 0)])
    assert field[c(gmap, 0, 3)] == 3
    assert field[c(gmap, 1, 1)] == -1
    assert field[c(gmap, 2, 2)] == 4  # no diagonal past the wall's corners


def test_bresenham_straight_and_diagonal():
    gmap = OPEN
    line = bresenham(gmap, c(gmap, 0, 0), c(gmap, 2, 4))
    assert [gmap.rc(x) for x in line] == [(0, 0), (0, 1), (1, 2), (1, 3), (2, 4)]


def test_line_of_effect_blocked_by_a_wall_block():
    gmap = make_map([".###.", ".###.", ".###."])
    assert not has_line_of_effect(gmap, c(gmap, 1, 0), c(gmap, 1, 4))
    # A line running along the wall's face grazes it: line of effect exists.
    gmap = make_map([".....", ".###.", ".###.", "....."])
    assert has_line_of_effect(gmap, c(gmap, 1, 0), c(gmap, 1, 4))
    assert has_line_of_effect(gmap, c(gmap, 0, 0), c(gmap, 0, 4))


def test_cover_levels_from_terrain():
    pillar = make_map(["....", ".C..", "...."])
    assert cover_bonus(pillar, c(pillar, 1, 0), c(pillar, 1, 3), melee=False) == 4
    ruin = make_map(["....", ".W..", "...."])
    assert cover_bonus(ruin, c(ruin, 1, 0), c(ruin, 1, 3), melee=False) == 2
    assert cover_bonus(OPEN, c(OPEN, 1, 0), c(OPEN, 1, 5), melee=False) == 0


def test_attacker_picks_the_best_corner():
    # The pillar only hides the target from the lower corners of the attacker.
    gmap = make_map(["......", "......", "C....."])
    assert cover_bonus(gmap, c(gmap, 2, 1), c(gmap, 2, 5), melee=False) == 0


def test_soft_cover_for_ranged_only():
    gmap = OPEN
    a, t, mid = c(gmap, 3, 0), c(gmap, 3, 6), c(gmap, 3, 3)
    assert cover_bonus(gmap, a, t, melee=False, creatures={mid}) == 4
    assert cover_bonus(gmap, a, t, melee=True, creatures={mid}) == 0
    assert cover_bonus(gmap, a, t, melee=False, creatures=set()) == 0


def test_adjacent_melee_any_line_rule():
    # A wall beside a diagonal attack gives the target cover.
    gmap = make_map(["..", "#."])
    assert cover_bonus(gmap, c(gmap, 0, 0), c(gmap, 1, 1), melee=True) == 4
    assert cover_bonus(OPEN, c(OPEN, 0, 0), c(OPEN, 1, 1), melee=True) == 0


def test_reachable_with_and_without_budget():
    from engine.geometry.grid import reachable

    gmap = make_map([".....", ".~...", "....."])
    start = c(gmap, 0, 0)
    costs = reachable(gmap, start)
    assert costs[start] == 0
    assert costs[c(gmap, 0, 4)] == 4
    assert costs[c(gmap, 1, 1)] == 3  # diagonal into difficult terrain
    assert costs[c(gmap, 2, 2)] == 3  # around the water: 1 + 2 (second diagonal)
    within = reachable(gmap, start, budget=2)
    assert set(within) == {x for x, v in costs.items() if v <= 2}
    blocked = reachable(gmap, start, blocked={c(gmap, 0, 1), c(gmap, 1, 0), c(gmap, 1, 1)})
    assert blocked == {start: 0}
