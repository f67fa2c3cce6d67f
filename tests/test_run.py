"""Run (SRD « Run »): a straight line up to 4× speed, no Dex bonus to AC until
the next turn unless the Run feat, attacks of opportunity as usual."""

from __future__ import annotations

from builders import battle, make_map, make_profile, messages, state

from engine.content.actions import AttackAction, Reason, RunAction
from engine.state.effects import Cond

LANE = make_map(["..........................", ".........................."])


def test_a_run_goes_straight_up_to_four_times_speed_and_stops_next_to_an_enemy():
    me = state("me", "A", make_profile(speed_land_ft=20), LANE, (0, 0))
    far = state("far", "B", make_profile(), LANE, (0, 25), 1)
    b = battle(LANE, [me, far])
    assert b.dispatch(me, RunAction(target_id="far")).ok
    assert me.pos == LANE.cell(0, 16)  # 80 ft: 16 squares
    assert messages(b)[0].startswith("course (0,0)->(0,1)->") and me.effects.cond & Cond.RUNNING
    near = state("near", "B", make_profile(), LANE, (1, 10), 1)
    b2 = battle(LANE, [state("me", "A", make_profile(), LANE, (1, 0)), near])
    runner = b2.combatants[0]
    b2.dispatch(runner, RunAction(target_id="near"))
    assert runner.pos == LANE.cell(1, 9)  # stops next to the enemy it runs at


def test_a_run_stops_before_difficult_terrain_and_runs_through_allies():
    lane = make_map([".....~...."])
    me = state("me", "A", make_profile(), lane, (0, 0))
    ally = state("ally", "A", make_profile(), lane, (0, 2), 1)
    foe = state("foe", "B", make_profile(), lane, (0, 9), 2)
    b = battle(lane, [me, ally, foe])
    b.dispatch(me, RunAction(target_id="foe"))
    assert me.pos == lane.cell(0, 4)  # through the ally, stopped by the water at (0,5)
    lane2 = make_map([".........."])
    me = state("me", "A", make_profile(), lane2, (0, 0))
    ally = state("ally", "A", make_profile(), lane2, (0, 3), 1)
    foe = state("foe", "B", make_profile(), lane2, (0, 4), 2)
    b = battle(lane2, [me, ally, foe])
    b.dispatch(me, RunAction(target_id="foe"))
    assert me.pos == lane2.cell(0, 2)  # never ends on the ally: backs up


def test_run_destination_must_be_on_a_clear_straight_line_within_range():
    me = state("me", "A", make_profile(), LANE, (0, 0))
    foe = state("foe", "B", make_profile(), LANE, (1, 25), 1)
    b = battle(LANE, [me, foe])
    assert b.dispatch(me, RunAction(destination=(0, 25))).reason == Reason.UNREACHABLE_DESTINATION
    assert b.dispatch(me, RunAction(destination=(0, 12))).ok and me.pos == LANE.cell(0, 12)
    assert b.dispatch(me, RunAction()).reason == Reason.MISSING_TARGET


def test_a_runner_loses_its_dex_bonus_to_ac_unless_it_has_the_run_feat():
    ac = {"total": 15, "touch": 13, "flat_footed": 12}
    for features, shown in (([], "CA 12 (course -3)"), (["Run"], "CA 15")):
        me = state("me", "A", make_profile(ac=ac, features=features), LANE, (0, 0))
        foe = state("foe", "B", make_profile(), LANE, (0, 20), 1)
        b = battle(LANE, [me, foe], {"attack": [1]})
        b.dispatch(me, RunAction(target_id="foe"))
        b.dispatch(foe, AttackAction(target_id="me"))
        assert shown in messages(b)[-1]


def test_running_past_an_enemy_provokes():
    me = state("me", "A", make_profile(hp_max=20), LANE, (0, 0))
    guard = state("guard", "B", make_profile(), LANE, (1, 2), 1)
    foe = state("foe", "B", make_profile(), LANE, (0, 20), 2)
    b = battle(LANE, [me, guard, foe], {"attack": [15], "damage": [3]})
    b.dispatch(me, RunAction(target_id="foe"))
    assert "attaque d'opportunité contre me (quitte une case menacée)" in messages(b)


def test_the_menu_offers_a_run_only_beyond_a_double_move():
    me = state("me", "A", make_profile(), LANE, (0, 0))
    foe = state("foe", "B", make_profile(), LANE, (0, 20), 1)
    b = battle(LANE, [me, foe])
    assert "run:foe" in [o.id for o in b.observe(me).legal_options]
    foe.pos = LANE.cell(0, 10)
    assert "run:foe" not in [o.id for o in b.observe(me).legal_options]
