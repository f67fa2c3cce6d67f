"""What conditions forbid, in the menu, the engine and the policies, and what the
Observation shows of them.

SRD « Nauseated » (one move action), « Staggered » (one move or standard
action), « Grappled » (cannot move), « Entangled » / « Exhausted » (half speed),
« Fatigued » (no run, no charge), « Stunned » (cannot act). The menu asks the
engine's own gate (:func:`engine.rules.status.gate`) and budget filter, so it never
offers what the engine would refuse; the policies plan within the same limits.
"""

from __future__ import annotations

import pytest
from builders import battle, make_map, make_profile, melee, ranged, state

from engine.content.actions import ChargeAction, MoveAction, Reason, RunAction, WaitAction
from engine.rules.attack import PRONE_EFFECT
from engine.rules.status import give_condition
from engine.run.schemas import ObservationModel
from engine.state.effects import Moment, add_effect, tick
from engine.turn.battle import Battle
from engine.view.observation import Observation
from policies import HeuristicPolicy
from policies.llm import LLMPolicy, conditions_text
from policies.scripted import ScriptedPolicy, parse_script
from policies.strategy import StrategyPolicy, StrategySpec

OPEN = make_map(["." * 14] * 5)


def _fight(me_at=(2, 2), foe_at=(2, 10), *, me_profile=None) -> tuple[Battle, object, object]:
    profile = me_profile or make_profile(attacks=[melee(), ranged(inc=30)])
    me = state("me", "A", profile, OPEN, me_at)
    foe = state("foe", "B", make_profile(), OPEN, foe_at, 1)
    return battle(OPEN, [me, foe]), me, foe


def _ids(obs: Observation) -> list[str]:
    return [o.id for o in obs.legal_options]


def _kinds(obs: Observation) -> set[str]:
    return {o.id.split(":")[0] for o in obs.legal_options}


def test_a_creature_that_cannot_act_may_only_wait():
    b, me, _foe = _fight(foe_at=(2, 3))
    give_condition(b.fight, me, "stunned", 2, effect="test")
    assert _ids(b.observe(me)) == ["wait"]


def test_nauseated_one_move_action_and_waiting():
    b, me, _foe = _fight()
    give_condition(b.fight, me, "nauseated", 2, effect="test")
    obs = b.observe(me)
    assert _kinds(obs) == {"move", "wait"}  # no attack, no withdraw (a standard action)
    add_effect(me, PRONE_EFFECT)
    assert _kinds(b.observe(me)) == {"stand_up", "wait"}
    # what it may do the engine does, what it may not it drops
    b.fight.rng = type(b.fight.rng)({"attack": [1]})
    b._policies = {"A": HeuristicPolicy()}
    b.take_turn(me)
    assert [r.ok for r in me.last_results] == [True]


def test_staggered_one_action_menu_as_a_disabled_creature():
    b, me, _foe = _fight()
    give_condition(b.fight, me, "staggered", 2, effect="test")
    kinds = _kinds(b.observe(me))
    assert {"attack", "move", "withdraw", "total_defense"} <= kinds
    assert not kinds & {"full_attack", "charge", "run", "move_attack", "step_full_attack"}
    assert b.observe(me).option("withdraw").label == "retraite restreinte"  # type: ignore[union-attr]


def test_unable_to_move_no_movement_option_and_the_engine_refuses_one():
    b, me, _foe = _fight(foe_at=(2, 3))
    give_condition(b.fight, me, "grappled", 2, effect="test")
    obs = b.observe(me)
    assert not _kinds(obs) & {"move", "charge", "run", "withdraw", "move_attack", "tumble"}
    assert "full_attack:foe:bow" in _ids(obs)
    assert not obs.can_withdraw() and not obs.charge("foe").ok
    result = b.dispatch(me, MoveAction(target_id="foe"))
    assert result.reason == Reason.CANNOT_MOVE


def test_fatigued_no_run_and_no_charge_but_a_move():
    for foe_at, kind in (((2, 8), "charge"), ((4, 13), "run")):
        b, me, _foe = _fight(me_at=(0, 0), foe_at=foe_at)
        assert kind in _kinds(b.observe(me))
        give_condition(b.fight, me, "fatigued", None, effect="test")
        obs = b.observe(me)
        assert not _kinds(obs) & {"charge", "run"} and "move" in _kinds(obs)
        assert obs.charge("foe").reason == Reason.CANNOT_RUN_OR_CHARGE
        assert not obs.pair("foe").can_charge
        action = ChargeAction(target_id="foe") if kind == "charge" else RunAction(target_id="foe")
        assert b.dispatch(me, action).reason == Reason.CANNOT_RUN_OR_CHARGE


