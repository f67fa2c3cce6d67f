"""Attack rolls, critical hits, damage and damage reduction.

* Attack: d20 + final ``attack_bonus`` + situational modifiers (iterative
  penalty, range increments, charge +2, high ground +1 in melee) ≥ target AC
  (touch AC for touch attacks and for firearms within their first increment)
  + cover − 2 if the target charged. Natural 1 misses, natural 20 hits.
* Critical: a hit whose natural roll is within the threat range is confirmed by
  a second roll with the same modifiers (natural 20 confirms, natural 1 fails).
  A confirmed critical rolls the physical damage dice and flat bonuses
  ``crit_mult`` times (SRD « Critical Hits »); energy components are rolled once.
* Damage reduction applies after multiplication, to the physical part only,
  never below 0. A bypass ``"a and b"`` needs every property, ``"a or b"`` any.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from engine.checks import D20_ATTACK, CheckKind, Modifier, RollRecord, check
from engine.creatures import AttackProfile, parse_bypass
from engine.grid import distance_ft
from engine.life import apply_damage
from engine.los import cover_bonus
from engine.reach import range_penalty
from engine.rng import Rng
from engine.state import CombatantState

if TYPE_CHECKING:
    from engine.battle import Battle

CHARGE_ATTACK_BONUS = 2
CHARGE_AC_PENALTY = 2
HIGH_GROUND_BONUS = 1
ITERATIVE_STEP = -5


def iterative_penalties(bab: int, attack: AttackProfile) -> list[int]:
    """Penalties of a full attack's iterative attacks: [0, -5, -10, -15] by BAB.

    Natural attacks never get iterative attacks.
    """
    if attack.natural:
        return [0]
    extra = max(0, min(3, (bab - 1) // 5))
    return [ITERATIVE_STEP * i for i in range(extra + 1)]


@functools.lru_cache(maxsize=1024)
def modifier(value: int, source: str) -> Modifier:
    """A shared (immutable) :class:`Modifier` instance."""
    return Modifier(value, source)


def roll_damage(rng: Rng, attack: AttackProfile, mult: int) -> tuple[int, int]:
    """Roll damage: ``(physical, energy)`` before any reduction."""
    physical = 0
    energy = 0
    has_physical = False
    for part in attack.parts:
        if part.physical:
            has_physical = True
            for _ in range(mult):
                physical += part.dice.roll(rng)
        else:
            energy += max(0, part.dice.roll(rng))
    if has_physical:
        physical += attack.damage_bonus * mult
    else:
        energy += attack.damage_bonus
    return max(0, physical), max(0, energy)


def reduce_by_dr(target: CombatantState, attack: AttackProfile, physical: int) -> tuple[int, int]:
    """Apply the target's DR to the physical part: ``(remaining, absorbed)``."""
    dr = target.profile.spec.dr
    if dr is None or physical <= 0:
        return physical, 0
    mode, props = parse_bypass(dr.bypass)
    if mode == "all" and all(p in attack.bypass for p in props):
        return physical, 0
    if mode == "any" and any(p in attack.bypass for p in props):
        return physical, 0
    absorbed = min(physical, dr.amount)
    return physical - absorbed, absorbed


def attack_modifiers(
    battle: Battle,
    actor: CombatantState,
    target: CombatantState,
    attack: AttackProfile,
    *,
    iterative: int = 0,
    charge: bool = False,
) -> tuple[Modifier, ...]:
    """Every modifier of one attack roll, each with its source (French)."""
    gmap = battle.gmap
    mods = [modifier(attack.attack_bonus, "bonus d'attaque")]
    if iterative:
        mods.append(modifier(iterative, "attaque itérative"))
    if attack.range_increment_ft is not None:
        pen = range_penalty(attack, distance_ft(gmap, actor.pos, target.pos))
        if pen:
            mods.append(modifier(pen, "portée"))
    elif gmap.elevation[actor.pos] > gmap.elevation[target.pos]:
        mods.append(modifier(HIGH_GROUND_BONUS, "position surélevée"))
    if charge:
        mods.append(modifier(CHARGE_ATTACK_BONUS, "charge"))
    return tuple(mods)


