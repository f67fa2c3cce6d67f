"""The attack actions: one attack, a full attack (iteratives, or every natural
weapon once), the weapon chosen for them; the defensive stances (total defense,
fighting defensively).

``do_attack(fight, actor, action) -> ActionResult`` resolves the action on the
:class:`engine.fight.FightState`; each swing is :func:`engine.attack.resolve_swing`,
preceded by the attacks of opportunity a ranged attack from a threatened square
provokes (:mod:`engine.aoo`) and followed by a firearm's misfire or a splash
(:mod:`engine.weapons`).
"""

from __future__ import annotations

from engine.actions import ActionResult, AttackAction, FullAttackAction, Reason
from engine.aoo import provoke, threat_possible
from engine.attack import (
    FIGHT_DEFENSIVELY_AC,
    FIGHT_DEFENSIVELY_EFFECTS,
    FIGHT_DEFENSIVELY_PENALTY,
    TOTAL_DEFENSE_AC,
    TOTAL_DEFENSE_EFFECT,
    iterative_penalties,
    resolve_swing,
)
from engine.creatures import AttackProfile
from engine.effects import add_effect
from engine.fight import FightState
from engine.reach import attack_reason, weapon_for
from engine.state import CombatantState
from engine.weapons import after_swing


def choose_weapon(
    fight: FightState, actor: CombatantState, target: CombatantState, weapon_id: str | None
) -> tuple[AttackProfile | None, str | None]:
    if weapon_id is None:
        return weapon_for(
            fight.gmap, actor.pos, target.pos, actor.attacks, ks=actor.space, kt=target.space
        )
    for attack in actor.attacks:
        if attack.id == weapon_id:
            if (
                attack_reason(fight.gmap, actor.pos, target.pos, attack, actor.space, target.space)
                is None
            ):
                return attack, None
            break
    return None, Reason.WEAPON_UNAVAILABLE


def do_attack(
    fight: FightState, actor: CombatantState, action: AttackAction | FullAttackAction
) -> ActionResult:
    target = fight.target(action.target_id)
    if target is None:
        return ActionResult(action.kind, False, Reason.MISSING_TARGET)
    if not target.active:
        return ActionResult(action.kind, False, Reason.TARGET_DOWN)
    attack, reason = choose_weapon(fight, actor, target, action.weapon_id)
    if attack is None:
        return ActionResult(action.kind, False, reason)
    swings: list[tuple[AttackProfile, int]]
    if action.kind == "full_attack" and attack.natural:
        # SRD « Natural Attacks »: a full attack uses every natural weapon
        # (those that can reach this target), each once, never iteratives.
        swings = [
            (a, 0)
            for a in actor.attacks
            if a.natural
            and (
                a is attack
                or attack_reason(fight.gmap, actor.pos, target.pos, a, actor.space, target.space)
                is None
            )
        ]
    elif action.kind == "full_attack":
        swings = [(attack, p) for p in iterative_penalties(actor.profile.spec.bab, attack)]
    else:
        swings = [(attack, 0)]
    for weapon, pen in swings:
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
    return ActionResult(action.kind, True)


def do_total_defense(fight: FightState, actor: CombatantState) -> ActionResult:
    """SRD « Total Defense »: +4 dodge AC until the next turn (a standard action)."""
    add_effect(actor, TOTAL_DEFENSE_EFFECT)
    fight.note(actor, f"défense totale (+{TOTAL_DEFENSE_AC} CA)")
    return ActionResult("total_defense", True)


def do_fight_defensively(fight: FightState, actor: CombatantState) -> ActionResult:
    """SRD « Fighting Defensively »: −4 on the attacks, +2 dodge AC until the next turn."""
    for effect in FIGHT_DEFENSIVELY_EFFECTS:
        add_effect(actor, effect)
    fight.note(
        actor,
        f"combat sur la défensive ({FIGHT_DEFENSIVELY_PENALTY} à l'attaque, "
        f"+{FIGHT_DEFENSIVELY_AC} CA)",
    )
    return ActionResult("fight_defensively", True)
