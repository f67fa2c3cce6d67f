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
  :class:`ReactionPolicy` is asked, on ``attack_resolved``, ``movement_step``
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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from engine.actions import (
    Action,
    ActionResult,
    AidAnotherAction,
    ImmediateAction,
    ReadyAction,
    Reason,
)
from engine.aoo import provoke
from engine.attack import attack_modifiers, engaged_friend, resolve_swing, threatens
from engine.checks import CheckKind, Modifier, check
from engine.creatures import AttackProfile
from engine.packs import D20_ATTACK, D20_PLAIN, PF1E
from engine.reach import threat_weapon, weapon_for
from engine.state import Aid, CombatantState, Readied
from engine.weapons import after_swing as weapon_after_swing

if TYPE_CHECKING:
    from engine.battle import Battle
    from engine.observation import CombatantView, Observation

#: SRD « Aid Another »: the attack roll's target and the bonus granted
AID_DC = PF1E.dc("aid_another")
AID_BONUS = 2
#: SRD « Run »: DC of the first Constitution check, rest after a failure (rounds)
RUN_CHECK_DC = PF1E.dc("run_endurance")
RUN_REST_ROUNDS = 10
#: SRD « Endurance »: +4 on Constitution checks to continue running
ENDURANCE_BONUS = 4

#: French names of the triggers, for the transcript
TRIGGER_LABEL = {
    "enemy_enters_reach": "un ennemi entre dans son allonge",
    "enemy_casts": "un ennemi lance un sort",
    "enemy_attacks": "un ennemi attaque",
    "enemy_hits_ally": "un ennemi touche un allié",
}

EventKind = Literal["attack_resolved", "movement_step", "damage_taken"]


@dataclass(frozen=True, slots=True)
class ReactionEvent:
    """Something a reaction may answer.

    ``attack_resolved``: ``source_id`` attacked ``target_id``; ``movement_step``:
    ``source_id`` entered a square; ``damage_taken``: ``target_id`` lost
    ``damage`` hit points (lethal and nonlethal) to ``source_id``'s attack.
    """

    kind: EventKind
    source_id: str
    target_id: str | None = None
    damage: int = 0


class ReactionPolicy(Protocol):
    """Chooses a combatant's immediate action when an event happens (opt-in)."""

    def react(self, obs: Observation, event: ReactionEvent) -> Action | None:
        """``None`` to let the event pass; otherwise an :class:`ImmediateAction`."""
        ...


# -- ready ----------------------------------------------------------------------
def do_ready(battle: Battle, actor: CombatantState, action: ReadyAction) -> ActionResult:
    """Hold one attack until ``action.ready_trigger`` happens (replaces an older ready)."""
    if action.spell_name is not None or action.maneuver is not None:
        return ActionResult("ready", False, Reason.UNSUPPORTED_KIND)
    if action.ready_trigger is None:
        return ActionResult("ready", False, Reason.MISSING_TRIGGER)
    if action.target_id is not None:
        target = battle.by_id.get(action.target_id)
        if target is None:
            return ActionResult("ready", False, Reason.MISSING_TARGET)
        if not target.active:
            return ActionResult("ready", False, Reason.TARGET_DOWN)
    if not actor.attacks:
        return ActionResult("ready", False, Reason.NO_WEAPON)
    battle.readiness_used = True
    actor.readied = Readied(action.ready_trigger, action.target_id, battle.round)
    if actor not in battle.readiers:
        battle.readiers.append(actor)
    on = f" sur {action.target_id}" if action.target_id else ""
    battle.note(actor, f"prépare une attaque{on} (si {TRIGGER_LABEL[action.ready_trigger]})")
    return ActionResult("ready", True, Reason.READY)


def turn_starts(battle: Battle, actor: CombatantState) -> None:
    """Start of ``actor``'s turn: its unfired readied action and the aid
    bonuses it granted end."""
    expire_ready(battle, actor)
    if any(c.aids for c in battle.combatants):
        expire_aids(battle, actor)


def fill_views(battle: Battle, views: Sequence[CombatantView]) -> None:
    """Copy the readiness state of each combatant into its Observation view
    (``views`` in ``battle.combatants`` order)."""
    rnd = battle.round
    for view, c in zip(views, battle.combatants, strict=True):
        view.readied = c.readied
        view.aids = tuple(c.aids)
        view.immediate_used = c.immediate_used
        view.run_rounds = c.run_rounds if c.run_last_round >= rnd - 1 else 0
        view.run_rest_rounds = max(0, c.run_rest_until - rnd)


def expire_ready(battle: Battle, actor: CombatantState) -> None:
    """Start of the readier's turn: an unfired readied action is lost."""
    if actor.readied is None:
        return
    actor.readied = None
    battle.readiers.remove(actor)
    battle.note(actor, "action préparée expirée (le déclencheur n'est pas survenu)")


