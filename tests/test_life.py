"""Life states: disabled at 0, dying and stabilization, death at −Con, undead, simple death."""

from __future__ import annotations

from builders import Plan, battle, make_map, make_profile, melee, state

from engine.content.actions import AttackAction, FullAttackAction, MoveAction
from engine.core.rng import ScriptedDice
from engine.rules.life import apply_damage, dying_turn, stabilization_check, update_state
from harness.transcript import lines

ROW = make_map(["........"])


def one(profile_kw=None, hp=None, dies_at_zero=False):
    return state(
        "x", "A", make_profile(**(profile_kw or {})), ROW, (0, 0), hp=hp, dies_at_zero=dies_at_zero
    )


def test_disabled_at_exactly_zero_is_active():
    c = one(hp=1)
    apply_damage(c, 1)
    assert (c.hp, c.active, c.disabled, c.dying, c.dead) == (0, True, True, False, False)
    assert c.speed_ft == 15


def test_dying_below_zero_and_dead_at_minus_con_score():
    c = one({"abilities": {"str_score": 10, "dex_score": 10, "con_score": 12}}, hp=3)
    apply_damage(c, 4)
    assert c.dying and not c.active and not c.dead
    apply_damage(c, 10)  # hp -11 > -12
    assert c.hp == -11 and not c.dead
    apply_damage(c, 1)
    assert c.dead


def test_stabilization_check_success_and_failure():
    c = one(hp=-3)
    rec = stabilization_check(ScriptedDice({"stabilize": [13]}), c)  # 13 + 0 - 3 = 10
    assert rec.success and c.stable and c.hp == -3
    c = one(hp=-3)
    rec = stabilization_check(ScriptedDice({"stabilize": [12]}), c)
    assert not rec.success and not c.stable and c.hp == -4
    assert [m.source for m in rec.modifiers] == ["Constitution", "points de vie négatifs"]


def test_natural_twenty_always_stabilizes():
    c = one({"abilities": {"str_score": 10, "dex_score": 10, "con_score": 18}}, hp=-17)
    rec = stabilization_check(ScriptedDice({"stabilize": [20]}), c)  # 20 + 4 - 17 = 7 < 10
    assert rec.success and rec.automatic and c.stable


def test_new_wound_makes_a_stable_creature_dying_again():
    c = one(hp=-2)
    c.stable = True
    apply_damage(c, 1)
    assert not c.stable and c.dying


def test_undead_and_constructs_are_destroyed_at_zero():
    for kind in ("undead", "construct"):
        c = one(
            {
                "creature_type": kind,
                "abilities": {"str_score": 10, "dex_score": 10, "con_score": None},
            },
            hp=5,
        )
        apply_damage(c, 5)
        assert c.dead


def test_simple_monster_death_only_for_flagged_combatants():
    c = one(hp=5, dies_at_zero=True)
    apply_damage(c, 5)
    assert c.dead
    c = one(hp=5, dies_at_zero=False)
    apply_damage(c, 5)
    assert not c.dead and c.disabled


def test_update_state_is_idempotent_for_the_living():
    c = one(hp=4)
    update_state(c)
    assert c.active and not c.dead


def test_disabled_gets_one_action_and_pays_one_hp_for_a_standard_action():
    a = state("a", "A", make_profile(attacks=[melee(dmg="1d4")]), ROW, (0, 0), 0, hp=0)
    t = state("t", "B", make_profile(), ROW, (0, 1), 1)
    plans = {"A": Plan(FullAttackAction(target_id="t"), AttackAction(target_id="t")), "B": Plan()}
    b = battle(ROW, [a, t], {"attack": [15], "damage": [2]}, policies=plans)
    b.take_turn(a)
    assert [r.reason for r in a.last_results] == ["downgraded:staggered", None]
    assert t.hp == 8
    assert a.hp == -1 and a.dying


def test_disabled_move_costs_nothing_and_is_at_half_speed():
    a = state("a", "A", make_profile(), ROW, (0, 0), 0, hp=0)
    t = state("t", "B", make_profile(), ROW, (0, 7), 1)
    b = battle(
        ROW,
        [a, t],
        policies={"A": Plan(MoveAction(target_id="t"), MoveAction(target_id="t")), "B": Plan()},
    )
    b.take_turn(a)
    assert a.hp == 0
    assert a.pos == ROW.cell(0, 3)  # 15 ft
    assert [r.reason for r in a.last_results] == [None, "downgraded:staggered"]


def test_dying_turn_is_a_stabilization_check_in_the_fight_loop():
    a = state("a", "A", make_profile(), ROW, (0, 0), 0, hp=-2)
    ally = state("b", "A", make_profile(), ROW, (0, 3), 1)
    t = state("t", "B", make_profile(), ROW, (0, 7), 2)
    b = battle(
        ROW, [a, ally, t], {"stabilize": [5]}, round_cap=1, policies={"A": Plan(), "B": Plan()}
    )
    b.fight.round = 0
    b.fight.order = [a]
    dying_turn(b.fight, a)
    assert a.hp == -3
    assert (
        lines(b.fight.log)[-1][2]
        == "stabilisation d20=5-2=3 vs DD 10 -> échec (marge -7) : perd 1 pv (-3 pv)"
    )
