"""Fight loop: initiative order, victory, round cap, plan results, policy contract."""

from __future__ import annotations

from builders import Plan, battle, make_map, make_profile, state

from engine.content.actions import SwiftAction, TurnPlan, WaitAction
from engine.core.rng import ScriptedDice, SeededRng
from engine.turn.battle import Battle
from harness.transcript import lines
from policies import HeuristicPolicy

ROW = make_map(["......"])


def fresh(gmap, specs, rng, policies=None, round_cap=100):
    states = [state(i, s, make_profile(**kw), gmap, p, n) for n, (i, s, p, kw) in enumerate(specs)]
    sides = tuple(dict.fromkeys(c.side for c in states))
    pol = policies or {s: HeuristicPolicy() for s in sides}
    return Battle(gmap, states, sides, rng, pol, round_cap=round_cap, record=True), states


def test_initiative_sorted_on_total_then_modifier_then_list_order():
    specs = [
        ("a", "A", (0, 0), {"initiative_mod": 0}),
        ("b", "A", (0, 1), {"initiative_mod": 2}),
        ("c", "B", (0, 4), {"initiative_mod": 0}),
        ("d", "B", (0, 5), {"initiative_mod": 1}),
    ]
    b, _ = fresh(ROW, specs, ScriptedDice({"initiative": [10, 8, 10, 9]}))
    b.roll_initiative()
    # totals: a 10, b 10 (mod 2), c 10, d 10 (mod 1)
    assert [c.id for c in b.fight.order] == ["b", "d", "a", "c"]
    assert lines(b.fight.log)[0][2] == "initiative : a d20=10+0=10"


def test_victory_when_one_side_has_no_active_combatant():
    specs = [("a", "A", (0, 0), {}), ("t", "B", (0, 1), {"hp_max": 1})]
    b, _ = fresh(ROW, specs, ScriptedDice({"initiative": [20, 1], "attack": [15], "damage": [4]}))
    result = b.run()
    assert result.winner == "A" and result.rounds == 1
    assert lines(result.log)[-1][2] == "combat terminé : victoire de A en 1 round"


def test_round_cap_is_a_draw():
    gmap = make_map(["..#.."])
    specs = [("a", "A", (0, 0), {}), ("t", "B", (0, 4), {})]
    b, _ = fresh(gmap, specs, SeededRng(3), round_cap=5)
    result = b.run()
    assert result.winner is None and result.rounds == 5
    assert lines(result.log)[-1][2] == "combat terminé : nul (plafond de 5 rounds atteint)"


def test_plan_results_are_reported_in_plan_order():
    specs = [("a", "A", (0, 0), {}), ("t", "B", (0, 5), {})]
    plan = Plan(SwiftAction(), WaitAction(), WaitAction())
    b, (a, _t) = fresh(ROW, specs, ScriptedDice(), policies={"A": plan, "B": Plan()})
    b.fight.round = 1
    b.take_turn(a)
    assert [(r.kind, r.ok, r.reason) for r in a.last_results] == [
        ("swift", False, "unsupported_kind"),
        ("wait", True, None),
        ("wait", True, None),
    ]


def test_policy_sees_its_last_turn_results():
    seen = []

    class Recorder:
        def decide(self, obs):
            seen.append([r.to_dict() for r in obs.last_turn_results])
            return TurnPlan((WaitAction(), SwiftAction()))

    specs = [("a", "A", (0, 0), {}), ("t", "B", (0, 5), {})]
    b, (a, _t) = fresh(ROW, specs, ScriptedDice(), policies={"A": Recorder(), "B": Plan()})
    b.fight.round = 1
    b.take_turn(a)
    b.take_turn(a)
    assert seen[0] == []
    assert seen[1][1] == {"kind": "swift", "ok": False, "reason": "unsupported_kind"}


def test_battle_helper_builds_a_ready_battle():
    a = state("a", "A", make_profile(), ROW, (0, 0), 0)
    b = battle(ROW, [a])
    assert b.fight.round == 1 and b.fight.order == [a]
