"""Casting under threat (SRD « Concentration », « Casting Defensively », « Arcane
Spell Failure », « Deafened », « Nauseated », « Combat Casting »).

* **The concentration check** is the pack's ``concentration`` kind (no natural
  result: a 1 does not fail, a 20 does not succeed): d20 + caster level + the
  casting ability's modifier (Int, Wis or Cha, never Con), against a DC:

  - casting defensively: 15 + 2 × the spell's level (:func:`defensive_dc`);
  - hurt while casting (an attack of opportunity that hits): 10 + the damage +
    the spell's level (:func:`damage_dc`);
  - grappled: 10 + the grappler's CMB + the spell's level (:func:`grapple_dc`).

  Combat Casting adds +4 when casting defensively or while grappled, never
  against damage. A failure loses the spell.
* **Nauseated**: a creature can neither cast (:func:`verify_can_cast`) nor
  concentrate (its check fails, no die drawn).
* **Spell failure** (:func:`spell_failure`), after the start-of-cast guards: a
  deafened caster's spell with a verbal component fails on d100 ≤ 20; an arcane
  caster's spell with a somatic component fails on d100 ≤ its armor's arcane
  spell failure. Each d100 is drawn only when its condition holds, so a fight
  that uses neither rule draws no die.

These functions take the caster, the spell's level, its components and its name
(for the transcript): they know nothing of the spell files' format.
"""

from __future__ import annotations

from collections.abc import Collection

from engine.content.actions import Reason
from engine.content.creatures import ability_mod
from engine.content.packs import PF1E
from engine.core.checks import CheckKind, Modifier, RollRecord, check
from engine.core.events import Concentration, ConcentrationCause, SpellFailure, SpellFailureCause
from engine.core.rng import RollKind
from engine.state.effects import Cond
from engine.state.fight import FightState
from engine.state.state import CombatantState

#: the concentration check (SRD « Concentration »: a plain d20, no natural result)
D20_CONCENTRATION = PF1E.mechanic("concentration")
#: the feat, as ``CombatantProfile.features`` holds it
COMBAT_CASTING = "combat casting"
#: SRD « Combat Casting »: +4 to cast defensively or while grappled
COMBAT_CASTING_BONUS = 4
#: SRD « Deafened »: « 20 % chance of spell failure when casting spells with verbal components »
DEAFENED_FAILURE = 20
#: the causes for which Combat Casting counts
_COMBAT_CASTING_CAUSES = frozenset({"defensive", "grappled"})
#: the casting abilities: the file's score and its French name
_ABILITIES = {
    "int": ("int_score", "Intelligence"),
    "wis": ("wis_score", "Sagesse"),
    "cha": ("cha_score", "Charisme"),
}
_NAUSEATED = Cond.NAUSEATED.value
_DEAFENED = Cond.DEAFENED.value
_SPELL_FAILURE = RollKind.SPELL_FAILURE


def defensive_dc(spell_level: int) -> int:
    """SRD « Concentration », casting defensively: 15 + twice the spell's level.

    >>> defensive_dc(0), defensive_dc(1), defensive_dc(3)
    (15, 17, 21)
    """
    return 15 + 2 * spell_level


def damage_dc(damage: int, spell_level: int) -> int:
    """SRD « Concentration », injured while casting: 10 + the damage + the spell's level.

    >>> damage_dc(6, 2)
    18
    """
    return 10 + damage + spell_level


def grapple_dc(grappler_cmb: int, spell_level: int) -> int:
    """SRD « Concentration », grappled or pinned: 10 + the grappler's CMB + the spell's level.

    >>> grapple_dc(7, 1)
    18
    """
    return 10 + grappler_cmb + spell_level


def caster_level(caster: CombatantState) -> int:
    """Its caster level: its spellbook's (:mod:`engine.content.spellbook`), else its
    file's ``caster_level``, else its ``level``."""
    if caster.casting is not None:
        return caster.casting.book.caster_level
    spec = caster.profile.spec
    return spec.caster_level if spec.caster_level is not None else spec.level


def casting_modifier(caster: CombatantState) -> Modifier | None:
    """Its casting ability's modifier (the file's ``casting_ability``: Int, Wis or
    Cha), or ``None`` when the file names none."""
    ability = caster.profile.spec.casting_ability
    if ability is None:
        return None
    field, label = _ABILITIES[ability]
    return Modifier(ability_mod(getattr(caster.profile.spec.abilities, field)), label)


def concentration_modifiers(
    caster: CombatantState, *, combat_casting: bool = False, level: int | None = None
) -> tuple[Modifier, ...]:
    """The modifiers of ``caster``'s concentration check, each with its source: its
    caster level (``level``, else :func:`caster_level`), its casting ability's
    modifier, and Combat Casting's +4 when ``combat_casting`` and it has the feat."""
    mods = [Modifier(caster_level(caster) if level is None else level, "niveau de lanceur")]
    ability = casting_modifier(caster)
    if ability is not None:
        mods.append(ability)
    if combat_casting and "combat casting" in caster.profile.features:  # (COMBAT_CASTING)
        mods.append(Modifier(COMBAT_CASTING_BONUS, "Magie de guerre"))
    return tuple(mods)


