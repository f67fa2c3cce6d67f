"""Stealth and hiding in combat (SRD « Stealth », « Perception », « Invisibility »).

* ``hide`` (a move action, :func:`verify_hide` then :func:`do_hide`): one
  Stealth check of the hider, opposed by the Perception check of each active
  enemy, at −1 per 10 ft of distance on the observer's roll. The observer
  notices the hider only when its result *exceeds* the Stealth result (SRD
  « Using Skills »: an opposed check succeeds if it exceeds the result of the
  one who forced it), so a tie leaves the hider hidden.
* An observer with **direct sight** of the hider — line of effect, no cover
  (as for a ranged attack from the observer's square, creatures' soft cover
  excluded: SRD « Soft Cover » allows no Stealth), no concealment (the
  hider's ``blurred``, ``displaced`` or ``invisible``) and not blinded — cannot
  be beaten: it rolls nothing and keeps seeing the hider.
* Observers who fail are in the hider's ``hidden_from``; each of them treats
  the hider as invisible (:mod:`engine.rules.attack`): 50 % miss chance on its
  attacks against the hider, +2 on the hider's attacks against it and no Dex
  bonus to its AC, and no attack of opportunity against the hider
  (:mod:`engine.rules.aoo`: total concealment).
* Breaking: any attack roll of the hider (attacks of opportunity included)
  reveals it to everyone after that roll's modifiers are set; a run or a
  charge breaks it before moving; any other movement (move, withdraw, 5-foot
  step, tumbling) re-rolls the opposition at −5 on the Stealth check at the end
  of the movement, against the observers it is still hidden from; an observer
  with direct sight of the new square drops it without a roll. An observer who
  moves and gets direct sight of a hidden creature drops it too.

Out of scope: sniping, Bluff diversions, the « distracted » and half-speed
distinctions (every movement takes −5), hiding from creatures that cannot see
positions at all (every policy still sees every position).
"""

from __future__ import annotations

from collections.abc import Collection

from engine.content.actions import ActionResult, HideAction, Reason, succeeded
from engine.content.maps import Cell, GameMap
from engine.content.space import body_distance_ft
from engine.core.checks import Modifier, RollRecord
from engine.core.events import Hide, InSight, RevealCause, Revealed, SneakMove, Spot
from engine.geometry.reach import body_cover, body_line_of_effect
from engine.rules.attack import CONCEALING, MISS_CHANCE
from engine.rules.skills import skill_check
from engine.state.effects import Cond
from engine.state.fight import C, FightState, Mover, Situation
from engine.state.state import CombatantState

#: SRD « Perception »: +1 DC per 10 ft of distance, taken as −1 on the observer's roll
DISTANCE_STEP_FT = 10
#: seed §3.24: moving while hidden re-rolls the opposition at −5 (any movement)
MOVING_PENALTY = -5
_BLINDED = Cond.BLINDED.value


def sees_directly(
    gmap: GameMap,
    observer_cell: Cell,
    observer_conditions: Collection[str],
    hider_cell: Cell,
    hider_conditions: Collection[str],
    sizes: tuple[int, int] = (1, 1),
) -> bool:
    """Whether an observer sees a creature plainly: not blinded, line of effect,
    no cover and no concealment. Such an observer cannot be hidden from.
    ``sizes``: squares per side of the observer's and the hider's spaces (the
    best pair of squares counts, :mod:`engine.content.space`)."""
    if "blinded" in observer_conditions:
        return False
    if any(c in MISS_CHANCE for c in hider_conditions):
        return False
    return _in_plain_view(gmap, observer_cell, hider_cell, sizes)


def _in_plain_view(
    gmap: GameMap, observer_cell: Cell, hider_cell: Cell, sizes: tuple[int, int]
) -> bool:
    ko, kh = sizes
    if not body_line_of_effect(gmap, observer_cell, ko, hider_cell, kh):
        return False
    return body_cover(gmap, observer_cell, ko, hider_cell, kh, None, melee=False) == 0