def _fire_ready(
    battle: Battle,
    trigger: str,
    source: CombatantState,
    victim: CombatantState | None = None,
    flush: Callable[[], None] | None = None,
) -> None:
    """Fire the first (initiative order) readied action that ``trigger`` by
    ``source`` sets off, if any."""
    gmap = battle.gmap
    for readier in battle.order:
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
        target = source if ready.target_id is None else battle.by_id[ready.target_id]
        if not target.active:
            continue
        weapon, _ = weapon_for(
            gmap, readier.pos, target.pos, readier.attacks, ks=readier.space, kt=target.space
        )
        if weapon is None:
            continue  # it cannot act on this occurrence and keeps waiting
        if flush is not None:
            flush()
        _attack_readied(battle, readier, target, weapon, trigger, source)
        return


def _attack_readied(
    battle: Battle,
    readier: CombatantState,
    target: CombatantState,
    weapon: AttackProfile,
    trigger: str,
    source: CombatantState,
) -> None:
    ready = readier.readied
    assert ready is not None
    readier.readied = None
    battle.readiers.remove(readier)
    # SRD « Ready »: its initiative becomes the count just before the trigger's
    readier.init_key = source.init_key + 0.5
    battle.reorder = True
    if battle.round > ready.round:  # fired before its turn came up this round
        readier.ready_spent_round = battle.round
    battle.note(readier, f"action préparée ({TRIGGER_LABEL[trigger]}) : attaque sur {target.id}")
    battle.reacting = True
    try:
        if not weapon.is_melee:  # a ranged attack from a threatened square provokes
            provoke(battle, readier, readier.pos, movement=False)
        if readier.active and target.active:
            swing = resolve_swing(battle, readier, target, weapon)
            if swing is not None and not weapon.is_melee:  # a misfire, a splash
                weapon_after_swing(battle, readier, target, weapon, swing)
    finally:
        battle.reacting = False


# -- events -----------------------------------------------------------------------
def on_step(battle: Battle, mover: CombatantState, flush: Callable[[], None] | None = None) -> None:
    """``mover`` entered a square: readied ``enemy_enters_reach``, then reactions.
    ``flush`` writes the mover's trail so far before anything interrupts it."""
    if battle.readiers:
        _fire_ready(battle, "enemy_enters_reach", mover, flush=flush)
    if battle.reaction_policy is not None and mover.active:
        react(battle, ReactionEvent("movement_step", mover.id), flush)


def before_swing(battle: Battle, attacker: CombatantState, target: CombatantState) -> None:
    if battle.readiers:
        _fire_ready(battle, "enemy_attacks", attacker)


def after_swing(
    battle: Battle, attacker: CombatantState, target: CombatantState, hit: bool, damage: int
) -> None:
    if battle.readiers and hit:
        _fire_ready(battle, "enemy_hits_ally", attacker, target)
    if battle.reaction_policy is not None:
        react(battle, ReactionEvent("attack_resolved", attacker.id, target.id))
        if damage > 0:
            react(battle, ReactionEvent("damage_taken", attacker.id, target.id, damage))


# -- immediate actions -------------------------------------------------------------
def can_take_immediate(battle: Battle, actor: CombatantState) -> bool:
    """SRD « Immediate Actions »: not flat-footed (before its first turn), and
    the swift action it would use is still free."""
    if not actor.active or not actor.has_acted or actor.immediate_used:
        return False
    return not (battle.acting is actor and actor.swift_used_this_turn)


def spend_immediate(battle: Battle, actor: CombatantState) -> None:
    battle.readiness_used = True
    if battle.acting is actor:
        actor.swift_used_this_turn = True
    else:
        actor.immediate_used = True


def react(battle: Battle, event: ReactionEvent, flush: Callable[[], None] | None = None) -> None:
    """Ask the reaction policy, in initiative order, who takes an immediate
    action on ``event``; the first one does (one reaction per event)."""
    policy = battle.reaction_policy
    if policy is None or battle.reacting:
        return
    for actor in battle.order:
        if not can_take_immediate(battle, actor):
            continue
        battle.reacting = True
        try:
            answer = policy.react(battle.observe(actor), event)
        finally:
            battle.reacting = False
        if answer is None:
            continue
        if flush is not None:
            flush()
        if not isinstance(answer, ImmediateAction):
            battle.note(actor, f"réaction refusée : {answer.kind} ({Reason.UNSUPPORTED_KIND})")
            continue
        spend_immediate(battle, actor)
        battle.note(actor, f"action immédiate (en réaction : {event.kind})")
        return


