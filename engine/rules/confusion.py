"""Confusion at the start of a turn (SRD « Confused »): the d% table and what
each band does — act normally, babble, hurt itself, attack the nearest creature
— and the retaliation against whoever attacked it since its last turn.

Apart from :mod:`engine.rules.status` because it attacks
(:func:`engine.rules.attack.resolve_swing`), and the attack rules give
conditions themselves (an on-hit rider, :mod:`engine.rules.auras`): status is
below attack, confusion above it.
"""

from __future__ import annotations

from engine.content.creatures import ability_mod
from engine.content.space import body_distance_ft
from engine.core.dice import compile_dice
from engine.core.events import Confusion, ConfusionBand
from engine.core.rng import RollKind
from engine.geometry.reach import weapon_for
from engine.rules.attack import resolve_swing
from engine.rules.life import apply_damage
from engine.state.fight import FightState
from engine.state.state import CombatantState

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
