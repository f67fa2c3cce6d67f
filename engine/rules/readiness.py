"""Off-turn actions and their budgets: ready, aid another, immediate actions, run endurance.

* **Ready** (SRD « Ready »): a standard action that holds one attack until a
  trigger happens before the readier's next turn: ``enemy_enters_reach`` (an
  enemy's movement step ends in a square the readier threatens),
  ``enemy_attacks`` (an enemy is about to make an attack roll: the readied
  attack comes first, and the enemy's attack is lost if it falls),
  ``enemy_hits_ally`` (after an enemy's hit on an ally of the readier) and
  ``enemy_casts`` (accepted, but no one casts spells yet: it never fires).
  The attack goes to ``target_id``, or to the creature that triggered it; when
  no weapon can hit that creature, the readier lets the trigger pass and keeps
  waiting. At most one readied action fires per event, the first in initiative
  order; what it does triggers nothing (no cascade). The readier's initiative
  becomes the triggering creature's + 0.5 (just before it) from the next round
  on; fired in the round after it was readied, it uses up that round's turn.
  Unfired, it expires at the start of the readier's next turn.
* **Aid another** (SRD « Aid Another »): a standard action, by a creature in
  position to make a melee attack on an opponent engaged in melee with an ally:
  an attack roll against AC 10 (natural 1 and 20 apply); success gives the ally
  +2 on its next attack roll against that opponent, or +2 AC against that
  opponent's next attack on it, until the start of the aider's next turn. Aids
  stack.
* **Immediate actions** (SRD « Immediate Actions »): an opt-in
  :class:`engine.turn.battle.ReactionPolicy` is asked, on ``attack_resolved``, ``movement_step``
  and ``damage_taken``, whether a combatant takes an immediate action. On its
  own turn it uses that turn's swift action; off-turn it uses the next turn's
  (``immediate_used``). Flat-footed creatures (before their first turn) cannot.
  Phase 0 has no spell or feat with an immediate effect, so the action only
  spends the budget and is written in the transcript.
* **Run endurance** (SRD « Run »): a creature can run for rounds equal to its
  Constitution score, then makes a DC 10 Constitution check each further round
  (+1 per check already made; Endurance gives +4); a failure stops the run and
  the creature must rest 10 rounds (the failed round counts) before running
  again. Undead and constructs (no Con score) never tire.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from engine.content.actions import (
    ActionResult,
    AidAnotherAction,
    ImmediateAction,
    ReadyAction,
    ReadyTrigger,
    Reason,
    succeeded,
)
from engine.content.creatures import AttackProfile
from engine.content.maps import GameMap
from engine.content.packs import D20_ATTACK, D20_PLAIN, PF1E
from engine.core.checks import CheckKind, Modifier, check
from engine.core.events import (
    Aid,
    Immediate,
    ReactionRefused,
    ReadyExpired,
    ReadyFired,
    ReadyTaken,
    RunCheck,
)
from engine.core.rng import RollKind
from engine.geometry.reach import threatens, weapon_for
from engine.rules.aoo import provoke
from engine.rules.attack import attack_modifiers, engaged_friend, resolve_swing
from engine.rules.weapons import after_swing as weapon_after_swing
from engine.state.effects import ATTACK, Effect, Moment, add_effect, on_ac
from engine.state.fight import C, FightState, Hooks, ReactionEvent, Situation
from engine.state.state import CombatantState, Readied

#: SRD « Aid Another »: the attack roll's target and the bonus granted
AID_DC = PF1E.dc("aid_another")
AID_BONUS = 2
#: SRD « Run »: DC of the first Constitution check, rest after a failure (rounds)
RUN_CHECK_DC = PF1E.dc("run_endurance")
RUN_REST_ROUNDS = 10
#: SRD « Endurance »: +4 on Constitution checks to continue running
ENDURANCE_BONUS = 4


# -- ready ----------------------------------------------------------------------
@dataclass(slots=True)
class ReadyPlan:
    """What an accepted ready holds: one attack until ``trigger``, on
    ``target_id`` (``None``: the creature that sets it off)."""

    trigger: ReadyTrigger
    target_id: str | None


def verify_ready(
    gmap: GameMap, s: Situation[C], actor: C, action: ReadyAction
) -> ReadyPlan | Reason:
    """Whether ``actor`` may ready ``action``, or why not: the one judgement of
    the engine (:func:`do_ready`) and of the menu's ready options. Only an
    attack can be readied (spells and maneuvers: ``unsupported_kind``)."""
    if action.spell_name is not None or action.maneuver is not None:
        return Reason.UNSUPPORTED_KIND
    if action.ready_trigger is None:
        return Reason.MISSING_TRIGGER
    if action.target_id is not None:
        target = s.target(action.target_id)
        if target is None:
            return Reason.MISSING_TARGET
        if not target.active:
            return Reason.TARGET_DOWN
    if not actor.attacks:
        return Reason.NO_WEAPON
    return ReadyPlan(action.ready_trigger, action.target_id)


def do_ready(fight: FightState, actor: CombatantState, plan: ReadyPlan) -> ActionResult:
    """Hold one attack until ``plan.trigger`` happens (replaces an older ready)."""
    fight.readiness_used = True
    actor.readied = Readied(plan.trigger, plan.target_id, fight.round)
    if actor not in fight.readiers:
        fight.readiers.append(actor)
    if fight.log is not None:
        fight.log.append(ReadyTaken(fight.round, actor.id, plan.trigger, plan.target_id))
    return succeeded("ready", Reason.READY)


def turn_starts(fight: FightState, actor: CombatantState) -> None:
    """Start of ``actor``'s turn: its unfired readied action ends (the aid
    bonuses it granted end with it too: their effects are timed on its turns)."""
    expire_ready(fight, actor)


def expire_ready(fight: FightState, actor: CombatantState) -> None:
    """Start of the readier's turn: an unfired readied action is lost."""
    if actor.readied is None:
        return
    actor.readied = None
    fight.readiers.remove(actor)
    if fight.log is not None:
        fight.log.append(ReadyExpired(fight.round, actor.id))