def target_ac(
    battle: Battle, actor: CombatantState, target: CombatantState, attack: AttackProfile
) -> tuple[int, list[str]]:
    """Effective AC against this attack and the French notes explaining it."""
    gmap = battle.gmap
    spec_ac = target.profile.spec.ac
    notes: list[str] = []
    touch = attack.kind == "touch"
    if attack.spec.firearm and attack.range_increment_ft is not None:
        touch = distance_ft(gmap, actor.pos, target.pos) <= attack.range_increment_ft
    ac = spec_ac.touch if touch else spec_ac.total
    if touch:
        notes.append("contact")
    creatures = None if attack.is_melee else battle.creature_cells(actor, target)
    cover = cover_bonus(
        gmap, actor.pos, target.pos, melee=attack.is_melee, creatures=creatures or ()
    )
    if cover:
        ac += cover
        notes.append(f"abri +{cover}")
    if target.charging:
        ac -= CHARGE_AC_PENALTY
        notes.append(f"charge -{CHARGE_AC_PENALTY}")
    return ac, notes


def resolve_swing(
    battle: Battle,
    actor: CombatantState,
    target: CombatantState,
    attack: AttackProfile,
    *,
    iterative: int = 0,
    charge: bool = False,
) -> None:
    """One attack roll against ``target``, with crit, damage and its life state."""
    rng = battle.rng
    mods = attack_modifiers(battle, actor, target, attack, iterative=iterative, charge=charge)
    ac, notes = target_ac(battle, actor, target, attack)
    roll = check(rng, D20_ATTACK, CheckKind.ATTACK, mods, ac)
    confirm: RollRecord | None = None
    if not roll.success:
        if battle.log is not None:
            battle.note(actor, _attack_text(attack, target, roll, ac, notes) + " -> RATÉ", roll)
        return
    mult = 1
    if roll.natural >= attack.crit_range:
        confirm = check(rng, D20_ATTACK, CheckKind.CONFIRM, mods, ac)
        if confirm.success:
            mult = attack.crit_mult
    physical, energy = roll_damage(rng, attack, mult)
    physical, absorbed = reduce_by_dr(target, attack, physical)
    damage = physical + energy
    actor.hits += 1
    if mult > 1:
        actor.crits += 1
    before = target.hp
    apply_damage(target, damage)
    actor.damage_dealt += max(0, damage)
    if battle.log is not None:
        text = _attack_text(attack, target, roll, ac, notes)
        if confirm is not None:
            verdict = "CRITIQUE" if confirm.success else "non confirmé"
            text += (
                f" -> MENACE, confirmation d20={confirm.natural}"
                f"{confirm.modifier_total:+d}={confirm.total} -> {verdict}"
            )
            if confirm.success:
                text += f" ×{attack.crit_mult}"
        else:
            text += " -> TOUCHÉ"
        text += f" : {damage} dégât{'s' if damage > 1 else ''}"
        if absorbed:
            text += f" (RD absorbe {absorbed})"
        text += f" ({target.id} {target.hp}/{target.profile.spec.hp_max} pv"
        if target.life_label() != "actif":
            text += f", {target.life_label()}"
        text += ")"
        battle.note(actor, text, roll, *((confirm,) if confirm else ()))
        if before >= 0 > target.hp or target.dead:
            battle.state_change(target)


def _attack_text(
    attack: AttackProfile, target: CombatantState, roll: RollRecord, ac: int, notes: list[str]
) -> str:
    detail = f" ({', '.join(notes)})" if notes else ""
    return (
        f"{attack.name} vs {target.id} d20={roll.natural}{roll.modifier_total:+d}={roll.total}"
        f" CA {ac}{detail}"
    )
