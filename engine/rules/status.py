"""Conditions in play: giving and ending them, and what they do at the start of
a turn (SRD « Conditions »; the table is :mod:`engine.state.conditions`).

* :func:`give_condition` puts a condition on a creature — unless it is immune
  (:func:`engine.rules.saves.immune`) — for a number of rounds counted at the
  turns of the creature that gave it (SRD « Duration »: « N rounds » end just
  before the same initiative count N rounds later) or, without a giver, at its
  own. **Fear stacks** (SRD « Fear »): shaken again becomes frightened,
  shaken and frightened, or frightened again, become panicked. Bleeding effects
  do not stack: the worse one is kept (SRD « Bleed »).
* At the start of its turn (:func:`turn_start`, called once per turn: a delayed
  turn does not replay it) a bleeding creature loses its bleed; a creature that
  cannot act loses its turn; a confused one rolls d% (:func:`confusion_band`).
* A dying creature that bleeds loses the bleed, and its stabilization check
  fails without a roll (:func:`dying_bleed`; the seed's rule, the SRD being silent).
"""

from __future__ import annotations

from engine.content.actions import Reason
from engine.content.creatures import ability_mod
from engine.content.space import body_distance_ft
from engine.core.dice import compile_dice
from engine.core.events import (
    Bled,
    CannotAct,
    ConditionEnded,
    ConditionGained,
    Confusion,
    ConfusionBand,
    Immune,
)
from engine.core.rng import RollKind
from engine.geometry.reach import weapon_for
from engine.rules.attack import resolve_swing
from engine.rules.life import apply_damage, lose_hp
from engine.rules.saves import immune
from engine.state.conditions import (
    BY_BIT,
    CANT_ACT,
    CANT_MOVE,
    CONDITIONS,
    HELPLESS,
    NO_RUN_CHARGE,
    TABLE,
    condition_effect,
    drop_condition,
)
from engine.state.effects import Cond, Effect, Moment, add_effect
from engine.state.fight import FightState
from engine.state.state import CombatantState

_SHAKEN = Cond.SHAKEN.value
_FRIGHTENED = Cond.FRIGHTENED.value
_PANICKED = Cond.PANICKED.value
_FEAR = _SHAKEN | _FRIGHTENED | _PANICKED
_BLEEDING = Cond.BLEEDING.value
_ASLEEP = Cond.ASLEEP.value
#: the fear conditions, weakest first
_FEAR_LADDER = ("shaken", "frightened", "panicked")


def roll_rounds(fight: FightState, formula: str | int | None) -> int | None:
    """A duration in rounds: a number, dice (« 1d4+1 », rolled as ``duration``)
    or ``None`` (until something ends it)."""
    if formula is None or isinstance(formula, int):
        return formula
    return max(1, compile_dice(formula).roll(fight.rng, RollKind.DURATION))


def _feared(target: CombatantState, name: str) -> str:
    """SRD « Fear »: the condition a fear condition ``name`` becomes on ``target``."""
    cond = target.effects.cond
    if not cond & _FEAR or name not in _FEAR_LADDER:
        return name
    if cond & _PANICKED or cond & _FRIGHTENED or name != "shaken":
        return "panicked"
    return "frightened"  # shaken, made shaken again


