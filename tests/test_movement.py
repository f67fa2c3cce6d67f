"""Movement actions through the engine: move, 5-foot step, charge, withdraw."""

from __future__ import annotations

from builders import battle, make_map, make_profile, state
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.content.actions import ChargeAction, FiveFootStepAction, MoveAction, WithdrawAction
from engine.geometry.movement import can_withdraw_from, path_toward, withdraw_path
from harness.transcript import lines

CORRIDOR = make_map([".........."])


def setup(gmap, *placements, dice=None):
    states = [
        state(ident, side, make_profile(**kw), gmap, pos, i)
        for i, (ident, side, pos, kw) in enumerate(placements)
    ]
    return battle(gmap, states, dice), states


def test_move_stops_adjacent_to_the_target():
    b, (a, _t) = setup(CORRIDOR, ("a", "A", (0, 0), {}), ("t", "B", (0, 5), {}))
    assert b.dispatch(a, MoveAction(target_id="t")).ok
    assert a.pos == CORRIDOR.cell(0, 4)
    assert lines(b.fight.log)[-1][2] == "déplacement (0,0)->(0,1)->(0,2)->(0,3)->(0,4)"


def test_move_is_limited_by_speed():
    b, (a, _t) = setup(CORRIDOR, ("a", "A", (0, 0), {"speed_land_ft": 20}), ("t", "B", (0, 9), {}))
    b.dispatch(a, MoveAction(target_id="t"))
    assert a.pos == CORRIDOR.cell(0, 4)


def test_fly_speed_is_the_budget_when_higher():
    b, (a, _t) = setup(
        CORRIDOR,
        ("a", "A", (0, 0), {"speed_land_ft": 10, "speed_fly_ft": 40}),
        ("t", "B", (0, 9), {}),
    )
    b.dispatch(a, MoveAction(target_id="t"))
    assert a.pos == CORRIDOR.cell(0, 8)


def test_move_passes_through_allies_but_never_ends_on_them():
    b, (a, ally, _t) = setup(
        CORRIDOR, ("a", "A", (0, 0), {}), ("b", "A", (0, 6), {}), ("t", "B", (0, 9), {})
    )
    b.dispatch(a, MoveAction(target_id="t"))
    assert a.pos == CORRIDOR.cell(0, 5)  # budget ends on the ally's square: back up one
    b.dispatch(a, MoveAction(target_id="t"))
    assert a.pos == CORRIDOR.cell(0, 8)  # crossed the ally
    assert ally.pos == CORRIDOR.cell(0, 6)


def test_enemies_block_movement():
    b, (a, _e, _t) = setup(
        make_map([".#..", "..#.", ".#.."]),
        ("a", "A", (1, 0), {}),
        ("e", "B", (1, 1), {}),
        ("t", "B", (1, 3), {}),
    )
    b.dispatch(a, MoveAction(target_id="t"))
    assert a.pos == b.gmap.cell(1, 0)  # the only way is through the enemy: no move


def test_move_to_destination():
    b, (a, _t) = setup(CORRIDOR, ("a", "A", (0, 0), {}), ("t", "B", (0, 9), {}))
    assert b.dispatch(a, MoveAction(destination=(0, 6))).ok
    assert a.pos == CORRIDOR.cell(0, 6)
    res = b.dispatch(a, MoveAction(destination=(0, 9)))  # occupied
    assert (res.ok, res.reason) == (False, "unreachable_destination")
    res = b.dispatch(a, MoveAction(destination=(5, 5)))  # off the map
    assert (res.ok, res.reason) == (False, "unreachable_destination")
    res = b.dispatch(a, MoveAction())
    assert (res.ok, res.reason) == (False, "missing_target")


def test_difficult_terrain_slows_the_move():
    gmap = make_map(["..~~......"])
    b, (a, _t) = setup(gmap, ("a", "A", (0, 0), {}), ("t", "B", (0, 9), {}))
    b.dispatch(a, MoveAction(target_id="t"))
    assert a.pos == gmap.cell(0, 4)  # 1 + 2 + 2 + 1 = 6 squares


def test_five_foot_step_rules():
    gmap = make_map(["...", ".~.", "#.."])
    b, (a, _t) = setup(gmap, ("a", "A", (0, 0), {}), ("t", "B", (2, 2), {}))
    res = b.dispatch(a, FiveFootStepAction(destination=(1, 1)))  # difficult terrain
    assert (res.ok, res.reason) == (False, "unreachable_destination")
    res = b.dispatch(a, FiveFootStepAction(destination=(0, 2)))  # not adjacent
    assert (res.ok, res.reason) == (False, "unreachable_destination")
    assert b.dispatch(a, FiveFootStepAction(destination=(0, 1))).ok
    assert a.pos == gmap.cell(0, 1)


def test_five_foot_step_respects_the_corner_rule():
    gmap = make_map(["..", "#."])
    b, (a, _t) = setup(gmap, ("a", "A", (0, 0), {}), ("t", "B", (0, 1), {}))
    res = b.dispatch(a, FiveFootStepAction(destination=(1, 1)))
    assert (res.ok, res.reason) == (False, "unreachable_destination")


def test_auto_step_goes_into_reach():
    b, (a, _t) = setup(CORRIDOR, ("a", "A", (0, 0), {}), ("t", "B", (0, 2), {}))
    assert b.dispatch(a, FiveFootStepAction(target_id="t")).ok
    assert a.pos == CORRIDOR.cell(0, 1)