def _fire_ready(
    fight: FightState,
    trigger: str,
    source: CombatantState,
    victim: CombatantState | None = None,
    flush: Callable[[], None] | None = None,
) -> None:
    """Fire the first (initiative order) readied action that ``trigger`` by
    ``source`` sets off, if any."""
    gmap = fight.gmap
    for readier in fight.order:
        ready = readier.readied
        if (
            ready is None
            or ready.trigger != trigger
            or not readier.active
            or readier.side == source.side
        ):
            continue
        if trigger == "enemy_enters_reach" and not threatens(
            gmap, readier, source.pos, source.space
        ):
            continue
        if trigger == "enemy_hits_ally" and (
            victim is None or victim is readier or victim.side != readier.side
        ):
            continue
        target = source if ready.target_id is None else fight.by_id[ready.target_id]
        if not target.active:
            continue
        weapon, _ = weapon_for(
            gmap, readier.pos, target.pos, readier.attacks, ks=readier.space, kt=target.space
        )
        if weapon is None:
            continue  # it cannot act on this occurrence and keeps waiting
        if flush is not None:
            flush()
        _attack_readied(fight, readier, target, weapon, trigger, source)
        return


def _attack_readied(
    fight: FightState,
    readier: CombatantState,
    target: CombatantState,
    weapon: AttackProfile,
    trigger: str,
    source: CombatantState,
) -> None:
    ready = readier.readied
    assert ready is not None
    readier.readied = None
    fight.readiers.remove(readier)
    # SRD « Ready »: its initiative becomes the count just before the trigger's
    readier.init_key = source.init_key + 0.5
    fight.reorder = True
    if fight.round > ready.round:  # fired before its turn came up this round
        readier.ready_spent_round = fight.round
    if fight.log is not None:
        fight.log.append(ReadyFired(fight.round, readier.id, trigger, target.id))
    fight.reacting = True
    try:
        if not weapon.is_melee:  # a ranged attack from a threatened square provokes
            provoke(fight, readier, readier.pos, movement=False)
        if readier.active and target.active:
            swing = resolve_swing(fight, readier, target, weapon)
            if swing is not None and not weapon.is_melee:  # a misfire, a splash
                weapon_after_swing(fight, readier, target, weapon, swing)
    finally:
        fight.reacting = False