def give_condition(
    fight: FightState,
    target: CombatantState,
    name: str,
    rounds: int | None,
    *,
    effect: str,
    origin: CombatantState | None = None,
    descriptors: tuple[str, ...] = (),
    bleed: int = 0,
    ends: Moment = Moment.TURN_START,
) -> bool:
    """Give ``target`` the condition ``name`` for ``rounds`` rounds (``None``: until
    something ends it) from ``effect`` (its French name, for the transcript),
    given by ``origin``; returns whether it took hold (an immune creature, or a
    bleed no worse than the one it has, is left as it is)."""
    log = fight.log
    why = immune(target, descriptors, name)
    if why is not None:
        if log is not None:
            log.append(Immune(fight.round, target.id, effect, why))
        return False
    if bleed:
        worst = max((e.bleed for e in target.effects.items), default=0)
        if worst >= bleed:
            return False
    final = _feared(target, name)
    if final != name or (final in _FEAR_LADDER and target.effects.cond & _FEAR):
        for lower in _FEAR_LADDER:  # the new degree of fear replaces the old
            drop_condition(target, lower)
    elif bleed:
        drop_condition(target, "bleeding")
    fx = condition_effect(
        final,
        rounds,
        origin=origin.id if origin is not None else None,
        bleed=bleed,
        ends=ends,
    )
    add_effect(target, fx, origin if rounds is not None and ends is Moment.TURN_START else None)
    if fx.cond & HELPLESS:
        fight.helpless_possible = True
    if log is not None:
        log.append(ConditionGained(fight.round, target.id, final, rounds, effect))
    return True


def end_condition(fight: FightState, target: CombatantState, name: str) -> bool:
    """End ``target``'s condition ``name`` (every effect that gives it); logged."""
    if not drop_condition(target, name):
        return False
    if fight.log is not None:
        fight.log.append(ConditionEnded(fight.round, target.id, name))
    return True


def log_expired(fight: FightState, expired: tuple[tuple[CombatantState, Effect], ...]) -> None:
    """Write the end of the table conditions among effects whose duration ran out."""
    log = fight.log
    if log is None:
        return
    for holder, effect in expired:
        bits = effect.cond
        if not bits:
            continue
        for c in TABLE:
            if bits & c.bit and not holder.effects.cond & c.bit:
                log.append(ConditionEnded(fight.round, holder.id, c.name))


def bleed_amount(target: CombatantState) -> int:
    """The hit points its bleeding costs per turn (the worst of its bleed effects)."""
    return max((e.bleed for e in target.effects.items), default=0)


def bleed_turn(fight: FightState, actor: CombatantState) -> None:
    """SRD « Bleed »: at the start of its turn a bleeding creature loses its bleed."""
    amount = bleed_amount(actor)
    if amount <= 0:
        return
    was_active = actor.active
    lose_hp(actor, amount)
    if fight.log is not None:
        fight.log.append(Bled(fight.round, actor.id, amount, actor.hp))
        if (was_active and not actor.active) or actor.dead:
            fight.state_change(actor)


def blocking_condition(actor: CombatantState) -> str | None:
    """The first condition of the table (in table order) that keeps ``actor`` from acting."""
    cond = actor.effects.cond & CANT_ACT
    if not cond:
        return None
    for c in TABLE:
        if cond & c.bit:
            return c.name
    return None  # pragma: no cover - every CANT_ACT bit is in the table


def lose_turn(fight: FightState, actor: CombatantState, condition: str) -> None:
    """``actor`` loses its turn to ``condition`` (logged)."""
    if fight.log is not None:
        fight.log.append(CannotAct(fight.round, actor.id, condition))


#: SRD « Confused »: the creature « deals 1d8 points of damage + Str modifier to self »
_SELF_DAMAGE = compile_dice("1d8")


def confusion_band(d100: int) -> ConfusionBand:
    """SRD « Confused »: what a confused creature does on a d% roll.

    >>> [confusion_band(n) for n in (1, 25, 26, 50, 51, 75, 76, 100)]
    ['normal', 'normal', 'babble', 'babble', 'self', 'self', 'nearest', 'nearest']
    """
    if d100 <= 25:
        return "normal"
    if d100 <= 50:
        return "babble"
    if d100 <= 75:
        return "self"
    return "nearest"


def self_damage_bonus(actor: CombatantState) -> int:
    """The Strength modifier a confused creature adds to the 1d8 it deals itself."""
    return ability_mod(actor.profile.spec.abilities.str_score)


