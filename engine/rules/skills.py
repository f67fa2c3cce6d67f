"""Skill checks and Combat Maneuver Defense (SRD « Using Skills », « Combat Maneuver Defense »).

A skill check is the single check mechanism of :mod:`engine.core.checks` with the
plain d20 (no automatic success or failure on a natural 20 or 1), and every
modifier named:

* from a file's :class:`~engine.content.creatures.SkillEntry`: ranks + the key ability
  modifier + 3 for a class skill with at least one rank + its armor check
  penalty, + the size modifier for Stealth (Small +4, Large −4, Tiny +8 …);
  or its ``total`` (the stat block's final bonus), which already includes all
  of them;
* a skill the file does not list is untrained: the ability modifier (and the
  size modifier for Stealth) only;
* blinded (SRD « Blinded »): −4 on Strength- and Dexterity-based skills and on
  opposed Perception checks.

>>> from engine.content.creatures import SkillEntry
>>> [m.value for m in entry_modifiers(SkillEntry(rank=1, class_skill=True), "stealth", 2, "Small")]
[1, 2, 3, 4]
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.content.creatures import (
    SKILL_ABILITY,
    Combatant,
    CombatantProfile,
    SkillEntry,
    ability_mod,
)
from engine.content.packs import D20_PLAIN
from engine.content.sizing import CM_SIZE
from engine.core.checks import BonusType, CheckKind, Modifier, RollRecord, check
from engine.core.rng import Rng, RollKind
from engine.rules.saves import SCORE_CONDITIONS, score_delta
from engine.state.conditions import DENIES_DEX, HELPLESS, HELPLESS_DEX_MOD, starting_cond
from engine.state.effects import CMD, DEX, SKILL, STR, Cond, typed_total, use_effects
from engine.state.state import CombatantState

#: the roll kind of each skill the engine rolls (any other: ``RollKind.SKILL``)
SKILL_ROLL = {
    "acrobatics": RollKind.ACROBATICS,
    "perception": RollKind.PERCEPTION,
    "stealth": RollKind.STEALTH,
}

_BLINDED = Cond.BLINDED.value

#: French names written in transcripts
SKILL_FR = {"stealth": "Discrétion", "perception": "Perception", "acrobatics": "Acrobaties"}

#: SRD « Stealth »: size modifier on Stealth checks
STEALTH_SIZE = {
    "Fine": 16,
    "Diminutive": 12,
    "Tiny": 8,
    "Small": 4,
    "Medium": 0,
    "Large": -4,
    "Huge": -8,
    "Gargantuan": -12,
    "Colossal": -16,
}

#: SRD « Blinded »: −4 on most Str- and Dex-based skill checks and opposed Perception checks
BLINDED_SKILL_PENALTY = -4

_ABILITY_FR = {"str": "For", "dex": "Dex", "con": "Con", "int": "Int", "wis": "Sag", "cha": "Cha"}


def _key(skill: str) -> str:
    low = " ".join(skill.strip().lower().split())
    if low in SKILL_ABILITY:
        return low
    return low.split(" (")[0].split(" ")[0]


def key_ability(skill: str) -> str | None:
    """Key ability (``"dex"`` …) of a skill name, or ``None`` for an unknown skill."""
    return SKILL_ABILITY.get(_key(skill))


def skill_entry(spec: Combatant, skill: str) -> SkillEntry | None:
    """The file's entry for ``skill`` (names compared case-insensitively)."""
    wanted = " ".join(skill.strip().lower().split())
    for name, entry in spec.skills.items():
        if " ".join(name.strip().lower().split()) == wanted:
            return entry
    return None


def trained(profile: CombatantProfile, skill: str) -> bool:
    """At least one rank in ``skill``."""
    entry = skill_entry(profile.spec, skill)
    return entry is not None and entry.rank > 0


def _ability_score(spec: Combatant, ability: str) -> int | None:
    scores = spec.abilities
    return {
        "str": scores.str_score,
        "dex": scores.dex_score,
        "con": scores.con_score,
        "int": scores.int_score,
        "wis": scores.wis_score,
        "cha": scores.cha_score,
    }[ability]


def entry_modifiers(
    entry: SkillEntry | None, skill: str, ability_modifier: int, size: str
) -> tuple[Modifier, ...]:
    """Static modifiers of one skill from its file entry (``None``: untrained)."""
    name = _key(skill)
    if entry is not None and entry.total is not None:
        return (Modifier(entry.total, SKILL_FR.get(name, skill)),)
    mods: list[Modifier] = []
    if entry is not None and entry.rank:
        mods.append(Modifier(entry.rank, "rangs"))
    ability = SKILL_ABILITY.get(name)
    if ability is not None and ability_modifier:
        mods.append(Modifier(ability_modifier, _ABILITY_FR[ability]))
    if entry is not None and entry.class_skill and entry.rank > 0:
        mods.append(Modifier(3, "compétence de classe"))
    if entry is not None and entry.armor_penalty:
        mods.append(Modifier(entry.armor_penalty, "malus d'armure"))
    if name == "stealth" and STEALTH_SIZE.get(size, 0):
        mods.append(Modifier(STEALTH_SIZE[size], "taille"))
    return tuple(mods)