@pytest.mark.parametrize(
    ("conditions", "hp", "speed"),
    [
        ((), 10, 30),
        (("entangled",), 10, 15),
        (("exhausted",), 10, 15),
        (("entangled", "exhausted"), 10, 15),  # halved once
        (("entangled",), 0, 15),  # disabled and entangled: halved once
    ],
)
def test_half_speed_halves_once(conditions, hp, speed):
    b, me, _foe = _fight()
    me.hp = hp
    me.refresh()
    for name in conditions:
        give_condition(b.fight, me, name, None, effect="test")
    assert me.speed_ft == speed and b.observe(me).actor.speed_effective_ft == speed
    plan = b.dispatch(me, MoveAction(destination=(2, 2 + speed // 5)))
    assert plan.ok and me.pos == OPEN.cell(2, 2 + speed // 5)


def test_the_observation_lists_conditions_effects_bleed_and_definitions():
    b, me, foe = _fight()
    give_condition(b.fight, me, "shaken", 3, effect="aura", origin=foe)
    give_condition(b.fight, me, "bleeding", None, effect="plaie", bleed=2)
    add_effect(me, PRONE_EFFECT)
    data = b.observe(foe).to_dict()
    ObservationModel(**data)  # the exported schema describes it
    view = next(c for c in data["combatants"] if c["id"] == "me")
    assert view["conditions"] == [
        {"name": "bleeding", "rounds_left": None},
        {"name": "prone", "rounds_left": None},
        {"name": "shaken", "rounds_left": 3},
    ]
    assert view["bleed"] == 2
    shaken = next(e for e in view["active_effects"] if e["source"] == "cond:shaken")
    assert shaken["rounds_left"] == 3 and shaken["against"] is None
    assert {"stat": "attack", "value": -2, "type": "untyped"} in shaken["modifiers"]
    names = [d["name"] for d in data["condition_definitions"]]
    assert len(names) == 29 and names == sorted(names)
    other = next(c for c in data["combatants"] if c["id"] == "foe")
    assert other["conditions"] == [] and other["active_effects"] == [] and other["bleed"] == 0


def test_an_observation_keeps_the_rounds_left_it_was_built_with():
    b, me, foe = _fight()
    give_condition(b.fight, me, "shaken", 3, effect="aura", origin=foe)
    before = b.observe(me)
    tick(foe, Moment.TURN_START)  # the giver's turn: one round less
    after = b.observe(me)
    assert before.actor.condition_states() == [{"name": "shaken", "rounds_left": 3}]
    assert after.actor.condition_states() == [{"name": "shaken", "rounds_left": 2}]


def test_the_llm_prompt_shows_conditions_in_french_only_when_there_are():
    b, me, foe = _fight()
    policy = LLMPolicy(model=None)  # type: ignore[arg-type]
    plain = policy.messages(b.observe(me))[1].content
    assert "état" not in plain
    give_condition(b.fight, me, "shaken", 2, effect="aura", origin=foe)
    give_condition(b.fight, foe, "paralyzed", None, effect="test")
    assert conditions_text(b.observe(me).actor) == "secoué 2 rounds"
    text = policy.messages(b.observe(me))[1].content
    assert "état : secoué 2 rounds." in text and "à 40 pieds (paralysé)" in text


@pytest.mark.parametrize("name", ["nauseated", "staggered", "grappled", "entangled", "fatigued"])
@pytest.mark.parametrize("where", [(2, 3), (2, 10)])
def test_the_policies_play_within_the_limits(name, where):
    policies = [
        HeuristicPolicy(),
        StrategyPolicy(StrategySpec()),
        ScriptedPolicy(parse_script("rules:\n  - do: charge\n  - do: full_attack\n")),
    ]
    for policy in policies:
        b, me, _foe = _fight(foe_at=where)
        give_condition(b.fight, me, name, 2, effect="test")
        b._policies = {"A": policy, "B": HeuristicPolicy()}
        b.fight.rng = type(b.fight.rng)({"attack": [1, 1, 1]})
        b.take_turn(me)
        assert all(r.ok for r in me.last_results), (policy, me.last_results)


def test_the_heuristic_waits_when_it_can_do_nothing():
    b, me, _foe = _fight(foe_at=(2, 3))
    give_condition(b.fight, me, "nauseated", 2, effect="test")
    assert HeuristicPolicy().decide(b.observe(me)).actions == (WaitAction(),)
    b, me, _foe = _fight(me_profile=make_profile())
    give_condition(b.fight, me, "grappled", 2, effect="test")
    assert HeuristicPolicy().decide(b.observe(me)).actions == (WaitAction(),)


def test_a_script_may_deliver_a_coup_de_grace():
    b, me, foe = _fight(foe_at=(2, 3))
    give_condition(b.fight, foe, "asleep", None, effect="test")
    policy = ScriptedPolicy(parse_script("rules:\n  - do: coup_de_grace\n    weapon: sword\n"))
    plan = policy.decide(b.observe(me))
    assert [a.kind for a in plan.actions] == ["coup_de_grace"] and plan.rationale is not None
    assert "coup de grâce sur foe (sword)" in plan.rationale


def test_asked_anyway_no_policy_acts_for_a_creature_that_cannot_act():
    scripted = ScriptedPolicy(parse_script("rules:\n  - do: full_attack\n"))
    for policy in (HeuristicPolicy(), StrategyPolicy(StrategySpec()), scripted):
        b, me, _foe = _fight(foe_at=(2, 3))
        give_condition(b.fight, me, "stunned", 2, effect="test")
        assert policy.decide(b.observe(me)).actions == (WaitAction(),), policy


def test_the_strategy_policy_finishes_a_helpless_enemy_too():
    b, me, foe = _fight(foe_at=(2, 3))
    give_condition(b.fight, foe, "paralyzed", None, effect="test")
    plan = StrategyPolicy(StrategySpec()).decide(b.observe(me))
    assert [a.kind for a in plan.actions] == ["coup_de_grace"]