def condition_label(name: str) -> str:
    """The French name of a condition of the table."""
    return CONDITIONS[name].label


def bit_label(bit: int) -> str:
    """The French name of the condition with this single bit."""
    return BY_BIT[bit].label


#: the conditions that refuse some kinds of action (:func:`gate`)
GATED = CANT_ACT | CANT_MOVE | NO_RUN_CHARGE
_RUN_CHARGE = frozenset({"charge", "run"})


def gate(cond: int, kind: str, moves: bool) -> Reason | None:
    """Why a creature under the condition bits ``cond`` may not take an action of
    ``kind`` (``moves``: the kind moves it), or ``None``: the one answer of the
    engine (:meth:`engine.turn.battle.Battle.dispatch`) and of the menu."""
    if cond & CANT_ACT and kind != "wait":
        return Reason.CANNOT_ACT
    if moves and cond & CANT_MOVE:
        return Reason.CANNOT_MOVE
    if kind in _RUN_CHARGE and cond & NO_RUN_CHARGE:
        return Reason.CANNOT_RUN_OR_CHARGE
    return None


def _nearest(fight: FightState, actor: CombatantState) -> CombatantState | None:
    """SRD « Confused »: the nearest other creature still standing, ally or enemy
    (ties: deployment order)."""
    best: CombatantState | None = None
    best_d = 0
    gmap = fight.gmap
    for c in fight.combatants:
        if c is actor or not c.active:
            continue
        d = body_distance_ft(gmap, actor.pos, actor.space, c.pos, c.space)
        if best is None or d < best_d:
            best, best_d = c, d
    return best


def _melee_at(fight: FightState, actor: CombatantState, target: CombatantState) -> bool:
    """One melee attack of ``actor`` on ``target`` if a weapon reaches it; whether it did."""
    attack = weapon_for(
        fight.gmap, actor.pos, target.pos, actor.attacks, melee_only=True,
        ks=actor.space, kt=target.space,
    )[0]  # fmt: skip
    if attack is None:
        return False
    resolve_swing(fight, actor, target, attack)
    return True


def confused_turn(fight: FightState, actor: CombatantState) -> bool:
    """SRD « Confused »: what a confused creature does at the start of its turn;
    returns whether that was its turn (``False``: it acts normally).

    A creature attacked since its last turn attacks its attacker, if in reach,
    without rolling. Otherwise d%: 01–25 it acts normally; 26–50 it babbles (turn
    lost); 51–75 it deals itself 1d8 + its Strength modifier (at least 1) with
    the weapon in hand; 76–100 it makes one melee attack on the nearest creature,
    ally or enemy, if a weapon reaches it (else it babbles). No coup de grâce."""
    log = fight.log
    attacker = fight.by_id.get(actor.attacked_by) if actor.attacked_by else None
    actor.attacked_by = None
    if attacker is not None and attacker.active:
        if log is not None:
            log.append(Confusion(fight.round, actor.id, 0, "retaliate", attacker.id))
        if _melee_at(fight, actor, attacker):
            return True
    d100 = fight.rng.die(100, RollKind.CONFUSION)
    band = confusion_band(d100)
    if band == "normal":
        if log is not None:
            log.append(Confusion(fight.round, actor.id, d100, "normal"))
        return False
    if band == "self":
        amount = max(1, _SELF_DAMAGE.roll(fight.rng, RollKind.DAMAGE) + self_damage_bonus(actor))
        was_active = actor.active
        apply_damage(actor, amount)
        if log is not None:
            log.append(Confusion(fight.round, actor.id, d100, "self", actor.id, amount))
            if actor.dead or (was_active and not actor.active):
                fight.state_change(actor)
        return True
    target = _nearest(fight, actor) if band == "nearest" else None
    if log is not None:
        log.append(
            Confusion(fight.round, actor.id, d100, band, target.id if target is not None else None)
        )
    if target is not None:
        _melee_at(fight, actor, target)
    return True
