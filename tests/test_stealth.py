"""Stealth in combat (SRD « Stealth », « Perception »; seed §3.24): the hide action,
what being hidden does, and how it ends. Dice are scripted: the hider's Stealth
d20 first, then each observer's Perception d20 in deployment order."""

from __future__ import annotations

import math
from fractions import Fraction

from builders import Plan, battle, make_map, make_profile, messages, ranged, state

from engine.content.actions import (
    AttackAction,
    ChargeAction,
    FiveFootStepAction,
    HideAction,
    MoveAction,
    RunAction,
)
from engine.core.rng import SeededRng
from engine.rules.stealth import sees_directly
from engine.view.options import legal_options
from harness.transcript import lines
from policies.heuristic import HeuristicPolicy
from policies.llm import HIDDEN_KINDS, shown_options
from policies.scripted import ScriptedPolicy, parse_script

#: a pillar (cover, not blocking line of effect) between (1,0) and (1,3)
PILLAR = make_map(["......", "..C...", "......"])
ROW = make_map(["........", "........"])
AC = {"total": 14, "touch": 12, "flat_footed": 12}
ARCHER = {"attacks": [ranged()]}  # threatens nothing: no attack of opportunity


def _scene(dice, hider_at=(1, 3), o_at=(1, 0), p_at=(1, 5), **hider):
    h = state("h", "A", make_profile(**hider), PILLAR, hider_at)
    o = state("o", "B", make_profile(**ARCHER), PILLAR, o_at, 1)
    p = state("p", "B", make_profile(**ARCHER), PILLAR, p_at, 2)
    return battle(PILLAR, [h, o, p], dice), h, o, p


def test_direct_sight_needs_line_of_effect_no_cover_no_concealment_and_eyes():
    at = PILLAR.cell
    assert sees_directly(PILLAR, at(1, 5), (), at(1, 3), ())
    assert not sees_directly(PILLAR, at(1, 0), (), at(1, 3), ())  # the pillar's cover
    assert not sees_directly(PILLAR, at(1, 5), ("blinded",), at(1, 3), ())
    assert not sees_directly(PILLAR, at(1, 5), (), at(1, 3), ("blurred",))
    walled = make_map(["...", ".#.", "..."])
    assert not sees_directly(walled, walled.cell(1, 0), (), walled.cell(1, 2), ())


def test_hide_rolls_against_observers_without_direct_sight_and_a_tie_keeps_it_hidden():
    # Stealth 12; o: Perception 13 − 1 (15 ft) = 12, which does not exceed 12
    b, h, _o, _p = _scene({"stealth": [12], "perception": [13]})
    res = b.dispatch(h, HideAction())
    assert (res.ok, res.reason) == (True, None)
    assert h.hidden_from == {"o"}
    assert messages(b) == [
        "se cache : Discrétion d20=12+0=12",
        "reste en vue de p (ni abri ni camouflage)",
        "Perception contre h d20=13-1=12 vs 12 -> ne le repère pas",
    ]


def test_an_observer_that_exceeds_the_stealth_result_notices():
    b, h, _o, _p = _scene({"stealth": [12], "perception": [14]})
    assert b.dispatch(h, HideAction()).ok
    assert h.hidden_from == set()
    assert messages(b)[-1] == "Perception contre h d20=14-1=13 vs 12 -> le repère"


def test_size_and_ranks_count_and_hiding_again_rolls_afresh():
    b, h, _o, _p = _scene(
        {"stealth": [5, 5], "perception": [20, 9]},
        size="Small",
        skills={"Stealth": {"rank": 2, "class_skill": True}},
    )
    b.dispatch(h, HideAction())  # 5 + 9 = 14 vs 20 − 1 = 19: seen
    assert h.hidden_from == set()
    b.dispatch(h, HideAction())  # 14 vs 9 − 1 = 8: hidden
    assert h.hidden_from == {"o"}