def do_immediate(battle: Battle, actor: CombatantState) -> ActionResult:
    """An immediate action in the actor's own plan: it uses the turn's swift action."""
    if actor.swift_used_this_turn or actor.immediate_used:
        return ActionResult("immediate", False, Reason.DOWNGRADED_IMMEDIATE_SWIFT)
    actor.swift_used_this_turn = True
    battle.readiness_used = True
    battle.note(actor, "action immédiate")
    return ActionResult("immediate", True)


# -- aid another --------------------------------------------------------------------
def _aid_opponent(
    battle: Battle, actor: CombatantState, ally: CombatantState, opponent_id: str | None
) -> tuple[CombatantState | None, AttackProfile | None, str | None]:
    """The opponent to aid against and the melee weapon that reaches it, or why not."""
    gmap = battle.gmap
    if opponent_id is not None:
        named = battle.by_id.get(opponent_id)
        if named is None or named.side == actor.side:
            return None, None, Reason.MISSING_TARGET
        candidates = [named]
    else:
        candidates = [c for c in battle.combatants if c.side != actor.side]
    reason: str | None = Reason.MISSING_TARGET
    for opp in candidates:
        if not opp.active:
            reason = Reason.TARGET_DOWN if opponent_id is not None else reason
            continue
        # SRD: an opponent « engaging a friend in melee combat »
        if engaged_friend(gmap, actor, opp, (ally,)) is None:
            continue
        weapon = threat_weapon(gmap, actor.pos, opp.pos, actor.attacks, actor.space, opp.space)
        if weapon is None:
            reason = Reason.OUT_OF_RANGE
            continue
        return opp, weapon, None
    return None, None, reason


def do_aid(battle: Battle, actor: CombatantState, action: AidAnotherAction) -> ActionResult:
    """SRD « Aid Another »: attack roll against AC 10 with a melee weapon that
    reaches the opponent; success gives the ally +2 (attack or AC)."""
    ally = battle.by_id.get(action.target_id) if action.target_id else None
    if ally is None or ally is actor or ally.side != actor.side:
        return ActionResult("aid_another", False, Reason.MISSING_TARGET)
    if not ally.active:
        return ActionResult("aid_another", False, Reason.TARGET_DOWN)
    if not any(a.is_melee for a in actor.attacks):
        return ActionResult("aid_another", False, Reason.NO_WEAPON)
    opponent, weapon, reason = _aid_opponent(battle, actor, ally, action.opponent_id)
    if opponent is None or weapon is None:
        return ActionResult("aid_another", False, reason)
    mods = attack_modifiers(battle, actor, opponent, weapon)
    rec = check(battle.rng, D20_ATTACK, CheckKind.ATTACK, mods, AID_DC)
    what = "attaque" if action.aid_mode == "attack" else "CA"
    text = f"aide {ally.id} contre {opponent.id} ({what}) {rec.explain('CA')}"
    if rec.success:
        battle.readiness_used = True
        ally.aids.append(Aid(actor.id, opponent.id, action.aid_mode, AID_BONUS))
        text += f" : +{AID_BONUS} en {what}"
    battle.note(actor, text, rec)
    return ActionResult("aid_another", True)


def expire_aids(battle: Battle, aider: CombatantState) -> None:
    """Start of the aider's turn: the bonuses it granted and that were not used end."""
    for c in battle.combatants:
        if c.aids and any(a.aider == aider.id for a in c.aids):
            c.aids = [a for a in c.aids if a.aider != aider.id]


# -- run endurance -----------------------------------------------------------------
def run_endurance(battle: Battle, actor: CombatantState) -> ActionResult | None:
    """Count this round of running; ``None`` if the actor may run, else why not."""
    battle.readiness_used = True
    if battle.round < actor.run_rest_until:
        return ActionResult("run", False, Reason.RESTING)
    if actor.run_last_round == battle.round - 1:
        actor.run_rounds += 1
    elif actor.run_last_round != battle.round:
        actor.run_rounds, actor.run_checks = 1, 0
    actor.run_last_round = battle.round
    profile = actor.profile
    if profile.no_con or actor.run_rounds <= profile.con_score:
        return None
    mods = [Modifier(profile.con_mod, "Con")]
    if "endurance" in profile.features:
        mods.append(Modifier(ENDURANCE_BONUS, "Endurance"))
    dc = RUN_CHECK_DC + actor.run_checks
    rec = check(battle.rng, D20_PLAIN, CheckKind.CHECK, tuple(mods), dc)
    actor.run_checks += 1
    if rec.success:
        battle.note(actor, f"continue de courir : Constitution {rec.explain('DD')}", rec)
        return None
    battle.note(actor, f"course interrompue : Constitution {rec.explain('DD')}", rec)
    actor.run_rounds, actor.run_checks, actor.run_last_round = 0, 0, -2
    actor.run_rest_until = battle.round + RUN_REST_ROUNDS
    return ActionResult("run", False, Reason.RESTING)
