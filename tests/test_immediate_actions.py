"""Immediate actions and the opt-in reaction policy (SRD « Immediate Actions »).

Phase 0 has no spell or feat with an immediate effect: these tests drive the
hook with a scripted reaction policy and check the budget. On its own turn an
immediate action uses the turn's swift action; off-turn it uses the next
turn's, and no other swift or immediate action is possible until after that
turn. A flat-footed creature (before its first turn) cannot take one.
"""

from __future__ import annotations

from builders import Plan, battle, make_map, make_profile, messages, state

from engine.content.actions import (
    AttackAction,
    ImmediateAction,
    MoveAction,
    Reason,
    SwiftAction,
)
from engine.core.rng import ScriptedDice
from engine.rules.readiness import ReactionEvent

ROW = make_map(["......"])


class Reactor:
    """Records every question; answers with an immediate action for ``who`` on ``kind``."""

    def __init__(self, who: str | None = None, kind: str = "damage_taken") -> None:
        self.who, self.kind = who, kind
        self.asked: list[tuple[str, ReactionEvent]] = []

    def react(self, obs, event):
        self.asked.append((obs.acting_id, event))
        if obs.acting_id == self.who and event.kind == self.kind:
            return ImmediateAction()
        return None


def _pair(dice, reactor):
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    b = battle(ROW, [me, foe], dice)
    b.reaction_policy = reactor
    return b, me, foe


def test_no_reaction_policy_changes_nothing():
    b, me, foe = _pair({"attack": [15], "damage": [3]}, None)
    me.has_acted = True
    b.dispatch(foe, AttackAction(target_id="me"))
    assert not me.immediate_used and len(messages(b)) == 1


def test_events_reach_the_policy_and_an_off_turn_immediate_uses_the_next_swift():
    reactor = Reactor("me")
    b, me, foe = _pair({"attack": [15], "damage": [3]}, reactor)
    me.has_acted = foe.has_acted = True
    b.dispatch(foe, AttackAction(target_id="me"))
    kinds = [(who, e.kind) for who, e in reactor.asked]
    # attack_resolved is offered to both (initiative order); damage_taken too, me takes it
    assert kinds == [
        ("me", "attack_resolved"),
        ("foe", "attack_resolved"),
        ("me", "damage_taken"),
    ]
    assert reactor.asked[-1][1] == ReactionEvent("damage_taken", "foe", "me", 3)
    assert messages(b)[-1] == "action immédiate (en réaction : damage_taken)"
    assert me.immediate_used
    assert b.observe(me).combatant("me").to_dict()["immediate_used"] is True
    # no second immediate before its next turn is over
    reactor.asked.clear()
    b.fight.rng = ScriptedDice({"attack": [15], "damage": [3]})
    b.dispatch(foe, AttackAction(target_id="me"))
    assert [who for who, _e in reactor.asked] == ["foe", "foe"]
    # its next turn has no swift action; then everything is back
    b._policies = {"A": Plan(SwiftAction(), ImmediateAction())}
    b.take_turn(me)
    assert [r.reason for r in me.last_results] == [
        Reason.DOWNGRADED_IMMEDIATE_SWIFT,
        Reason.DOWNGRADED_IMMEDIATE_SWIFT,
    ]
    assert not me.immediate_used


def test_on_its_own_turn_an_immediate_action_is_its_swift_action():
    b, me, _foe = _pair({}, None)
    b._policies = {"A": Plan(ImmediateAction(), SwiftAction())}
    b.take_turn(me)
    assert [(r.ok, r.reason) for r in me.last_results] == [
        (True, None),
        (False, Reason.DOWNGRADED_IMMEDIATE_SWIFT),
    ]
    assert messages(b) == [
        "action immédiate",
        "action refusée : swift (downgraded:immediate_swift)",
    ]
    assert not me.immediate_used
    b._policies = {"A": Plan(SwiftAction(), ImmediateAction())}
    b.take_turn(me)
    assert me.last_results[1].reason == Reason.DOWNGRADED_ACTION_ECONOMY
    # after an immediate on its own turn, one off-turn immediate is still possible
    b._policies = {"A": Plan(ImmediateAction())}
    b.take_turn(me)
    b.reaction_policy = Reactor("me", "attack_resolved")
    b.fight.rng = ScriptedDice({"attack": [2]})
    b.dispatch(_foe, AttackAction(target_id="me"))
    assert me.immediate_used


def test_a_reaction_during_its_own_turn_uses_this_turns_swift_action():
    reactor = Reactor("me", "movement_step")
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 5), 1)
    b = battle(ROW, [me, foe], policies={"A": Plan(MoveAction(target_id="foe"), ImmediateAction())})
    b.reaction_policy = reactor
    b.take_turn(me)
    assert me.pos == ROW.cell(0, 4)
    assert messages(b)[:2] == [
        "déplacement (0,0)->(0,1)",
        "action immédiate (en réaction : movement_step)",
    ]
    # its own immediate action comes too late: the swift action is spent
    assert me.last_results[1] == (
        me.last_results[1].__class__("immediate", False, Reason.DOWNGRADED_IMMEDIATE_SWIFT)
    )
    assert not me.immediate_used


def test_flat_footed_creatures_are_not_asked_and_one_reaction_per_event():
    reactor = Reactor("nobody", "attack_resolved")
    b, me, foe = _pair({"attack": [2]}, reactor)
    b.dispatch(foe, AttackAction(target_id="me"))
    assert reactor.asked == []  # neither has had a turn yet

    class Everyone(Reactor):
        def react(self, obs, event):
            self.asked.append((obs.acting_id, event))
            return ImmediateAction()

    everyone = Everyone()
    b.reaction_policy = everyone
    me.has_acted = foe.has_acted = True
    b.fight.rng = ScriptedDice({"attack": [2]})
    b.dispatch(foe, AttackAction(target_id="me"))
    assert [who for who, _e in everyone.asked] == ["me"]
    assert me.immediate_used and not foe.immediate_used


def test_a_reaction_that_is_not_an_immediate_action_is_refused():
    class Wrong(Reactor):
        def react(self, obs, event):
            return AttackAction(target_id="foe")

    b, me, foe = _pair({"attack": [2]}, Wrong())
    me.has_acted = True
    b.dispatch(foe, AttackAction(target_id="me"))
    assert "réaction refusée : attack (unsupported_kind)" in messages(b)
    assert not me.immediate_used
