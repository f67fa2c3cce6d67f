"""Observation ``ranged_threatened`` (inventory §4.5 U6d): the squares inside the
field of fire of the actor's active enemies — within a ranged attack's maximum
range and in line of effect of the shooter. Not an attack-of-opportunity threat."""

from __future__ import annotations

from builders import battle, make_map, make_profile, ranged, state

from engine.geometry.grid import distance_ft
from engine.geometry.los import has_line_of_effect

MAP = make_map(
    [
        "............",
        "......#.....",
        "......#.....",
        "............",
    ]
)


def _grid(b, who):
    return b.observe(b.by_id[who]).ranged_threatened


def test_field_of_fire_is_range_and_line_of_effect():
    # a 5-ft increment: 50 ft (10 squares) at most
    archer = state("archer", "B", make_profile(attacks=[ranged(inc=5)]), MAP, (1, 11))
    me = state("me", "A", make_profile(), MAP, (2, 0), 1)
    b = battle(MAP, [archer, me])
    grid = _grid(b, "me")
    src = archer.pos
    for r in range(MAP.height):
        for c in range(MAP.width):
            cell = MAP.cell(r, c)
            expected = (
                cell != src
                and MAP.move_cost[cell] != 0
                and distance_ft(MAP, src, cell) <= 50
                and has_line_of_effect(MAP, src, cell)
            )
            assert grid[r][c] == expected, (r, c)
    assert grid[1][10] and not grid[1][11]  # next to the archer; its own square
    assert not grid[1][6] and not grid[2][5]  # the wall and a square behind it
    assert grid[1][1] and not grid[1][0]  # 50 ft in range, 55 ft out of it
    assert b.observe(me).to_dict()["ranged_threatened"] == [list(row) for row in grid]


def test_melee_enemies_and_allied_archers_fire_on_nothing():
    foe = state("foe", "B", make_profile(), MAP, (0, 0))
    friend = state("friend", "A", make_profile(attacks=[ranged()]), MAP, (3, 11), 1)
    me = state("me", "A", make_profile(), MAP, (3, 0), 2)
    b = battle(MAP, [foe, friend, me])
    assert not any(any(row) for row in _grid(b, "me"))
    # the same archer seen by its enemy covers squares
    assert any(any(row) for row in _grid(b, "foe"))


def test_a_fallen_archer_fires_on_nothing():
    archer = state("archer", "B", make_profile(attacks=[ranged()]), MAP, (0, 11), hp=-1)
    me = state("me", "A", make_profile(), MAP, (3, 0), 1)
    b = battle(MAP, [archer, me])
    assert not any(any(row) for row in _grid(b, "me"))