def test_hide_in_plain_sight_is_refused_without_a_die():
    b, h, _o, _p = _scene({}, hider_at=(0, 4), o_at=(0, 0), p_at=(2, 4))
    h.hidden_from = {"p"}
    res = b.dispatch(h, HideAction())
    assert (res.kind, res.ok, res.reason) == ("hide", False, "in_plain_sight")
    assert h.hidden_from == set()  # a refused hide leaves it hidden from no one


def test_hide_is_a_move_action_in_the_budget():
    b, h, _o, _p = _scene({"stealth": [10], "perception": [1]})
    b.fight.order = [h]
    b._policies = {"A": Plan(MoveAction(destination=(1, 4)), HideAction(), HideAction())}  # type: ignore[attr-defined]
    b.take_turn(h)
    assert [(r.kind, r.ok, r.reason) for r in h.last_results] == [
        ("move", True, None),
        ("hide", True, None),
        ("hide", False, "downgraded:action_economy"),
    ]


def _duel(dice, **foe):
    h = state("h", "A", make_profile(), ROW, (0, 0))
    o = state("o", "B", make_profile(ac=AC, hp_max=30, **foe), ROW, (0, 1), 1)
    h.hidden_from = {"o"}
    return battle(ROW, [h, o], dice), h, o


def test_the_fooled_observer_has_a_50_percent_miss_chance_against_the_hider():
    b, h, o = _duel({"attack": [15], "miss_chance": [50]})
    b.dispatch(o, AttackAction(target_id="h"))
    assert messages(b)[-1] == (
        "sword vs h d20=15+0=15 CA 10 -> TOUCHÉ, mais camouflage : d100=50 ≤ 50 % -> RATÉ"
    )
    assert h.hidden_from == {"o"}  # being attacked does not reveal it


def test_the_hider_attacks_at_2_against_a_target_without_dex_then_is_revealed():
    b, h, _o = _duel({"attack": [10], "damage": [3]})
    b.dispatch(h, AttackAction(target_id="o"))
    assert messages(b) == [
        "n'est plus caché (attaque)",
        "sword vs o d20=10+2=12 CA 12 (sans Dex -2) -> TOUCHÉ : 3 dégâts (o 27/30 pv)",
    ]
    assert h.hidden_from == set()


def test_no_attack_of_opportunity_from_a_fooled_observer_who_then_sees_it():
    b, h, _o = _duel({})
    assert b.dispatch(h, MoveAction(destination=(0, 5))).ok
    log = messages(b)
    assert log[0] == (
        "attaque d'opportunité impossible contre h (quitte une case menacée) : camouflage total"
    )
    assert log[-1] == "n'est plus caché de o (vu)"
    assert h.pos == ROW.cell(0, 5)
    assert h.hidden_from == set()


def test_moving_behind_cover_rerolls_at_minus_5():
    # Stealth 15 − 5 = 10; o: 12 − 2 (20 ft) = 10 → still hidden
    b, h, _o, _p = _scene({"stealth": [15], "perception": [12]}, p_at=(0, 5))
    h.hidden_from = {"o", "p"}
    b.dispatch(h, FiveFootStepAction(destination=(1, 4)))
    assert h.hidden_from == {"o"}
    assert messages(b)[1:] == [  # observers in deployment order
        "se déplace caché : Discrétion d20=15-5=10",
        "Perception contre h d20=12-2=10 vs 10 -> ne le repère pas",
        "n'est plus caché de p (vu)",
    ]
    b2, h2, _o2, _p2 = _scene({"stealth": [10], "perception": [12]}, p_at=(0, 5))
    h2.hidden_from = {"o"}
    b2.dispatch(h2, FiveFootStepAction(destination=(1, 4)))
    assert h2.hidden_from == set()


