"""The coup de grâce (SRD « Coup de Grâce »).

« As a full-round action, you can use a melee weapon to deliver a coup de grace
to a helpless opponent. You can also use a bow or crossbow, provided you are
adjacent to the target. You automatically hit and score a critical hit. If the
defender survives the damage, he must make a Fortitude save (DC 10 + damage
dealt) or die. […] Delivering a coup de grace provokes attacks of opportunity
from threatened opponents. »

* **Target**: an active creature under a helpless condition
  (:data:`engine.state.conditions.HELPLESS`: helpless, paralyzed, asleep,
  unconscious); a dying or dead one is down already (``target_down``).
* **Weapon**: a melee weapon that reaches it now (a reach weapon too), or a
  ranged weapon from an adjacent square (the SRD's bow or crossbow: any ranged
  weapon but a splash weapon, which would splash). ``weapon_id`` omitted: the
  first listed weapon that can.
* **Resolution**: no attack roll and no miss chance; the weapon's damage × its
  critical multiplier (its effects' damage modifiers included), then damage
  reduction and resistances; if the target is not dead, a Fortitude save
  against DC 10 + the damage dealt (lethal and nonlethal) or it dies
  (:func:`engine.rules.saves.roll_save`). A sleeper that survives wakes up.
* It provokes attacks of opportunity before the blow (the attacks land while the
  target is still helpless); readied actions that wait for an attack fire as for
  any swing (:attr:`engine.state.fight.FightState.before_swing`).
* Creatures immune to critical hits cannot be finished this way in the SRD; the
  engine models no immunity to critical hits yet (``docs/rules.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.content.actions import ActionResult, CoupDeGraceAction, Reason, succeeded
from engine.content.creatures import AttackProfile
from engine.content.maps import GameMap
from engine.content.space import body_distance_ft
from engine.core.events import CoupDeGrace, Revealed
from engine.geometry.reach import attack_reason, body_line_of_effect
from engine.rules.aoo import provoke, threat_possible
from engine.rules.attack import damage_extra, final_damage, roll_damage, wake
from engine.rules.life import apply_damage, apply_nonlethal, kill
from engine.rules.saves import roll_save
from engine.state.conditions import HELPLESS
from engine.state.effects import Cond
from engine.state.fight import C, FightState, Mover, Situation
from engine.state.state import CombatantState

_HELPLESS = HELPLESS
_ASLEEP = Cond.ASLEEP.value
#: SRD « Coup de Grâce »: the save's DC is 10 + the damage dealt
BASE_DC = 10
#: what the transcript calls it (the effect of the save)
EFFECT = "coup de grâce"


@dataclass(slots=True)
class CoupDeGracePlan:
    """What an accepted coup de grâce does: ``attack`` on ``target_id``."""

    target_id: str
    attack: AttackProfile


def _usable(gmap: GameMap, actor: Mover, target: Mover, attack: AttackProfile) -> bool:
    """Whether ``attack`` can deliver a coup de grâce on ``target`` from where ``actor`` stands."""
    start, cell, ks, kt = actor.cell, target.cell, actor.space, target.space
    if attack.is_melee:
        return attack_reason(gmap, start, cell, attack, ks, kt) is None
    return (
        attack.spec.splash is None
        and body_distance_ft(gmap, start, ks, cell, kt) <= 5
        and body_line_of_effect(gmap, start, ks, cell, kt)
    )


def verify_coup_de_grace(
    gmap: GameMap, s: Situation[C], actor: C, action: CoupDeGraceAction
) -> CoupDeGracePlan | Reason:
    """Whether ``actor`` may deliver ``action`` now, with which weapon, or why not:
    the one judgement of the engine (:func:`do_coup_de_grace`) and of the menu's
    ``coup_de_grace`` options."""
    target = s.target(action.target_id)
    if target is None:
        return Reason.MISSING_TARGET
    if not target.active:
        return Reason.TARGET_DOWN
    if not target.cond & _HELPLESS:
        return Reason.NOT_HELPLESS
    if action.weapon_id is None:
        for a in actor.attacks:
            if _usable(gmap, actor, target, a):
                return CoupDeGracePlan(target.id, a)
        return Reason.NO_WEAPON
    for a in actor.attacks:
        if a.id == action.weapon_id:
            if _usable(gmap, actor, target, a):
                return CoupDeGracePlan(target.id, a)
            break
    return Reason.WEAPON_UNAVAILABLE


def do_coup_de_grace(
    fight: FightState, actor: CombatantState, plan: CoupDeGracePlan
) -> ActionResult:
    """Deliver :func:`verify_coup_de_grace`'s blow (see the module docstring)."""
    target = fight.by_id[plan.target_id]
    attack = plan.attack
    if threat_possible(fight, actor, movement=False):
        provoke(fight, actor, actor.pos, movement=False, why="coup_de_grace")
        if not actor.active:
            return ActionResult("coup_de_grace", False, Reason.ACTOR_DOWN)
    if fight.watching:
        fight.before_swing(fight, actor, target)
        if not actor.active:
            return ActionResult("coup_de_grace", False, Reason.ACTOR_DOWN)
    if not target.active:
        return ActionResult("coup_de_grace", False, Reason.TARGET_DOWN)
    log = fight.log
    if actor.hidden_from:  # SRD « Stealth »: attacking reveals the attacker
        actor.hidden_from.clear()
        if log is not None:
            log.append(Revealed(fight.round, actor.id, "attack"))
    mult = attack.crit_mult
    physical, energy = roll_damage(fight.rng, attack, mult, damage_extra(actor, attack))
    hurt = final_damage(target, attack, physical, energy)
    hp, nonlethal = target.hp, target.nonlethal
    apply_damage(target, hurt.lethal)
    apply_nonlethal(target, hurt.nonlethal)
    dealt = hp - target.hp + target.nonlethal - nonlethal
    actor.hits += 1
    actor.crits += 1
    actor.damage_dealt += max(0, hurt.lethal)
    dc = None if target.dead else BASE_DC + dealt
    if log is not None:
        log.append(
            CoupDeGrace(
                fight.round,
                actor.id,
                target.id,
                attack.name,
                mult,
                hurt.lethal,
                hurt.nonlethal,
                hurt.dr_absorbed,
                hurt.energy_notes,
                dc,
                target.hp,
                target.profile.spec.hp_max,
            )
        )
    if dc is not None:
        save = roll_save(fight, target, "fort", dc, effect=EFFECT, source=actor)
        if save is not None and not save.success:
            kill(target)
        elif target.effects.cond & _ASLEEP and dealt > 0:
            wake(fight, target)
    if log is not None and (target.dead or hp >= 0 > target.hp):
        fight.state_change(target)
    if fight.watching:
        fight.after_swing(fight, actor, target, True, dealt)
    return succeeded("coup_de_grace")