# -- events -----------------------------------------------------------------------
def on_step(
    fight: FightState, mover: CombatantState, flush: Callable[[], None] | None = None
) -> None:
    """``mover`` entered a square: readied ``enemy_enters_reach``, then reactions.
    ``flush`` writes the mover's trail so far before anything interrupts it."""
    if fight.readiers:
        _fire_ready(fight, "enemy_enters_reach", mover, flush=flush)
    if fight.react is not None and mover.active:
        react(fight, ReactionEvent("movement_step", mover.id), flush)


def before_swing(fight: FightState, attacker: CombatantState, target: CombatantState) -> None:
    if fight.readiers:
        _fire_ready(fight, "enemy_attacks", attacker)


def after_swing(
    fight: FightState, attacker: CombatantState, target: CombatantState, hit: bool, damage: int
) -> None:
    if fight.readiers and hit:
        _fire_ready(fight, "enemy_hits_ally", attacker, target)
    if fight.react is not None:
        react(fight, ReactionEvent("attack_resolved", attacker.id, target.id))
        if damage > 0:
            react(fight, ReactionEvent("damage_taken", attacker.id, target.id, damage))


# -- immediate actions -------------------------------------------------------------
def can_take_immediate(fight: FightState, actor: CombatantState) -> bool:
    """SRD « Immediate Actions »: not flat-footed (before its first turn), and
    the swift action it would use is still free."""
    if not actor.active or not actor.has_acted or actor.immediate_used:
        return False
    return not (fight.acting is actor and actor.swift_used_this_turn)


def spend_immediate(fight: FightState, actor: CombatantState) -> None:
    fight.readiness_used = True
    if fight.acting is actor:
        actor.swift_used_this_turn = True
    else:
        actor.immediate_used = True


def react(fight: FightState, event: ReactionEvent, flush: Callable[[], None] | None = None) -> None:
    """Ask the reaction policy (``fight.react``, set by the loop), in initiative
    order, who takes an immediate action on ``event``; the first one does (one
    reaction per event)."""
    ask = fight.react
    if ask is None or fight.reacting:
        return
    for actor in fight.order:
        if not can_take_immediate(fight, actor):
            continue
        fight.reacting = True
        try:
            answer = ask(actor, event)
        finally:
            fight.reacting = False
        if answer is None:
            continue
        if flush is not None:
            flush()
        if not isinstance(answer, ImmediateAction):
            if fight.log is not None:
                fight.log.append(
                    ReactionRefused(fight.round, actor.id, answer.kind, Reason.UNSUPPORTED_KIND)
                )
            continue
        spend_immediate(fight, actor)
        if fight.log is not None:
            fight.log.append(Immediate(fight.round, actor.id, event.kind))
        return


def do_immediate(fight: FightState, actor: CombatantState, plan: ImmediateAction) -> ActionResult:
    """An immediate action in the actor's own plan: it uses the turn's swift action."""
    if actor.swift_used_this_turn or actor.immediate_used:
        return ActionResult("immediate", False, Reason.DOWNGRADED_IMMEDIATE_SWIFT)
    actor.swift_used_this_turn = True
    fight.readiness_used = True
    if fight.log is not None:
        fight.log.append(Immediate(fight.round, actor.id))
    return succeeded("immediate")


# -- aid another --------------------------------------------------------------------
@dataclass(slots=True)
class AidPlan:
    """What an accepted aid another will do: roll with ``weapon`` against AC 10
    to aid ``ally_id`` against ``opponent_id`` (``mode``: its attack or its AC)."""

    ally_id: str
    opponent_id: str
    weapon: AttackProfile
    mode: Literal["attack", "ac"]