def test_running_and_charging_break_stealth_before_moving():
    b, h, _o, _p = _scene({})
    h.hidden_from = {"o"}
    b.dispatch(h, RunAction(destination=(2, 3)))
    assert messages(b)[0] == "n'est plus caché (course)"
    assert h.hidden_from == set()
    brawler = state("h", "A", make_profile(), ROW, (0, 0))
    foe = state("o", "B", make_profile(hp_max=30), ROW, (0, 4), 1)
    brawler.hidden_from = {"o"}
    b = battle(ROW, [brawler, foe], {"attack": [1]})
    b.dispatch(brawler, ChargeAction(target_id="o"))
    assert messages(b)[0] == "n'est plus caché (charge)"
    assert "attaquant caché" not in str(lines(b.fight.log))  # the charge attack no longer benefits


def test_an_observer_that_walks_into_direct_sight_drops_it():
    b, h, o, _p = _scene({}, p_at=(0, 5))
    h.hidden_from = {"o"}
    b.dispatch(o, MoveAction(destination=(2, 3)))
    assert h.hidden_from == set()
    assert messages(b)[-1] == "n'est plus caché de o (vu)"


def test_observation_lists_hidden_from_sorted_and_the_menu_offers_hide_hidden_from_the_llm():
    b, h, _o, _p = _scene({})
    h.hidden_from = {"p", "o"}
    obs = b.observe(h)
    assert obs.actor.hidden_from == ("o", "p")
    assert obs.to_dict()["combatants"][0]["hidden_from"] == ["o", "p"]
    ids = [o.id for o in legal_options(obs, PILLAR)]
    assert "hide" in ids
    assert "hide" not in [o.id for o in shown_options(obs, HIDDEN_KINDS)]
    b2, h2, _o2, _p2 = _scene({}, hider_at=(0, 4), o_at=(0, 0), p_at=(2, 4))
    assert "hide" not in [o.id for o in legal_options(b2.observe(h2), PILLAR)]


def test_scripted_policy_can_hide_and_the_heuristic_never_does():
    script = parse_script("rules:\n  - do: hide\n")
    b, h, _o, _p = _scene({})
    plan = ScriptedPolicy(script).decide(b.observe(h))
    assert plan.actions == (HideAction(),)
    assert not any(
        isinstance(a, HideAction) for a in HeuristicPolicy().decide(b.observe(h)).actions
    )


def test_hiding_chance_matches_the_exact_probability():
    # Stealth +0 vs Perception +0 at 15 ft (−1): hidden when p − 1 ≤ s
    exact = Fraction(sum(1 for s in range(1, 21) for p in range(1, 21) if p - 1 <= s), 400)
    n = 4000
    hidden = 0
    for seed in range(n):
        b, h, _o, _p = _scene(SeededRng(seed))
        b.fight.log = None
        b.dispatch(h, HideAction())
        hidden += h.hidden_from == {"o"}
    p = float(exact)
    assert abs(hidden / n - p) <= 3 * math.sqrt(p * (1 - p) / n), (hidden / n, p)


def test_the_menu_offers_hide_to_big_creatures_exactly_when_the_engine_accepts_it():
    # the menu once judged direct sight between anchor squares only: the wall
    # hides the pike's anchor from the ogre's, but another pair of their squares
    # sees plainly, so the engine refused the hide it offered
    walls = make_map(["." * 12] * 4 + ["...#..#....."] * 2 + ["." * 12] * 4)
    big = make_profile(name="Big", size="Large")
    ogre = state("ogre", "B", big, walls, (6, 1))
    pike = state("pike", "A", big, walls, (4, 4), 1)
    assert not sees_directly(walls, ogre.pos, (), pike.pos, ())
    assert sees_directly(walls, ogre.pos, (), pike.pos, (), (2, 2))
    b = battle(walls, [ogre, pike])
    assert "hide" not in [o.id for o in legal_options(b.observe(pike), walls)]
    res = b.dispatch(pike, HideAction())
    assert (res.ok, res.reason) == (False, "in_plain_sight")