def skill_modifiers(
    profile: CombatantProfile, skill: str, cond: int | None = None
) -> tuple[Modifier, ...]:
    """Every modifier of ``profile``'s ``skill`` check, situational penalties of
    its conditions included (blinded): ``cond``, the :class:`~engine.state.effects.Cond`
    bits it is under (in a fight, its effects'; default: the conditions its file
    starts it under)."""
    spec = profile.spec
    ability = key_ability(skill)
    mod = ability_mod(_ability_score(spec, ability)) if ability else 0
    mods = entry_modifiers(skill_entry(spec, skill), skill, mod, spec.size)
    if cond is None:
        cond = starting_cond(profile.conditions)
    if cond & _BLINDED and (ability in ("str", "dex") or _key(skill) == "perception"):
        mods += (Modifier(BLINDED_SKILL_PENALTY, "aveuglé"),)
    return mods


def skill_bonus(profile: CombatantProfile, skill: str) -> int:
    """The static bonus of a skill (sum of :func:`skill_modifiers`)."""
    return sum(m.value for m in skill_modifiers(profile, skill))


def state_skill_modifiers(state: CombatantState, skill: str) -> tuple[Modifier, ...]:
    """Every modifier of ``state``'s ``skill`` check in the fight: :func:`skill_modifiers`
    under its conditions, its effects' skill modifiers (shaken, sickened…) and the
    change of a lowered Strength or Dexterity."""
    mods = skill_modifiers(state.profile, skill, state.effects.cond)
    fx = state.effects
    if fx.items:  # its effects' skill modifiers (shaken, sickened…), a lowered Str or Dex
        mods += fx.breakdown(SKILL)
        ability = key_ability(skill)
        if ability in ("str", "dex") and fx.scores:
            delta = score_delta(state, STR if ability == "str" else DEX)
            if delta:
                mods += (Modifier(delta, "Force" if ability == "str" else "Dextérité"),)
    return mods


def skill_check(
    rng: Rng,
    state: CombatantState,
    skill: str,
    target: int | None = None,
    extra: Sequence[Modifier] = (),
) -> RollRecord:
    """Roll a skill check: d20 + :func:`skill_modifiers` + ``extra`` against ``target``
    (``None``: an open roll for an opposed check). No natural 1/20 rule. Its die
    is rolled as the skill's :data:`SKILL_ROLL` kind."""
    mods = state_skill_modifiers(state, skill) + tuple(extra)
    fx = state.effects
    roll = SKILL_ROLL.get(_key(skill), RollKind.SKILL)
    rec = check(rng, D20_PLAIN, CheckKind.SKILL, mods, target, roll=roll)
    if fx.against:  # a ``once`` bonus to skill checks (*guidance*) is spent
        use_effects(state, SKILL, "")
    return rec


def base_cmd(spec: Combatant) -> int:
    """The file's ``cmd``, else 10 + BAB + Str mod + Dex mod + special size modifier."""
    if spec.cmd is not None:
        return spec.cmd
    abilities = spec.abilities
    return (
        10
        + spec.bab
        + ability_mod(abilities.str_score)
        + ability_mod(abilities.dex_score)
        + CM_SIZE.get(spec.size, 0)
    )


#: the conditions that change a CMD through Dexterity: a lowered score, no Dex
#: bonus (flat-footed, stunned…, and blinded: SRD « Blinded », the attack rules
#: read it as not seeing the attacker), Dexterity 0 (helpless)
_NO_DEX = DENIES_DEX | Cond.BLINDED.value
_CMD_CONDITIONS = SCORE_CONDITIONS | _NO_DEX | HELPLESS


def cmd(state: CombatantState) -> int:
    """Current CMD: :func:`base_cmd` plus what its effects give CMD (the dodge
    bonus of total defense or fighting defensively, until its next turn) and the
    change of a lowered Strength or Dexterity (CRB « Combat Maneuver Defense »).

    A creature denied its Dexterity bonus to AC adds neither it nor its dodge
    bonuses (CRB: « a flat-footed creature does not add its Dexterity bonus to its
    CMD »; SRD « Dodge Bonus »); a helpless one counts Dexterity 0, a −5 modifier
    instead of its own (SRD « Helpless »)."""
    fx = state.effects
    value = base_cmd(state.profile.spec) + fx.total(CMD)
    cond = fx.cond
    if not cond & _CMD_CONDITIONS and not fx.scores:
        return value
    if fx.scores:
        value += score_delta(state, STR)
    dex = ability_mod(state.profile.spec.abilities.dex_score)
    if cond & HELPLESS:
        return value - dex + HELPLESS_DEX_MOD - typed_total(fx.items, CMD, BonusType.DODGE)
    if fx.scores:
        delta = score_delta(state, DEX)
        value += delta
        dex += delta
    if cond & _NO_DEX:
        value -= max(0, dex) + typed_total(fx.items, CMD, BonusType.DODGE)
    return value
