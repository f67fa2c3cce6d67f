"""The coup de grâce (SRD « Coup de Grâce »), with scripted dice keyed by kind.

A full-round action against an adjacent helpless target: an automatic critical
hit (no attack die), then a Fortitude save against DC 10 + the damage dealt or
death; it provokes attacks of opportunity; the menu offers it, the heuristic
takes it when nothing else threatens it.
"""

from __future__ import annotations

import pytest
from builders import battle, make_map, make_profile, melee, messages, ranged, state

from engine.content.actions import (
    CoupDeGraceAction,
    Reason,
    action_to_dict,
    parse_action,
)
from engine.rules.coup_de_grace import verify_coup_de_grace
from engine.rules.economy import filter_plan
from engine.rules.status import give_condition
from engine.state.effects import Cond
from engine.turn.battle import Battle
from policies import HeuristicPolicy
from policies.llm import HIDDEN_KINDS, shown_options
from policies.tactics import option_figures

ROW = make_map(["......"])


def _pair(hp: int = 20, cond: str | None = "paralyzed", **foe_kw):
    me = state("me", "A", make_profile(name="Killer"), ROW, (0, 0))
    foe = state("foe", "B", make_profile(name="Victim", hp_max=hp, **foe_kw), ROW, (0, 1), 1)
    return me, foe, cond


def _battle(me, foe, cond, dice, *others, policies=None) -> Battle:
    b = battle(ROW, [me, foe, *others], dice, policies=policies)
    if cond is not None:
        give_condition(b.fight, foe, cond, None, effect="test")
    return b


def test_an_automatic_critical_then_a_failed_fortitude_save_kills():
    me, foe, cond = _pair()
    b = _battle(me, foe, cond, {"damage": [4, 5], "save": [10]})  # no attack die
    result = b.dispatch(me, CoupDeGraceAction(target_id="foe", weapon_id="sword"))
    assert result.ok and foe.dead and foe.hp == 11
    assert messages(b)[1:] == [
        "coup de grâce sur foe (sword) : critique automatique ×2, 9 dégâts (foe 11/20 pv)"
        " ; Vigueur DD 19 ou meurt",
        "jet de Vigueur contre coup de grâce d20=10+0=10 vs DD 19 -> échec (marge -9)",
        "meurt",
    ]
    assert (me.hits, me.crits, me.damage_dealt, me.melee_swings) == (1, 1, 9, 0)


def test_a_successful_save_survives_the_damage():
    me, foe, cond = _pair()
    b = _battle(me, foe, cond, {"damage": [1, 1], "save": [20]})
    assert b.dispatch(me, CoupDeGraceAction(target_id="foe")).ok
    assert not foe.dead and foe.hp == 18
    assert messages(b)[-1].startswith("jet de Vigueur contre coup de grâce d20=20+0=20 vs DD 12")


def test_damage_that_kills_needs_no_save():
    me, foe, cond = _pair(hp=5)
    b = _battle(me, foe, cond, {"damage": [8, 8]})  # no save die: none is rolled
    assert b.dispatch(me, CoupDeGraceAction(target_id="foe")).ok and foe.dead
    assert messages(b)[-2:] == [
        "coup de grâce sur foe (sword) : critique automatique ×2, 16 dégâts (foe -11/5 pv)",
        "meurt",
    ]


def test_the_save_counts_the_damage_after_damage_reduction_and_the_weapon_multiplier():
    me = state("me", "A", make_profile(attacks=[melee("axe", crit_mult=3)]), ROW, (0, 0))
    foe = state(
        "foe", "B", make_profile(hp_max=40, dr={"amount": 5, "bypass": "magic"},
                                 saves={"fort": 4, "ref": 0, "will": 0}),
        ROW, (0, 1), 1,
    )  # fmt: skip
    b = _battle(me, foe, "asleep", {"damage": [6, 6, 6], "save": [16]})
    assert b.dispatch(me, CoupDeGraceAction(target_id="foe")).ok
    # 3 × 6 = 18, DR 5 → 13 dealt: DC 23; 16 + 4 = 20 fails
    assert foe.dead and foe.hp == 27
    assert "×3, 13 dégâts (RD absorbe 5)" in messages(b)[1]