def _sees(gmap: GameMap, observer: Mover, hider: Mover) -> bool:
    """:func:`sees_directly`, the conditions read from the creatures' effects."""
    if observer.cond & _BLINDED or hider.cond & CONCEALING:
        return False
    return _in_plain_view(gmap, observer.cell, hider.cell, (observer.space, hider.space))


def verify_hide(gmap: GameMap, s: Situation[C], actor: C, action: HideAction) -> list[C] | Reason:
    """The active enemies lacking direct sight of ``actor`` (those its Stealth
    check is opposed by), or ``in_plain_sight`` when there is none: the one
    judgement of the engine (:func:`do_hide`) and of the menu's ``hide`` option."""
    unseeing = [
        e for e in s.combatants if e.active and e.side != actor.side and not _sees(gmap, e, actor)
    ]
    return unseeing or Reason.IN_PLAIN_SIGHT


def _perception(
    fight: FightState, observer: CombatantState, hider: CombatantState, stealth: RollRecord
) -> bool:
    """One observer's opposed Perception check; returns whether it notices the hider."""
    extra: tuple[Modifier, ...] = ()
    dist = body_distance_ft(fight.gmap, observer.pos, observer.space, hider.pos, hider.space)
    steps = dist // DISTANCE_STEP_FT
    if steps:
        extra = (Modifier(-steps, "distance"),)
    roll = skill_check(fight.rng, observer, "Perception", None, extra)
    noticed = roll.total > stealth.total
    if fight.log is not None:
        fight.log.append(Spot(fight.round, observer.id, hider.id, roll, stealth.total, noticed))
    return noticed


def hide_refused(fight: FightState, actor: CombatantState) -> None:
    """A hide refused (``in_plain_sight``): the actor is hidden from no one any more."""
    actor.hidden_from.clear()


def do_hide(
    fight: FightState, actor: CombatantState, unseeing: list[CombatantState]
) -> ActionResult:
    """The ``hide`` action: a fresh Stealth check, opposed by :func:`verify_hide`'s
    enemies; every other enemy keeps seeing the actor."""
    stealth = skill_check(fight.rng, actor, "Stealth")
    if fight.log is not None:
        seeing = tuple(
            e.id
            for e in fight.combatants
            if e.active and e.side != actor.side and e not in unseeing
        )
        fight.log.append(Hide(fight.round, actor.id, stealth))
        if seeing:
            fight.log.append(InSight(fight.round, actor.id, seeing))
    actor.hidden_from = {e.id for e in unseeing if not _perception(fight, e, actor, stealth)}
    return succeeded("hide")


def reveal(fight: FightState, actor: CombatantState, why: RevealCause) -> None:
    """``actor`` is seen by everyone again."""
    if actor.hidden_from:
        actor.hidden_from.clear()
        if fight.log is not None:
            fight.log.append(Revealed(fight.round, actor.id, why))


def after_move(fight: FightState, mover: CombatantState) -> None:
    """Sight and Stealth after ``mover`` changed squares (see the module docstring)."""
    if mover.hidden_from and mover.active:
        fooled = [e for e in fight.combatants if e.id in mover.hidden_from]
        stealth: RollRecord | None = None
        for observer in fooled:
            if not observer.active:
                continue
            if _sees(fight.gmap, observer, mover):
                mover.hidden_from.discard(observer.id)
                if fight.log is not None:
                    fight.log.append(Revealed(fight.round, mover.id, "seen", observer.id))
                continue
            if stealth is None:
                stealth = skill_check(
                    fight.rng, mover, "Stealth", None, (Modifier(MOVING_PENALTY, "mouvement"),)
                )
                if fight.log is not None:
                    fight.log.append(SneakMove(fight.round, mover.id, stealth))
            if _perception(fight, observer, mover, stealth):
                mover.hidden_from.discard(observer.id)
    for hider in fight.combatants:
        if hider is mover or mover.id not in hider.hidden_from:
            continue
        if _sees(fight.gmap, mover, hider):
            hider.hidden_from.discard(mover.id)
            if fight.log is not None:
                fight.log.append(Revealed(fight.round, hider.id, "seen", mover.id))
