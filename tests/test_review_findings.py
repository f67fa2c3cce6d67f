"""Regression tests for engine bugs found in review (each failed before its fix)."""

from __future__ import annotations

import pytest
from builders import Plan, battle, make_map, make_profile, melee, state

from engine.content.actions import TurnPlan, WaitAction, WithdrawAction
from engine.core.rng import ScriptedDice, SeededRng
from engine.geometry.grid import distance_ft
from engine.rules.attack import resolve_swing
from engine.state.encounter import build_encounter
from engine.turn.battle import Battle
from harness.transcript import lines
from policies import HeuristicPolicy

ROW = make_map(["......"])


def test_combatant_ids_are_unique_when_a_name_slugs_like_a_numbered_id():
    gmap = make_map(["......"], zones=["AA..BB"], deployment={"red": "A", "blue": "B"})
    enc = build_encounter(
        gmap,
        [
            ("red", [make_profile(name="Orc 2"), make_profile(name="Orc")]),
            ("blue", [make_profile(name="Orc")]),
        ],
    )
    ids = [p.id for p in enc.placements]
    assert len(set(ids)) == len(ids), ids


def test_mutual_knockout_is_not_reported_as_reaching_the_round_cap():
    a = state("a", "A", make_profile(), ROW, (0, 0), 0, hp=0)
    t = state("t", "B", make_profile(name="T", hp_max=1), ROW, (0, 1), 1)
    pol = {"A": HeuristicPolicy(), "B": HeuristicPolicy()}
    # initiative a=20, t=1; a's single attack d20=15 hits AC 10, 1d8=5 drops t to -4;
    # then a's exertion takes it to -1: both sides are down in round 1.
    b = Battle(
        ROW,
        [a, t],
        ("A", "B"),
        ScriptedDice({"initiative": [20, 1], "attack": [15], "damage": [5]}),
        pol,
        record=True,
    )
    result = b.run()
    assert not a.active and not t.active
    assert "plafond" not in lines(result.log)[-1][2]
    assert result.rounds == 1


def test_explicitly_untyped_damage_is_physical_for_dr_and_crits():
    weapon = melee(dmg="1d6")
    weapon["damage"] = [{"formula": "1d6", "types": ["untyped"]}]
    a = state("a", "A", make_profile(attacks=[weapon]), ROW, (0, 0), 0)
    t = state(
        "t", "B", make_profile(name="T", hp_max=30, dr={"amount": 5, "bypass": "-"}), ROW, (0, 1), 1
    )
    b = battle(ROW, [a, t], {"attack": [15], "damage": [6]})  # hit, 6 damage, DR 5/- leaves 1
    resolve_swing(b.fight, a, t, a.attacks[0])
    assert t.hp == 29
    a2 = state("a", "A", make_profile(attacks=[weapon]), ROW, (0, 0), 0)
    t2 = state("t", "B", make_profile(name="T", hp_max=30), ROW, (0, 1), 1)
    # confirmed ×2: the dice are rolled twice
    b2 = battle(ROW, [a2, t2], {"attack": [20], "confirm": [20], "damage": [6, 6]})
    resolve_swing(b2.fight, a2, t2, a2.attacks[0])
    assert t2.hp == 18


def test_disabled_combatant_can_make_a_restricted_withdraw():
    gmap = make_map(["........"])
    a = state("a", "A", make_profile(), gmap, (0, 3), 0, hp=0)
    t = state("t", "B", make_profile(name="T"), gmap, (0, 4), 1)
    b = battle(gmap, [a, t], policies={"A": Plan(WithdrawAction()), "B": Plan()})
    start = a.pos
    b.take_turn(a)
    assert a.last_results[0].ok, a.last_results
    assert a.pos != start
    assert distance_ft(gmap, start, a.pos) <= 15  # disabled: half of 30 ft


def test_disabled_exertion_that_kills_is_logged_as_death():
    frail = make_profile(abilities={"str_score": 10, "dex_score": 10, "con_score": 1})
    a = state("a", "A", frail, ROW, (0, 0), 0, hp=0)
    t = state("t", "B", make_profile(name="T", hp_max=30), ROW, (0, 1), 1)
    b = battle(ROW, [a, t], {"attack": [15], "damage": [5]})
    b.take_turn(a)
    assert a.dead
    said = [m for _r, actor, m, _rolls in lines(b.fight.log) if actor == "a"]
    assert not any("mourant" in m for m in said), said
    assert "meurt" in said, said


class _Waiter:
    def decide(self, obs):
        return TurnPlan((WaitAction(),))


class _CacheVandal:
    """Waits, but tries to write into whatever map it can reach from its observation."""

    def decide(self, obs):
        assert not hasattr(obs, "gmap") and not hasattr(obs.map, "cache")
        with pytest.raises(AttributeError):
            obs.map.terrain = ()
        return TurnPlan((WaitAction(),))


def _slow_fight(policy_a):
    gmap = make_map([".........."])
    a = state("a", "A", make_profile(hp_max=200), gmap, (0, 0), 0)
    t = state("t", "B", make_profile(name="T", speed_land_ft=10), gmap, (0, 9), 1)
    pol = {"A": policy_a, "B": HeuristicPolicy()}
    return Battle(gmap, [a, t], ("A", "B"), SeededRng(7), pol, round_cap=6, record=True).run()


def test_mutating_the_observation_map_cache_does_not_change_the_fight():
    assert _slow_fight(_CacheVandal()).log == _slow_fight(_Waiter()).log
