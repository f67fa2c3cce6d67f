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
  cannot act loses its turn; a confused one rolls d%
  (:func:`engine.rules.confusion.confused_turn`, which attacks, and therefore sits
  above the attack rules, which give conditions through this module).
* A dying creature that bleeds loses the bleed, and its stabilization check
  fails without a roll (:func:`dying_bleed`; the seed's rule, the SRD being silent).
"""

from __future__ import annotations

from engine.content.actions import Reason
from engine.core.dice import compile_dice
from engine.core.events import (
    Bled,
    CannotAct,
    ConditionEnded,
    ConditionGained,
    Immune,
)
from engine.core.rng import RollKind
from engine.rules.life import lose_hp
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
    source: str | None = None,
) -> bool:
    """Give ``target`` the condition ``name`` for ``rounds`` rounds (``None``: until
    something ends it) from ``effect`` (its French name, for the transcript),
    given by ``origin`` (``source``: the effect's own source, else
    ``cond:<name>``); returns whether it took hold (an immune creature, or a
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
        source=source,
    )
    add_effect(target, fx, origin if rounds is not None and ends is Moment.TURN_START else None)
    if fx.cond & HELPLESS:
        fight.helpless_possible = True
    if origin is not None and origin is not target:
        origin.conditions_inflicted += 1
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
    """Write the end of the table conditions among effects whose duration ran out
    (not for a dead holder: its durations still run out, unseen)."""
    log = fight.log
    if log is None:
        return
    for holder, effect in expired:
        bits = effect.cond
        if not bits or holder.dead:
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
