"""The default heuristic policy (the seed's ``default_policy``), reading only the Observation.

Target: the nearest active enemy (5-10-5 distance; ties: fewest hit points, then
deployment order). A caster not under a condition that limits its turn first asks
:func:`policies.spellcasting.choose_cast` (heal, area, save-or-lose, buffs before
contact, damage: that module's docstring), after a coup de grâce on a helpless
target; a creature without spells skips it at the cost of one attribute read.
Then, in order:

1. a weapon can hit it now → full attack (a melee weapon in reach first, else a
   ranged weapon in range: the seed's « in reach or range »);
2. a charge is possible (straight clear line) → charge;
3. one 5-foot step brings it into melee reach → 5-foot step, full attack;
4. a ranged weapon can hit another enemy (nearest first) → full attack on it;
5. otherwise → move toward the target, then attack if a weapon can hit it from
   where the move ends (the move alone otherwise); a creature a spell holds
   without keeping it in place (*entangle*: half speed) first tries to break free
   (a move action), then moves with its standard action: freed, at full speed.

A disabled combatant (0 hp) gets one action: an attack if a weapon reaches,
else a move. Under a condition that limits its turn (cannot act, nauseated,
staggered, unable to move) it plays :func:`policies.limits.limited_plan`; when
its target is helpless, :func:`policies.limits.helpless_choice` (a coup de grâce
when nothing else threatens it, else the nearest enemy that is not helpless).

Plans are immutable values, so the policy builds each (shape, target, weapon) plan
once and hands the same :class:`TurnPlan` again: a frozen dataclass costs a few
thousand instructions to build, as much as the rest of a melee turn's decision.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.content.actions import (
    AttackAction,
    ChargeAction,
    EscapeAction,
    FiveFootStepAction,
    FullAttackAction,
    MoveAction,
    StandUpAction,
    TurnPlan,
    WaitAction,
)
from engine.rules.endings import held_by
from engine.state.conditions import HELPLESS
from engine.state.effects import Cond
from engine.view.observation import Observation
from policies.limits import LIMITING, helpless_choice, limited_plan
from policies.spellcasting import choose_cast

#: the prone bit (a plain int: cheaper than the IntFlag member)
_PRONE = Cond.PRONE.value
_HELPLESS = HELPLESS
_LIMITING = LIMITING
#: prone, or a condition that limits the turn
_SPECIAL = _PRONE | _LIMITING

#: at most this many plans are kept (ids of many encounters through one policy)
_MAX_PLANS = 4096


def _stand_attack(tid: str, wid: str | None) -> TurnPlan:
    actions = (StandUpAction(), AttackAction(target_id=tid, weapon_id=wid))
    return TurnPlan(actions, "à terre : se relève puis attaque")


def _stand(tid: str, wid: str | None) -> TurnPlan:
    return TurnPlan((StandUpAction(),), "à terre : se relève")


def _disabled_attack(tid: str, wid: str | None) -> TurnPlan:
    return TurnPlan((AttackAction(target_id=tid, weapon_id=wid),), "invalide : une seule attaque")


def _disabled_move(tid: str, wid: str | None) -> TurnPlan:
    return TurnPlan((MoveAction(target_id=tid),), "invalide : un seul déplacement")


def _melee(tid: str, wid: str | None) -> TurnPlan:
    actions = (FullAttackAction(target_id=tid, weapon_id=wid),)
    return TurnPlan(actions, "au contact : attaque à outrance")


def _shoot(tid: str, wid: str | None) -> TurnPlan:
    return TurnPlan((FullAttackAction(target_id=tid, weapon_id=wid),), "à portée de tir")


def _charge(tid: str, wid: str | None) -> TurnPlan:
    return TurnPlan((ChargeAction(target_id=tid),), "ligne droite dégagée : charge")


def _step(tid: str, wid: str | None) -> TurnPlan:
    actions = (FiveFootStepAction(target_id=tid), FullAttackAction(target_id=tid))
    return TurnPlan(actions, "un pas de placement puis attaque à outrance")


def _approach_attack(tid: str, wid: str | None) -> TurnPlan:
    actions = (MoveAction(target_id=tid), AttackAction(target_id=tid))
    return TurnPlan(actions, "approche puis attaque")


def _approach(tid: str, wid: str | None) -> TurnPlan:
    return TurnPlan((MoveAction(target_id=tid),), "approche")


def _escape_approach(tid: str, wid: str | None) -> TurnPlan:
    actions = (EscapeAction(), MoveAction(target_id=tid))
    return TurnPlan(actions, "pris : tente de se libérer puis approche")


#: a plan of the policy, from its target's and its weapon's ids
Shape = Callable[[str, str | None], TurnPlan]

#: the plan of a turn without any active enemy
_WAIT = TurnPlan((WaitAction(),), "aucun ennemi actif")


class HeuristicPolicy:
    """Deterministic baseline policy: no randomness, no state between turns."""

    name = "heuristic"

    def __init__(self) -> None:
        #: the plans already built, by (shape, target id, weapon id)
        self._plans: dict[tuple[Shape, str, str | None], TurnPlan] = {}

    def _plan(self, shape: Shape, tid: str, wid: str | None = None) -> TurnPlan:
        """The plan ``shape(tid, wid)``, built once."""
        key = (shape, tid, wid)
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= _MAX_PLANS:
                self._plans.clear()
            plan = self._plans[key] = shape(tid, wid)
        return plan

    def decide(self, obs: Observation) -> TurnPlan:
        me = obs.actor
        enemies = obs.enemies()
        if not enemies:
            return _WAIT
        keyed = [(obs.distance_ft(e.id), e.hp, i, e) for i, e in enumerate(enemies)]
        target = min(keyed)[3]
        if target.effects.cond & _HELPLESS:
            choice = helpless_choice(obs, target, [k[3] for k in sorted(keyed)])
            if isinstance(choice, TurnPlan):
                return choice
            target = choice
        cond = me.effects.cond
        # a caster's spells (policies.spellcasting); one attribute read for the others
        if me.static.casting is not None and not cond & _LIMITING:
            cast = choose_cast(obs)
            if cast is not None:
                return cast
        tid = target.id
        # stand up (a move action), then one attack if one can hit; ``prone`` read as
        # its bit (the view's property is a call, and this runs every turn)
        if cond & _SPECIAL:  # (one test for both: most turns have neither)
            if cond & _LIMITING:
                return limited_plan(obs, target)
            weapon, _ = obs.weapon_for(tid)
            if weapon is not None and not me.staggered:
                return self._plan(_stand_attack, tid, weapon.id)
            return self._plan(_stand, tid)
        if me.disabled:
            weapon, _ = obs.weapon_for(tid)
            if weapon is not None:
                return self._plan(_disabled_attack, tid, weapon.id)
            return self._plan(_disabled_move, tid)
        melee = obs.melee_weapon_for(tid)
        if melee is not None:
            return self._plan(_melee, tid, melee.id)
        weapon, _ = obs.weapon_for(tid)
        if weapon is not None:
            return self._plan(_shoot, tid, weapon.id)
        if obs.charge(tid).ok:
            return self._plan(_charge, tid)
        if obs.can_step5_to_attack(tid):
            return self._plan(_step, tid)
        for *_key, enemy in sorted(keyed):
            weapon, _ = obs.weapon_for(enemy.id)
            if weapon is not None:
                return self._plan(_shoot, enemy.id, weapon.id)
        if obs.weapon_after_move(tid) is not None:
            return self._plan(_approach_attack, tid)
        if me.effects.items and held_by(me):  # SRD « Entangle »: break free, then move
            return self._plan(_escape_approach, tid)
        return self._plan(_approach, tid)