def verify_aid(
    gmap: GameMap, s: Situation[C], actor: C, action: AidAnotherAction
) -> AidPlan | Reason:
    """Whether ``actor`` may aid ``action.target_id`` against ``opponent_id``
    (``None``: the first enemy that qualifies), and with which weapon, or why
    not: the one judgement of the engine (:func:`do_aid`) and of the menu's aid
    options.

    SRD « Aid Another »: an opponent « engaging a friend in melee combat »
    (:func:`engine.rules.attack.engaged_friend`) that the actor is « in position to
    make a melee attack on » (a melee attack that reaches it).
    """
    ally_id, opponent_id = action.target_id, action.opponent_id
    ally = s.target(ally_id) if ally_id else None
    if ally is None or ally is actor or ally.side != actor.side:
        return Reason.MISSING_TARGET
    if not ally.active:
        return Reason.TARGET_DOWN
    if not any(a.is_melee for a in actor.attacks):
        return Reason.NO_WEAPON
    if opponent_id is not None:
        named = s.target(opponent_id)
        if named is None or named.side == actor.side:
            return Reason.MISSING_TARGET
        candidates = [named]
    else:
        candidates = [c for c in s.combatants if c.side != actor.side]
    reason = Reason.MISSING_TARGET
    for opp in candidates:
        if not opp.active:
            reason = Reason.TARGET_DOWN if opponent_id is not None else reason
            continue
        if engaged_friend(gmap, actor, opp, (ally,)) is None:
            continue
        weapon = weapon_for(
            gmap, actor.cell, opp.cell, actor.attacks, melee_only=True, ks=actor.space, kt=opp.space
        )[0]
        if weapon is None:
            reason = Reason.OUT_OF_RANGE
            continue
        return AidPlan(ally.id, opp.id, weapon, action.aid_mode)
    return reason


def do_aid(fight: FightState, actor: CombatantState, plan: AidPlan) -> ActionResult:
    """SRD « Aid Another »: attack roll against AC 10 with :func:`verify_aid`'s
    melee weapon; success gives the ally +2 (attack or AC)."""
    ally = fight.by_id[plan.ally_id]
    opponent = fight.by_id[plan.opponent_id]
    weapon = plan.weapon
    mods = attack_modifiers(fight, actor, opponent, weapon)
    rec = check(fight.rng, D20_ATTACK, CheckKind.ATTACK, mods, AID_DC, roll=RollKind.AID_ANOTHER)
    if rec.success:
        add_effect(ally, aid_effect(actor.id, opponent.id, plan.mode), clock=actor)
    if fight.log is not None:
        fight.log.append(
            Aid(fight.round, actor.id, ally.id, opponent.id, plan.mode, rec, AID_BONUS)
        )
    return succeeded("aid_another")


def aid_effect(aider: str, opponent: str, mode: str) -> Effect:
    """SRD « Aid Another »: +2 on the beneficiary's next attack roll against
    ``opponent`` (``mode="attack"``) or to its AC against ``opponent``'s next
    attack (``mode="ac"``), until the start of ``aider``'s next turn (timed on the
    aider's turns: :func:`engine.state.effects.add_effect` with its ``clock``). Aids of
    different aiders stack (each its own source).

    >>> aid_effect("h", "o", "attack").mods
    ((0, Modifier(2, 'aide de h')),)
    """
    mod = Modifier(AID_BONUS, f"aide de {aider}")
    mods = ((ATTACK, mod),) if mode == "attack" else on_ac(mod)
    return Effect(
        f"aid:{aider}:{opponent}:{mode}", mods, ends=Moment.TURN_START, against=opponent, once=True
    )


# -- run endurance -----------------------------------------------------------------
def run_endurance(fight: FightState, actor: CombatantState) -> ActionResult | None:
    """Count this round of running; ``None`` if the actor may run, else why not."""
    fight.readiness_used = True
    if fight.round < actor.run_rest_until:
        return ActionResult("run", False, Reason.RESTING)
    if actor.run_last_round == fight.round - 1:
        actor.run_rounds += 1
    elif actor.run_last_round != fight.round:
        actor.run_rounds, actor.run_checks = 1, 0
    actor.run_last_round = fight.round
    profile = actor.profile
    if profile.no_con or actor.run_rounds <= profile.con_score:
        return None
    mods = [Modifier(profile.con_mod, "Con")]
    if "endurance" in profile.features:
        mods.append(Modifier(ENDURANCE_BONUS, "Endurance"))
    dc = RUN_CHECK_DC + actor.run_checks
    rec = check(fight.rng, D20_PLAIN, CheckKind.CHECK, tuple(mods), dc, roll=RollKind.CONSTITUTION)
    actor.run_checks += 1
    if fight.log is not None:
        fight.log.append(RunCheck(fight.round, actor.id, rec))
    if rec.success:
        return None
    actor.run_rounds, actor.run_checks, actor.run_last_round = 0, 0, -2
    actor.run_rest_until = fight.round + RUN_REST_ROUNDS
    return ActionResult("run", False, Reason.RESTING)


#: how attacks and steps reach the rules above (installed by the loop)
HOOKS = Hooks(before_swing=before_swing, after_swing=after_swing, on_step=on_step)
