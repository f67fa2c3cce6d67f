"""The attack actions: one attack, a full attack (iteratives, or every natural
weapon once), the weapon chosen for them; the defensive stances (total defense,
fighting defensively).

:func:`verify_attack` judges an attack or a full attack (target, weapon, the
swings) on a :class:`~engine.state.fight.Situation` — the live fight or the
Observation the menu reads — and ``do_attack(fight, actor, plan) ->
ActionResult`` makes its swings on the :class:`engine.state.fight.FightState`: each is
:func:`engine.rules.attack.resolve_swing`, preceded by the attacks of opportunity a
ranged attack from a threatened square provokes (:mod:`engine.rules.aoo`) and
followed by a firearm's misfire or a splash (:mod:`engine.rules.weapons`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from engine.content.actions import (
    ActionResult,
    AttackAction,
    FightDefensivelyAction,
    FullAttackAction,
    Reason,
    TotalDefenseAction,
    succeeded,
)
from engine.content.creatures import AttackProfile
from engine.content.maps import GameMap
from engine.core.events import Stance
from engine.geometry.reach import attack_reason, weapon_for
from engine.rules.aoo import provoke, threat_possible
from engine.rules.attack import (
    FIGHT_DEFENSIVELY_AC,
    FIGHT_DEFENSIVELY_EFFECTS,
    FIGHT_DEFENSIVELY_PENALTY,
    TOTAL_DEFENSE_AC,
    TOTAL_DEFENSE_EFFECT,
    iterative_penalties,
    resolve_swing,
)
from engine.rules.weapons import after_swing
from engine.state.effects import EXTRA_ATTACK, add_effect
from engine.state.fight import C, FightState, Situation
from engine.state.state import CombatantState


@dataclass(slots=True)
class AttackPlan:
    """What an accepted attack or full attack does: the swings, in order, of
    each weapon with its iterative penalty, against ``target_id``."""

    #: ``attack`` or ``full_attack``
    kind: str
    target_id: str
    swings: tuple[tuple[AttackProfile, int], ...]


#: the swings of a full attack with one weapon, by (weapon, base attack bonus)
_FULL_SWINGS: dict[tuple[AttackProfile, int], tuple[tuple[AttackProfile, int], ...]] = {}
#: at most this many are kept (weapons of many creature files through one process)
_MAX_FULL_SWINGS = 4096


def _full_swings(attack: AttackProfile, bab: int) -> tuple[tuple[AttackProfile, int], ...]:
    """Every iterative attack of ``attack`` at ``bab`` (kept in :data:`_FULL_SWINGS`)."""
    if len(_FULL_SWINGS) >= _MAX_FULL_SWINGS:
        _FULL_SWINGS.clear()
    swings = tuple([(attack, p) for p in iterative_penalties(bab, attack)])
    _FULL_SWINGS[(attack, bab)] = swings
    return swings


def verify_attack(
    gmap: GameMap, s: Situation[C], actor: C, action: AttackAction | FullAttackAction
) -> AttackPlan | Reason:
    """Whether ``actor`` may make ``action`` now, with which swings, or why not:
    the one judgement of the engine (:func:`do_attack`) and of the menu's
    attack options.

    The weapon is ``weapon_id`` if it can hit the target (else
    ``weapon_unavailable``), or the first listed attack that can. A full attack
    makes every iterative attack of that weapon, or, with a natural weapon,
    every natural weapon that can reach the target once (SRD « Natural
    Attacks »: never iteratives); under *haste*, one more swing of the chosen
    weapon at its full bonus, second.
    """
    target = s.target(action.target_id)
    if target is None:
        return Reason.MISSING_TARGET
    if not target.active:
        return Reason.TARGET_DOWN
    start, cell, ks, kt = actor.cell, target.cell, actor.space, target.space
    attack: AttackProfile | None = None
    if action.weapon_id is None:
        attack, reason = weapon_for(gmap, start, cell, actor.attacks, ks=ks, kt=kt)
        if attack is None:
            return reason or Reason.NO_WEAPON
    else:
        for a in actor.attacks:
            if a.id == action.weapon_id:
                if attack_reason(gmap, start, cell, a, ks, kt) is None:
                    attack = a
                break
        if attack is None:
            return Reason.WEAPON_UNAVAILABLE
    swings: tuple[tuple[AttackProfile, int], ...]
    if action.kind == "full_attack" and attack.natural:
        # SRD « Natural Attacks »: a full attack uses every natural weapon
        # (those that can reach this target), each once, never iteratives.
        swings = tuple(
            [
                (a, 0)
                for a in actor.attacks
                if a.natural
                and (a is attack or attack_reason(gmap, start, cell, a, ks, kt) is None)
            ]
        )
    elif action.kind == "full_attack":
        bab = actor.profile.spec.bab
        swings = _FULL_SWINGS.get((attack, bab)) or _full_swings(attack, bab)
    else:
        return AttackPlan(action.kind, target.id, ((attack, 0),))
    fx = actor.effects
    if fx.items and fx.total(EXTRA_ATTACK) > 0:
        # SRD « Haste »: one extra attack at its full bonus with one weapon (the
        # chosen one), once however many effects give it
        swings = (swings[0], (_once(attack), 0), *swings[1:])
    return AttackPlan(action.kind, target.id, swings)


#: a weapon whose swing repeats (``count``), as one swing: *haste*'s extra attack
_ONCE: dict[AttackProfile, AttackProfile] = {}


def _once(attack: AttackProfile) -> AttackProfile:
    """``attack`` making one swing (its ``count`` 1)."""
    if attack.count == 1:
        return attack
    hit = _ONCE.get(attack)
    if hit is None:
        if len(_ONCE) >= _MAX_FULL_SWINGS:
            _ONCE.clear()
        hit = _ONCE[attack] = dataclasses.replace(attack, count=1)
    return hit


def do_attack(fight: FightState, actor: CombatantState, plan: AttackPlan) -> ActionResult:
    """Make the swings of :func:`verify_attack`'s plan (each stops once the
    target or the attacker is down, or the weapon broke)."""
    target = fight.by_id[plan.target_id]
    for weapon, pen in plan.swings:
        for _ in range(weapon.count):
            # a misfire breaks the firearm: its remaining shots are lost
            if not target.active or not actor.active or weapon.id in actor.weapon_broken:
                break
            if not weapon.is_melee and threat_possible(fight, actor, movement=False):
                provoke(fight, actor, actor.pos, movement=False)
                if not actor.active:
                    break
            swing = resolve_swing(fight, actor, target, weapon, iterative=pen)
            spec = weapon.spec
            if (
                swing is not None
                and not weapon.is_melee
                and (spec.firearm or spec.splash is not None)
            ):
                after_swing(fight, actor, target, weapon, swing)
    return succeeded(plan.kind)


def do_total_defense(
    fight: FightState, actor: CombatantState, plan: TotalDefenseAction
) -> ActionResult:
    """SRD « Total Defense »: +4 dodge AC until the next turn (a standard action)."""
    add_effect(actor, TOTAL_DEFENSE_EFFECT)
    if fight.log is not None:
        fight.log.append(Stance(fight.round, actor.id, "total_defense", 0, TOTAL_DEFENSE_AC))
    return succeeded("total_defense")


def do_fight_defensively(
    fight: FightState, actor: CombatantState, plan: FightDefensivelyAction
) -> ActionResult:
    """SRD « Fighting Defensively »: −4 on the attacks, +2 dodge AC until the next turn."""
    for effect in FIGHT_DEFENSIVELY_EFFECTS:
        add_effect(actor, effect)
    if fight.log is not None:
        fight.log.append(
            Stance(
                fight.round,
                actor.id,
                "fight_defensively",
                FIGHT_DEFENSIVELY_PENALTY,
                FIGHT_DEFENSIVELY_AC,
            )
        )
    return succeeded("fight_defensively")
