"""What the heuristic and strategy policies do under conditions that limit a turn,
and against a helpless enemy, from the Observation only.

The engine plays the turns of creatures that cannot act, flee or are confused
(:mod:`engine.rules.status`, :mod:`engine.rules.fleeing`); the menu never offers
what a condition forbids (:mod:`engine.view.options`). A policy that builds its
own plan asks these functions first, so that it does not waste its turn on an
action the engine refuses:

* :func:`limited_plan`, for an actor under a limiting condition
  (:data:`LIMITING`): cannot act → wait; nauseated → stand up when prone, else
  one move toward its target (wait when already in reach or unable to move: it
  cannot attack); staggered → one attack if a weapon reaches, else one move;
  unable to move (grappled…) → an attack (a full attack with both actions) if a
  weapon reaches its target or another enemy, else break free of a spell that
  holds it (*web*: :func:`engine.rules.endings.verify_escape`), else wait.
* :func:`helpless_choice`, when its target is helpless: a coup de grâce when the
  menu offers one and no enemy that is not helpless threatens the actor (it
  provokes); threatened by such an enemy, the policy turns to the first of them
  in its own order (the helpless one can wait); otherwise it keeps its target
  (it approaches it, or attacks it at +4).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.content.actions import (
    AttackAction,
    CoupDeGraceAction,
    EscapeAction,
    FullAttackAction,
    MoveAction,
    StandUpAction,
    TurnPlan,
    WaitAction,
)
from engine.rules.endings import held_by
from engine.state.conditions import CANT_ACT, CANT_MOVE, HELPLESS, ONE_MOVE, STAGGERED
from engine.state.effects import Cond
from engine.view.observation import Observation
from engine.view.snapshot import CombatantView

#: the conditions under which :func:`limited_plan` decides the turn
LIMITING = CANT_ACT | ONE_MOVE | STAGGERED | CANT_MOVE
_HELPLESS = HELPLESS
_PRONE = Cond.PRONE.value


def limited_plan(obs: Observation, target: CombatantView) -> TurnPlan:
    """The turn of an actor under a :data:`LIMITING` condition (module docstring)."""
    me = obs.actor
    cond = me.effects.cond
    tid = target.id
    if cond & CANT_ACT:
        return TurnPlan((WaitAction(),), "ne peut pas agir")
    single = me.staggered or obs.round == 0
    if cond & _PRONE:
        weapon, _ = obs.weapon_for(tid)
        if weapon is not None and not single and not cond & ONE_MOVE:
            actions = (StandUpAction(), AttackAction(target_id=tid, weapon_id=weapon.id))
            return TurnPlan(actions, "à terre : se relève puis attaque")
        return TurnPlan((StandUpAction(),), "à terre : se relève")
    if cond & ONE_MOVE:
        if cond & CANT_MOVE or obs.melee_weapon_for(tid) is not None:
            return TurnPlan((WaitAction(),), "nauséeux : ne peut pas attaquer")
        return TurnPlan((MoveAction(target_id=tid),), "nauséeux : un seul déplacement")
    for enemy in (target, *[e for e in obs.enemies() if e is not target]):
        weapon, _ = obs.weapon_for(enemy.id)
        if weapon is not None:
            cls = AttackAction if single else FullAttackAction
            return TurnPlan((cls(target_id=enemy.id, weapon_id=weapon.id),), "attaque sur place")
        if not cond & CANT_MOVE:
            break  # it may move toward its target instead
    if cond & CANT_MOVE:
        if me.effects.items and held_by(me):  # SRD « Web »: break free rather than wait
            return TurnPlan((EscapeAction(),), "pris : tente de se libérer")
        return TurnPlan((WaitAction(),), "ne peut pas se déplacer")
    return TurnPlan((MoveAction(target_id=tid),), "chancelant : un seul déplacement")


def helpless_choice(
    obs: Observation, target: CombatantView, ordered: Sequence[CombatantView]
) -> TurnPlan | CombatantView:
    """Against the helpless ``target``: the coup de grâce to deliver, or the target
    to fight instead (``ordered``: the enemies in the policy's order of preference;
    module docstring)."""
    me = obs.actor
    others = [e for e in ordered if not e.effects.cond & _HELPLESS]
    if any(obs.threatens(e.id, me.id) for e in others):
        return others[0]
    weapons = obs.coup_de_grace_weapons(target.id)  # (the menu's, without the menu)
    if weapons:
        tid, weapon = target.id, weapons[0]
        return TurnPlan(
            (CoupDeGraceAction(target_id=tid, weapon_id=weapon.id),),
            f"coup de grâce sur {tid} ({weapon.name}) : cible sans défense",
        )
    return target
