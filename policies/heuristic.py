"""The default heuristic policy (the seed's ``default_policy``), reading only the Observation.

Target: the nearest active enemy (5-10-5 distance; ties: fewest hit points, then
deployment order). Then, in order:

1. a weapon can hit it now → full attack (a melee weapon in reach first, else a
   ranged weapon in range: the seed's « in reach or range »);
2. a charge is possible (straight clear line) → charge;
3. one 5-foot step brings it into melee reach → 5-foot step, full attack;
4. a ranged weapon can hit another enemy (nearest first) → full attack on it;
5. otherwise → move toward the target, then attack if a weapon can hit it from
   where the move ends (the move alone otherwise).

A disabled combatant (0 hp) gets one action: an attack if a weapon reaches,
else a move. Under a condition that limits its turn (cannot act, nauseated,
staggered, unable to move) it plays :func:`policies.limits.limited_plan`; when
its target is helpless, :func:`policies.limits.helpless_choice` (a coup de grâce
when nothing else threatens it, else the nearest enemy that is not helpless).
"""

from __future__ import annotations

from engine.content.actions import (
    Action,
    AttackAction,
    ChargeAction,
    FiveFootStepAction,
    FullAttackAction,
    MoveAction,
    StandUpAction,
    TurnPlan,
    WaitAction,
)
from engine.state.conditions import HELPLESS
from engine.state.effects import Cond
from engine.view.observation import Observation
from policies.limits import LIMITING, helpless_choice, limited_plan

#: the prone bit (a plain int: cheaper than the IntFlag member)
_PRONE = Cond.PRONE.value
_HELPLESS = HELPLESS
_LIMITING = LIMITING
#: prone, or a condition that limits the turn
_SPECIAL = _PRONE | _LIMITING


class HeuristicPolicy:
    """Deterministic baseline policy: no randomness, no state between turns."""

    name = "heuristic"

    def decide(self, obs: Observation) -> TurnPlan:
        me = obs.actor
        enemies = obs.enemies()
        if not enemies:
            return TurnPlan((WaitAction(),), "aucun ennemi actif")
        keyed = [(obs.distance_ft(e.id), e.hp, i, e) for i, e in enumerate(enemies)]
        target = min(keyed)[3]
        if target.effects.cond & _HELPLESS:
            choice = helpless_choice(obs, target, [k[3] for k in sorted(keyed)])
            if isinstance(choice, TurnPlan):
                return choice
            target = choice
        tid = target.id
        actions: tuple[Action, ...]
        # stand up (a move action), then one attack if one can hit; ``prone`` read as
        # its bit (the view's property is a call, and this runs every turn)
        cond = me.effects.cond
        if cond & _SPECIAL:  # (one test for both: most turns have neither)
            if cond & _LIMITING:
                return limited_plan(obs, target)
            weapon, _ = obs.weapon_for(tid)
            if weapon is not None and not me.staggered:
                actions = (StandUpAction(), AttackAction(target_id=tid, weapon_id=weapon.id))
                return TurnPlan(actions, "à terre : se relève puis attaque")
            return TurnPlan((StandUpAction(),), "à terre : se relève")
        if me.disabled:
            weapon, _ = obs.weapon_for(tid)
            if weapon is not None:
                actions = (AttackAction(target_id=tid, weapon_id=weapon.id),)
                return TurnPlan(actions, "invalide : une seule attaque")
            return TurnPlan((MoveAction(target_id=tid),), "invalide : un seul déplacement")
        melee = obs.melee_weapon_for(tid)
        if melee is not None:
            actions = (FullAttackAction(target_id=tid, weapon_id=melee.id),)
            return TurnPlan(actions, "au contact : attaque à outrance")
        weapon, _ = obs.weapon_for(tid)
        if weapon is not None:
            actions = (FullAttackAction(target_id=tid, weapon_id=weapon.id),)
            return TurnPlan(actions, "à portée de tir")
        if obs.charge(tid).ok:
            return TurnPlan((ChargeAction(target_id=tid),), "ligne droite dégagée : charge")
        if obs.can_step5_to_attack(tid):
            actions = (FiveFootStepAction(target_id=tid), FullAttackAction(target_id=tid))
            return TurnPlan(actions, "un pas de placement puis attaque à outrance")
        for *_key, enemy in sorted(keyed):
            weapon, _ = obs.weapon_for(enemy.id)
            if weapon is not None:
                actions = (FullAttackAction(target_id=enemy.id, weapon_id=weapon.id),)
                return TurnPlan(actions, "à portée de tir")
        if obs.weapon_after_move(tid) is not None:
            actions = (MoveAction(target_id=tid), AttackAction(target_id=tid))
            return TurnPlan(actions, "approche puis attaque")
        return TurnPlan((MoveAction(target_id=tid),), "approche")