def test_a_sleeper_that_survives_wakes_up():
    me, foe, _ = _pair()
    b = _battle(me, foe, "asleep", {"damage": [1, 1], "save": [20]})
    b.dispatch(me, CoupDeGraceAction(target_id="foe"))
    assert not foe.effects.cond & Cond.ASLEEP.value and messages(b)[-1] == "n'est plus endormi"


@pytest.mark.parametrize(
    ("cond", "pos", "weapon", "reason"),
    [
        (None, (0, 1), "sword", Reason.NOT_HELPLESS),  # not helpless
        ("shaken", (0, 1), None, Reason.NOT_HELPLESS),
        ("paralyzed", (0, 2), "sword", Reason.WEAPON_UNAVAILABLE),  # not in reach
        ("paralyzed", (0, 2), None, Reason.NO_WEAPON),
        ("paralyzed", (0, 1), "nope", Reason.WEAPON_UNAVAILABLE),
        ("paralyzed", (0, 3), "bow", Reason.WEAPON_UNAVAILABLE),  # a bow only adjacent
    ],
)
def test_refusals(cond, pos, weapon, reason):
    me = state("me", "A", make_profile(attacks=[melee(), ranged()]), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, pos, 1)
    b = _battle(me, foe, cond, None)
    action = CoupDeGraceAction(target_id="foe", weapon_id=weapon)
    assert verify_coup_de_grace(ROW, b.fight, me, action) is reason
    assert b.dispatch(me, action).reason == reason
    assert verify_coup_de_grace(ROW, b.observe(me), b.observe(me).actor, action) is reason