def can_concentrate(caster: CombatantState) -> bool:
    """SRD « Nauseated »: « unable to … cast spells, concentrate on spells »."""
    return not caster.effects.cond & _NAUSEATED


def verify_can_cast(caster: CombatantState) -> Reason | None:
    """Why ``caster`` may not cast a spell at all (nauseated: ``downgraded:nauseated``),
    or ``None``."""
    if caster.effects.cond & _NAUSEATED:
        return Reason.DOWNGRADED_NAUSEATED
    return None


def roll_concentration(
    fight: FightState,
    caster: CombatantState,
    dc: int,
    *,
    combat_casting: bool = False,
    level: int | None = None,
) -> RollRecord:
    """One concentration check of ``caster`` against ``dc`` (not logged)."""
    mods = concentration_modifiers(caster, combat_casting=combat_casting, level=level)
    return check(fight.rng, D20_CONCENTRATION, CheckKind.CONCENTRATION, mods, dc)


def concentrate(
    fight: FightState,
    caster: CombatantState,
    cause: ConcentrationCause,
    dc: int,
    *,
    spell: str,
    damage: int = 0,
    level: int | None = None,
) -> bool:
    """``caster``'s concentration check against ``dc`` to cast ``spell`` (its French
    name) for ``cause``; returns whether the spell survives. Combat Casting counts
    when casting defensively or grappled. A nauseated caster fails without a die.
    Logged as a :class:`~engine.core.events.Concentration`."""
    if not can_concentrate(caster):
        if fight.log is not None:
            fight.log.append(Concentration(fight.round, caster.id, spell, cause, dc, None, damage))
        return False
    rec = roll_concentration(
        fight, caster, dc, combat_casting=cause in _COMBAT_CASTING_CAUSES, level=level
    )
    if fight.log is not None:
        fight.log.append(Concentration(fight.round, caster.id, spell, cause, dc, rec, damage))
    return rec.success is True


def cast_defensively(
    fight: FightState,
    caster: CombatantState,
    spell_level: int,
    *,
    spell: str,
    level: int | None = None,
) -> bool:
    """SRD « Casting Defensively »: no attack of opportunity, but a concentration
    check against 15 + 2 × ``spell_level`` (Combat Casting +4); a failure loses the
    spell."""
    return concentrate(
        fight, caster, "defensive", defensive_dc(spell_level), spell=spell, level=level
    )


def hurt_while_casting(
    fight: FightState,
    caster: CombatantState,
    damage: int,
    spell_level: int,
    *,
    spell: str,
    level: int | None = None,
) -> bool:
    """SRD « Concentration », « Injury »: ``caster`` took ``damage`` while casting (an
    attack of opportunity that hit): a concentration check against 10 + the damage
    + ``spell_level``, without Combat Casting. No damage, no check (and no die)."""
    if damage <= 0:
        return True
    return concentrate(
        fight,
        caster,
        "damage",
        damage_dc(damage, spell_level),
        spell=spell,
        damage=damage,
        level=level,
    )


def grappled_casting(
    fight: FightState,
    caster: CombatantState,
    grappler_cmb: int,
    spell_level: int,
    *,
    spell: str,
    level: int | None = None,
) -> bool:
    """SRD « Concentration », « Grappled or Pinned »: a grappled caster (who does not
    provoke) makes a concentration check against 10 + its grappler's CMB +
    ``spell_level`` (Combat Casting +4), defensive or not."""
    return concentrate(
        fight, caster, "grappled", grapple_dc(grappler_cmb, spell_level), spell=spell, level=level
    )


def spell_failure(
    fight: FightState,
    caster: CombatantState,
    components: Collection[str],
    *,
    spell: str,
    arcane: bool | None = None,
) -> SpellFailureCause | None:
    """Whether ``spell`` (with ``components``: ``V``, ``S``, ``M``, ``F``, ``DF``) fails
    as ``caster`` casts it, and why: ``deafened`` (SRD « Deafened »: d100 ≤ 20 when
    it has V) then ``arcane`` (SRD « Arcane Spell Failure »: d100 ≤ the file's
    ``armor_spell_failure`` when the caster casts it as an arcane spell — ``arcane``,
    else the file's ``arcane_caster`` — and it has S); ``None``: it is cast.

    Each d100 (roll kind ``spell_failure``) is drawn only when its condition holds,
    the second only when the first did not fail; each is logged as a
    :class:`~engine.core.events.SpellFailure`.
    """
    log = fight.log
    if caster.effects.cond & _DEAFENED and "V" in components:
        d100 = fight.rng.die(100, _SPELL_FAILURE)
        failed = d100 <= DEAFENED_FAILURE
        if log is not None:
            log.append(
                SpellFailure(fight.round, caster.id, spell, "deafened", d100, DEAFENED_FAILURE,
                             failed)
            )  # fmt: skip
        if failed:
            return "deafened"
    spec = caster.profile.spec
    chance = spec.armor_spell_failure
    if chance > 0 and "S" in components and (spec.arcane_caster if arcane is None else arcane):
        d100 = fight.rng.die(100, _SPELL_FAILURE)
        failed = d100 <= chance
        if log is not None:
            log.append(SpellFailure(fight.round, caster.id, spell, "arcane", d100, chance, failed))
        if failed:
            return "arcane"
    return None