def test_charge_line_must_be_clear():
    b, (a, _x, _t) = setup(
        CORRIDOR, ("a", "A", (0, 0), {}), ("x", "A", (0, 2), {}), ("t", "B", (0, 6), {})
    )
    res = b.dispatch(a, ChargeAction(target_id="t"))
    assert (res.ok, res.reason) == (False, "no_charge_path")  # an ally is in the way
    gmap = make_map(["...~......"])
    b, (a, _t) = setup(gmap, ("a", "A", (0, 0), {}), ("t", "B", (0, 6), {}))
    assert b.dispatch(a, ChargeAction(target_id="t")).reason == "no_charge_path"


def test_charge_is_limited_to_twice_the_speed():
    gmap = make_map(["." * 16])
    b, (a, _t) = setup(gmap, ("a", "A", (0, 0), {}), ("t", "B", (0, 14), {}))
    assert b.dispatch(a, ChargeAction(target_id="t")).reason == "no_charge_path"  # 13 squares
    b, (a, _t) = setup(gmap, ("a", "A", (0, 0), {}), ("t", "B", (0, 13), {}), dice={"attack": [2]})
    assert b.dispatch(a, ChargeAction(target_id="t")).ok  # exactly 12 squares = 60 ft
    assert a.pos == gmap.cell(0, 12)


def test_charge_needs_line_of_effect_and_a_melee_weapon():
    gmap = make_map(["..#.."])
    b, (a, _t) = setup(gmap, ("a", "A", (0, 0), {}), ("t", "B", (0, 4), {}))
    assert b.dispatch(a, ChargeAction(target_id="t")).reason == "no_line_of_effect"
    bow = {
        "name": "bow",
        "kind": "ranged",
        "attack_bonus": 0,
        "range_increment_ft": 60,
        "damage": [{"formula": "1d6", "types": ["piercing"]}],
    }
    b, (a, _t) = setup(CORRIDOR, ("a", "A", (0, 0), {"attacks": [bow]}), ("t", "B", (0, 6), {}))
    assert b.dispatch(a, ChargeAction(target_id="t")).reason == "no_weapon"


def test_a_withdraw_in_the_surprise_round_is_restricted_to_the_speed():
    # SRD « Withdraw »: limited to a standard action (the surprise round), one
    # moves up to its speed, not twice it; the menu plans the same path
    lane = make_map(["." * 20])
    for rnd, end in ((0, 8), (1, 14)):
        b, (a, _t) = setup(lane, ("a", "A", (0, 2), {}), ("t", "B", (0, 1), {}))
        b.fight.round = rnd
        withdraw = next(o for o in b.observe(a).legal_options if o.id == "withdraw")
        assert b.dispatch(a, WithdrawAction()).ok
        assert a.pos == lane.cell(0, end) == withdraw.path[-1]


def test_withdraw_moves_away_from_the_nearest_enemy():
    b, (a, _t) = setup(CORRIDOR, ("a", "A", (0, 4), {}), ("t", "B", (0, 2), {}))
    assert b.dispatch(a, WithdrawAction()).ok
    assert a.pos == CORRIDOR.cell(0, 9)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(st.text(alphabet=".~#", min_size=6, max_size=6), min_size=3, max_size=6),
    heights=st.lists(st.integers(0, 2), min_size=36, max_size=36),
    picks=st.lists(st.integers(0, 35), min_size=1, max_size=6, unique=True),
    n_enemies=st.integers(0, 3),
    speed=st.sampled_from([5, 10, 20, 30]),
    restricted=st.booleans(),
    k=st.sampled_from([1, 1, 2]),
)
def test_can_withdraw_from_agrees_with_withdraw_path(
    rows, heights, picks, n_enemies, speed, restricted, k
):
    """The cheap first-step test answers exactly whether the greedy retreat moves."""
    height, width = len(rows), 6
    elevation = ["".join(str(heights[r * width + c]) for c in range(width)) for r in range(height)]
    gmap = make_map(rows, elevation=elevation)
    cells = [p for p in picks if p < gmap.size]
    assume(cells)
    start, others = cells[0], cells[1:]
    enemies, occupied = set(others[:n_enemies]), set(others)
    args = (gmap, start, enemies, speed, occupied)
    expected = bool(withdraw_path(*args, restricted=restricted, k=k).cells)
    assert can_withdraw_from(*args, restricted=restricted, k=k) == expected


def test_path_toward_gives_a_warm_map_the_answers_of_a_cold_one():
    """Searches around creatures are memoised per map: a map that answered the same
    search for other layouts before (warm) answers each layout as a fresh map (cold)
    does. The layouts differ only in which creatures are enemies, or only in where the
    other creatures stand, or only in reach, and each gets its own path."""
    rows = [".......", "......."]
    warm = make_map(rows)
    start, target = warm.cell(0, 0), warm.cell(0, 6)
    c = warm.cell
    layouts = [  # (occupied squares but the target's, enemy squares but the target's, reach)
        ({c(0, 3), c(1, 3)}, {c(0, 3)}, 5),  # around the enemy, through the ally
        ({c(0, 3), c(1, 3)}, {c(0, 3), c(1, 3)}, 5),  # walled off: as close as it can
        ({c(0, 3), c(1, 5)}, {c(0, 3)}, 5),  # the ally on the first path's goal square
        ({c(0, 3), c(1, 5)}, {c(0, 3)}, 10),  # with a reach of 10 feet
    ]
    paths = []
    for occupied, enemies, reach in layouts:
        kw = {"occupied": occupied | {target}, "hostile": enemies | {target}}
        path = path_toward(warm, start, target, reach, **kw)
        assert path == path_toward(make_map(rows), start, target, reach, **kw)
        paths.append(path)
    assert len({p.cells[-1] if p else None for p in paths}) == len(layouts)