def test_a_bow_next_to_the_target_and_a_reach_weapon_two_squares_away_can():
    archer = state("me", "A", make_profile(attacks=[ranged()]), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    b = _battle(archer, foe, "paralyzed", None)
    plan = verify_coup_de_grace(ROW, b.fight, archer, CoupDeGraceAction(target_id="foe"))
    assert not isinstance(plan, Reason) and plan.attack.id == "bow"
    pike = state("me", "A", make_profile(attacks=[melee("pike", reach_weapon=True)]), ROW, (0, 0))
    far = state("foe", "B", make_profile(), ROW, (0, 2), 1)
    b = _battle(pike, far, "paralyzed", None)
    plan = verify_coup_de_grace(ROW, b.fight, pike, CoupDeGraceAction(target_id="foe"))
    assert not isinstance(plan, Reason) and plan.attack.id == "pike"


def test_a_dead_or_dying_target_is_down():
    me, foe, cond = _pair()
    b = _battle(me, foe, cond, None)
    foe.hp = -1
    foe.refresh()
    assert b.dispatch(me, CoupDeGraceAction(target_id="foe")).reason == Reason.TARGET_DOWN


def test_it_provokes_attacks_of_opportunity_before_the_blow():
    gmap = make_map(["......", "......"])
    me = state("me", "A", make_profile(name="Killer"), gmap, (0, 0))
    foe = state("foe", "B", make_profile(name="Victim", hp_max=20), gmap, (0, 1), 1)
    guard = state("guard", "B", make_profile(name="Guard"), gmap, (1, 0), 2)
    b = battle(gmap, [me, foe, guard], {"attack": [2], "damage": [1, 1], "save": [20]})
    give_condition(b.fight, foe, "paralyzed", None, effect="test")
    assert b.dispatch(me, CoupDeGraceAction(target_id="foe")).ok
    lines = messages(b)
    assert lines[1] == "attaque d'opportunité contre me (porte un coup de grâce)"
    assert lines[2].startswith("sword vs me d20=2")
    assert lines[3].startswith("coup de grâce sur foe")


def test_an_attacker_felled_by_the_attack_of_opportunity_delivers_nothing():
    gmap = make_map(["......", "......"])
    me = state("me", "A", make_profile(name="Killer"), gmap, (0, 0), hp=1)
    foe = state("foe", "B", make_profile(name="Victim", hp_max=20), gmap, (0, 1), 1)
    guard = state("guard", "B", make_profile(name="Guard"), gmap, (1, 0), 2)
    b = battle(gmap, [me, foe, guard], {"attack": [15], "damage": [8]})
    give_condition(b.fight, foe, "paralyzed", None, effect="test")
    result = b.dispatch(me, CoupDeGraceAction(target_id="foe"))
    assert result.reason == Reason.ACTOR_DOWN and foe.hp == 20


def test_a_full_round_action_a_creature_with_one_action_cannot_take():
    kept, results = filter_plan((CoupDeGraceAction(target_id="foe"),), staggered=True)
    assert kept == [False] and results[0] is not None
    assert results[0].reason == Reason.DOWNGRADED_STAGGERED
    me, foe, cond = _pair()
    b = _battle(me, foe, cond, None)
    give_condition(b.fight, me, "staggered", None, effect="test")
    assert not [o for o in b.observe(me).legal_options if o.id.startswith("coup_de_grace")]


def test_the_menu_offers_it_per_weapon_and_the_action_round_trips():
    me = state("me", "A", make_profile(attacks=[melee(), ranged()]), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    b = _battle(me, foe, "helpless", None)
    ids = [o.id for o in b.observe(me).legal_options]
    assert ids[:2] == ["coup_de_grace:foe:sword", "coup_de_grace:foe:bow"]
    action = CoupDeGraceAction(target_id="foe", weapon_id="bow")
    assert parse_action(action_to_dict(action)) == action
    assert action_to_dict(action) == {
        "kind": "coup_de_grace", "target_id": "foe", "weapon_id": "bow",
    }  # fmt: skip


@pytest.mark.parametrize("mine", [None, "staggered", "nauseated", "prone", "dazed", "paralyzed"])
def test_the_observation_gives_the_menus_coups_de_grace_without_the_menu(mine):
    me = state("me", "A", make_profile(attacks=[melee(), ranged()]), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    b = _battle(me, foe, "helpless", None)
    if mine is not None:
        give_condition(b.fight, me, mine, None, effect="test")
    obs = b.observe(me)
    menu = [o.id for o in obs.legal_options if o.id.startswith("coup_de_grace:foe:")]
    weapons = obs.coup_de_grace_weapons("foe")
    assert [f"coup_de_grace:foe:{a.id}" for a in weapons] == menu
    assert bool(menu) == (mine is None)


def test_the_heuristic_finishes_a_helpless_enemy_when_nothing_else_threatens_it():
    me, foe, cond = _pair()
    other = state("other", "B", make_profile(name="Other"), ROW, (0, 5), 2)
    b = _battle(me, foe, cond, {"damage": [4, 5], "save": [1]}, other)
    plan = HeuristicPolicy().decide(b.observe(me))
    assert plan.actions == (CoupDeGraceAction(target_id="foe", weapon_id="sword"),)
    b.take_turn(me)
    assert foe.dead


def test_threatened_by_another_enemy_the_heuristic_fights_it_instead():
    gmap = make_map(["......", "......"])
    me = state("me", "A", make_profile(name="Killer"), gmap, (0, 0))
    foe = state("foe", "B", make_profile(name="Victim"), gmap, (0, 1), 1)
    other = state("other", "B", make_profile(name="Other"), gmap, (1, 1), 2)
    b = battle(gmap, [me, foe, other])
    give_condition(b.fight, foe, "paralyzed", None, effect="test")
    plan = HeuristicPolicy().decide(b.observe(me))
    assert [a.kind for a in plan.actions] == ["full_attack"]
    assert plan.actions[0].target_id == "other"  # type: ignore[union-attr]


def test_the_model_is_shown_it_with_a_sure_hit_and_the_critical_damage():
    me, foe, cond = _pair()
    b = _battle(me, foe, cond, None)
    obs = b.observe(me)
    shown = {o.id: o for o in shown_options(obs, HIDDEN_KINDS)}
    option = shown["coup_de_grace:foe:sword"]
    assert option_figures(obs, option).text() == "toucher 100 % ; dégâts 9,0 ; foe 20/20 pv ; AO 0"
