"""Combatant files (JSON): the seed's ``Combatant`` schema and its runtime profile.

Values are **final** stat-block values: AC and ``attack_bonus`` already include
the size modifier, exactly as printed in a bestiary. The engine never re-applies
size to attacks or AC. The AC may be given by its three totals, by its
components (« +2 armor, +2 Dex, +1 shield, +1 size ») or both
(:class:`ACProfile`); the engine plays the :class:`ACBreakdown` compiled from it.

Monsters and player characters share the schema. A combatant is a player
character (PC) when ``pc`` is ``true``, or — for files converted from Foundry
sheets as in the seed — when ``source`` starts with ``fiches_personnages/``.
Everything else is a monster. This matters for ``--simple-monster-death``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from engine.content.abilities import (
    CONDITION_NAMES,
    DESCRIPTORS,
    Aura,
    AuraSpec,
    Rider,
    RiderSpec,
    StartConditionSpec,
    StartingCondition,
    compile_aura,
    compile_rider,
    compile_start,
    parse_start_conditions,
)
from engine.content.space import VERY_SMALL, space_of
from engine.content.validation import (
    StrictModel,
    empty_dict,
    empty_list,
    load_json,
    read_text,
    validate,
)
from engine.core.checks import BonusType, Modifier
from engine.core.dice import DiceExpr, compile_dice
from engine.core.errors import DataError, suggestion

Size = Literal[
    "Fine", "Diminutive", "Tiny", "Small", "Medium", "Large", "Huge", "Gargantuan", "Colossal"
]

PHYSICAL_TYPES = frozenset({"slashing", "piercing", "bludgeoning"})
ENERGY_TYPES = frozenset({"fire", "cold", "acid", "electricity", "sonic"})
OTHER_DAMAGE_TYPES = frozenset({"force", "negative", "positive", "untyped"})
#: Properties that only matter for DR bypass (materials, alignments, magic).
BYPASS_PROPERTIES = frozenset(
    {"magic", "silver", "cold iron", "adamantine", "good", "evil", "lawful", "chaotic", "epic"}
)
DAMAGE_TYPES = PHYSICAL_TYPES | ENERGY_TYPES | OTHER_DAMAGE_TYPES | BYPASS_PROPERTIES

CREATURE_TYPES = frozenset(
    {
        "aberration",
        "animal",
        "construct",
        "dragon",
        "fey",
        "humanoid",
        "magical beast",
        "monstrous humanoid",
        "ooze",
        "outsider",
        "plant",
        "undead",
        "vermin",
    }
)

ALIGNMENTS = ("LG", "NG", "CG", "LN", "N", "CN", "LE", "NE", "CE")
#: what a file's ``immunities`` may name: damage types, the descriptors of effects,
#: the conditions of the table (:func:`engine.rules.saves.immune`)
IMMUNITY_NAMES = DAMAGE_TYPES | DESCRIPTORS | frozenset(CONDITION_NAMES)


def _check_types(types: list[str]) -> list[str]:
    for t in types:
        if t not in DAMAGE_TYPES:
            raise ValueError(f"type de dégâts inconnu « {t} »{suggestion(t, DAMAGE_TYPES)}")
    return types


class AbilityScores(StrictModel):
    str_score: int | None = Field(ge=0, le=99)
    dex_score: int | None = Field(ge=0, le=99)
    con_score: int | None = Field(ge=0, le=99)
    int_score: int | None = Field(default=None, ge=0, le=99)
    wis_score: int | None = Field(default=None, ge=0, le=99)
    cha_score: int | None = Field(default=None, ge=0, le=99)


#: CRB Table 8-1 « Size Modifiers »: the size modifier to AC (and attack rolls)
SIZE_MODIFIER = {
    "Fine": 8,
    "Diminutive": 4,
    "Tiny": 2,
    "Small": 1,
    "Medium": 0,
    "Large": -1,
    "Huge": -2,
    "Gargantuan": -4,
    "Colossal": -8,
}

#: the components of an AC, in stat-block order (:class:`ACBreakdown`)
AC_COMPONENTS = (
    "armor",
    "shield",
    "natural_armor",
    "deflection",
    "dex",
    "dodge",
    "size",
    "other",
)
AC_TOTALS = ("total", "touch", "flat_footed")

#: French source of each component's :class:`~engine.core.checks.Modifier` and its bonus type
_AC_MODIFIERS = {
    "armor": ("armure", BonusType.ARMOR),
    "shield": ("bouclier", BonusType.SHIELD),
    "natural_armor": ("armure naturelle", BonusType.NATURAL_ARMOR),
    "deflection": ("parade", BonusType.DEFLECTION),
    "dex": ("Dex", BonusType.UNTYPED),
    "dodge": ("esquive", BonusType.DODGE),
    "size": ("taille", BonusType.SIZE),
    "other": ("autres", BonusType.UNTYPED),
}
_DERIVED_ARMOR = "armure, bouclier et armure naturelle"


@dataclass(frozen=True, slots=True)
class ACBreakdown:
    """An Armor Class as its components (CRB « Armor Class »: 10 + armor bonus +
    shield bonus + Dexterity modifier + other modifiers), each the stacked value of
    its kind as a stat block prints it (« +2 armor, +2 Dex, +1 shield, +1 size »).
    An enhancement bonus to armor, a shield or natural armor is part of that value.

    The three totals follow and are stored (read on every attack):

    - ``total``: 10 + every component;
    - ``touch``: without armor, shield and natural armor (CRB « Touch Attacks »);
    - ``flat_footed``: without the Dexterity *bonus* (a Dex penalty still applies)
      and without dodge bonuses (CRB « Flat-Footed », « Dodge »).

    ``derived`` marks a breakdown computed from a file that gives only the three
    totals (:func:`derive_breakdown`): ``armor`` then holds armor, shield and
    natural armor together, and ``other`` what the totals, the Dexterity modifier
    and the size do not explain.

    >>> goblin = ACBreakdown(armor=2, shield=1, dex=2, size=1)
    >>> goblin.total, goblin.touch, goblin.flat_footed
    (16, 13, 14)
    >>> ACBreakdown(dex=-1, dodge=1).flat_footed
    9
    """

    armor: int = 0
    shield: int = 0
    natural_armor: int = 0
    deflection: int = 0
    dex: int = 0
    dodge: int = 0
    size: int = 0
    other: int = 0
    derived: bool = False
    total: int = field(init=False)
    touch: int = field(init=False)
    flat_footed: int = field(init=False)

    def __post_init__(self) -> None:
        total = (
            10
            + self.armor
            + self.shield
            + self.natural_armor
            + self.deflection
            + self.dex
            + self.dodge
            + self.size
            + self.other
        )
        object.__setattr__(self, "total", total)
        object.__setattr__(self, "touch", total - self.armor - self.shield - self.natural_armor)
        object.__setattr__(self, "flat_footed", total - max(self.dex, 0) - self.dodge)

    def modifiers(self) -> tuple[Modifier, ...]:
        """The non-zero components as typed modifiers, in stat-block order: the AC
        is 10 plus their :func:`~engine.core.checks.stack`, so an effect's typed bonus
        combines with them by the stacking rules.

        >>> from engine.core.checks import stacked_total
        >>> goblin = ACBreakdown(armor=2, shield=1, dex=2, size=1)
        >>> spell = Modifier(4, "sort bouclier", BonusType.SHIELD)
        >>> 10 + stacked_total(goblin.modifiers()), 10 + stacked_total((*goblin.modifiers(), spell))
        (16, 19)
        """
        out: list[Modifier] = []
        for name in AC_COMPONENTS:
            value: int = getattr(self, name)
            if value:
                source, kind = _AC_MODIFIERS[name]
                if name == "armor" and self.derived:
                    source = _DERIVED_ARMOR
                out.append(Modifier(value, source, kind))
        return tuple(out)

    def explain(self) -> str:
        """The non-zero components as a stat block writes them.

        >>> ACBreakdown(armor=2, shield=1, dex=2, size=1).explain()
        '+2 armor, +1 shield, +2 dex, +1 size'
        """
        return ", ".join(
            f"{value:+d} {name}" for name in AC_COMPONENTS if (value := getattr(self, name))
        )


def derive_breakdown(
    total: int, touch: int, flat_footed: int, dex_mod: int, size: str
) -> ACBreakdown:
    """The breakdown of an AC known only by its three totals, exact by construction.

    Only armor, shield and natural armor are left out of touch AC, so their sum is
    ``total - touch`` (kept under ``armor``: the split is unknown). Only the Dex
    bonus and dodge bonuses are left out of flat-footed AC: ``total - flat_footed``
    is the Dex bonus (the creature's Dexterity modifier, lowered to what the file
    shows when its armor caps it) plus dodge. The size modifier comes from the
    size. ``other`` is the rest. In a file where touch or flat-footed AC exceeds
    the AC (impossible by the CRB), ``armor`` or ``dodge`` comes out negative,
    and the three totals are still reproduced exactly.

    >>> b = derive_breakdown(16, 13, 14, 2, "Medium")
    >>> b.armor, b.dex, b.dodge, b.size, b.other, (b.total, b.touch, b.flat_footed)
    (3, 2, 0, 0, 1, (16, 13, 14))
    """
    size_mod = SIZE_MODIFIER[size]
    worn = total - touch
    lost = total - flat_footed
    dex = dex_mod if dex_mod <= 0 else min(dex_mod, max(lost, 0))
    dodge = lost - max(dex, 0)
    other = total - 10 - worn - dex - dodge - size_mod
    return ACBreakdown(armor=worn, dex=dex, dodge=dodge, size=size_mod, other=other, derived=True)


class ACProfile(StrictModel):
    """Armor Class as a file writes it (CRB « Armor Class »): the three totals of a
    stat block (« AC 16, touch 13, flat-footed 14 »), its components (« +2 armor,
    +2 Dex, +1 shield, +1 size ») or both.

    With components, a missing component is 0 and the missing totals are computed;
    a total given must agree with them. Without components, the three totals are
    required. The engine plays the :class:`ACBreakdown` compiled from it
    (:attr:`CombatantProfile.ac`).
    """

    total: int | None = None
    touch: int | None = None
    flat_footed: int | None = None
    #: armor bonus (armor worn, *mage armor*), its enhancement included
    armor: int | None = Field(default=None, ge=0)
    #: shield bonus, its enhancement included
    shield: int | None = Field(default=None, ge=0)
    #: natural armor bonus, its enhancement included (*barkskin*)
    natural_armor: int | None = Field(default=None, ge=0)
    deflection: int | None = Field(default=None, ge=0)
    #: the Dexterity modifier as it applies to AC (capped by armor: the file says)
    dex: int | None = None
    dodge: int | None = Field(default=None, ge=0)
    #: the size modifier (it must be the one of the creature's size)
    size: int | None = None
    #: every other bonus or penalty that applies to touch and flat-footed AC too
    other: int | None = None

    @property
    def has_components(self) -> bool:
        return any(getattr(self, name) is not None for name in AC_COMPONENTS)

    def components(self) -> ACBreakdown:
        """The breakdown of the components given (missing ones are 0)."""
        return ACBreakdown(
            armor=self.armor or 0,
            shield=self.shield or 0,
            natural_armor=self.natural_armor or 0,
            deflection=self.deflection or 0,
            dex=self.dex or 0,
            dodge=self.dodge or 0,
            size=self.size or 0,
            other=self.other or 0,
        )

    @model_validator(mode="after")
    def _coherent(self) -> ACProfile:
        if not self.has_components:
            missing = [name for name in AC_TOTALS if getattr(self, name) is None]
            if missing:
                names = ", ".join(f"« {name} »" for name in missing)
                plural = "s" if len(missing) > 1 else ""
                parts = ", ".join(AC_COMPONENTS)
                raise ValueError(
                    f"{names} manquant{plural} : donner « total », « touch » et "
                    f"« flat_footed », ou les composantes de la CA ({parts})"
                )
            return self
        computed = self.components()
        for name in AC_TOTALS:
            stated: int | None = getattr(self, name)
            value: int = getattr(computed, name)
            if stated is not None and stated != value:
                raise ValueError(
                    f"« {name} » vaut {stated} mais les composantes en donnent {value} "
                    f"({_how(computed, name)})"
                )
        return self


def _how(b: ACBreakdown, total: str) -> str:
    """How a breakdown reaches one of its totals, for error messages."""
    if total == "total":
        parts = b.explain().replace(", ", " ")
        return f"10 {parts}" if parts else "10"
    if total == "touch":
        left = [(v, n) for n in ("armor", "shield", "natural_armor") if (v := getattr(b, n))]
    else:
        left = [(v, n) for n, v in (("dex", max(b.dex, 0)), ("dodge", b.dodge)) if v]
    return f"{b.total}" + "".join(f" − {n} {v}" for v, n in left) + " : " + _WHY[total]


_WHY = {
    "touch": "sans armure, bouclier ni armure naturelle",
    "flat_footed": "sans bonus de Dextérité ni d'esquive",
}


class Saves(StrictModel):
    fort: int
    ref: int
    will: int


class DamageComponent(StrictModel):
    formula: str
    types: list[str] = Field(default_factory=empty_list)

    @field_validator("formula")
    @classmethod
    def _formula(cls, value: str) -> str:
        try:
            compile_dice(value)
        except DataError as err:
            raise ValueError(err.message) from None
        return value

    @field_validator("types")
    @classmethod
    def _types(cls, value: list[str]) -> list[str]:
        return _check_types(value)


class Splash(StrictModel):
    """A splash weapon's flat splash (SRD « Throw Splash Weapon »), dealt to every
    creature within 5 ft of the impact; see :mod:`engine.rules.weapons`."""

    damage: int = Field(gt=0)
    type: str

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        _check_types([value])
        return value


class DamageReduction(StrictModel):
    amount: int = Field(gt=0)
    #: ``"-"`` (nothing bypasses), ``"magic"``, ``"bludgeoning and magic"`` (all
    #: required), ``"good or silver"`` (any one suffices).
    bypass: str = "-"

    @field_validator("bypass")
    @classmethod
    def _bypass(cls, value: str) -> str:
        parse_bypass(value)
        return value


def parse_bypass(text: str) -> tuple[str, tuple[str, ...]]:
    """Parse a DR bypass into ``("none"|"all"|"any", properties)``.

    >>> parse_bypass("bludgeoning and magic")
    ('all', ('bludgeoning', 'magic'))
    >>> parse_bypass("—")
    ('none', ())
    """
    stripped = text.strip().lower()
    if stripped in ("", "-", "—", "–"):
        return "none", ()
    if " and " in stripped and " or " in stripped:
        raise ValueError(f"contournement de RD ambigu « {text} » (« and » et « or » mêlés)")
    mode = "any" if " or " in stripped else "all"
    parts = tuple(p.strip() for p in re.split(r"\s+(?:and|or)\s+", stripped))
    for part in parts:
        if part not in DAMAGE_TYPES:
            raise ValueError(
                f"contournement de RD inconnu « {part} »{suggestion(part, DAMAGE_TYPES)}"
            )
    return mode, parts


#: key ability of each PF1e skill (Core Rulebook « Skills » table), lower-case names;
#: « Craft (…) », « Knowledge (…) », « Perform (…) », « Profession (…) » by their first word
SKILL_ABILITY: dict[str, str] = {
    "acrobatics": "dex",
    "appraise": "int",
    "bluff": "cha",
    "climb": "str",
    "craft": "int",
    "diplomacy": "cha",
    "disable device": "dex",
    "disguise": "cha",
    "escape artist": "dex",
    "fly": "dex",
    "handle animal": "cha",
    "heal": "wis",
    "intimidate": "cha",
    "knowledge": "int",
    "linguistics": "int",
    "perception": "wis",
    "perform": "cha",
    "profession": "wis",
    "ride": "dex",
    "sense motive": "wis",
    "sleight of hand": "dex",
    "spellcraft": "int",
    "stealth": "dex",
    "survival": "wis",
    "swim": "str",
    "use magic device": "cha",
}

#: the skills written with their subject: « Knowledge (arcana) », « Craft (traps) » …
#: (a pattern compiled on first use: the usual skill names never need it)
_SKILL_FAMILY = r"(craft|knowledge|perform|profession) \(.*\S.*\)"


def skill_name(name: str) -> str | None:
    """The PF1e skill a file's skill name designates (lower-case, as in
    :data:`SKILL_ABILITY`; a skill with a subject by its first word), or ``None``.

    >>> skill_name("Sense  Motive"), skill_name("Knowledge (arcana)"), skill_name("Stelth")
    ('sense motive', 'knowledge', None)
    """
    low = " ".join(name.strip().lower().split())
    if low in SKILL_ABILITY:
        return low
    family = re.fullmatch(_SKILL_FAMILY, low)
    return family.group(1) if family else None


class SkillEntry(StrictModel):
    """One skill of a combatant file (SRD « Skills »).

    ``rank`` (ranks invested; 0 = untrained), ``class_skill`` (+3 with at least
    one rank) and ``armor_penalty`` (≤ 0, the armor check penalty, given on the
    skills it applies to) let the engine compute the bonus: ranks + ability
    modifier + 3 + armor penalty (+ the size modifier for Stealth). ``total``,
    when given, is the final bonus printed in a stat block (« Stealth +10 »:
    ability, class skill, armor, size and racial modifiers included) and is
    used instead; ``rank`` still says whether the creature is trained.
    """

    rank: int = Field(ge=0)
    class_skill: bool = False
    armor_penalty: int = Field(default=0, le=0)
    total: int | None = Field(default=None, ge=-50, le=100)


class AttackSpec(StrictModel):
    id: str | None = Field(default=None, min_length=1)
    name: str = Field(min_length=1)
    kind: Literal["melee", "ranged", "touch"]
    attack_bonus: int
    damage: list[DamageComponent] = Field(min_length=1)
    damage_bonus: int = 0
    crit_range: int = Field(default=20, ge=2, le=20)
    crit_mult: int = Field(default=2, ge=2, le=6)
    count: int = Field(default=1, ge=1, le=10)
    range_increment_ft: int | None = Field(default=None, gt=0)
    reach_ft: int | None = Field(default=None, ge=0, le=100)
    reach_weapon: bool = False
    #: Ultimate Combat « Firearms »: touch AC in the first increment, misfire on a natural 1
    firearm: bool = False
    natural: bool = False
    secondary: bool = False
    two_handed: bool = False
    splash: Splash | None = None
    hardness: int | None = Field(default=None, ge=0)
    hit_points: int | None = Field(default=None, ge=0)
    #: what a hit does beyond its damage: a save or a condition
    #: (:mod:`engine.content.abilities`, « plus paralysis »)
    rider: RiderSpec | None = None

    @model_validator(mode="after")
    def _coherent(self) -> AttackSpec:
        if self.range_increment_ft is not None and self.kind == "melee":
            raise ValueError(
                "« range_increment_ft » n'est permis que pour une attaque « ranged » ou « touch »"
            )
        if self.kind == "ranged" and self.range_increment_ft is None:
            raise ValueError("une attaque « ranged » exige « range_increment_ft » (> 0)")
        if self.splash is not None and self.range_increment_ft is None:
            raise ValueError(
                "« splash » n'est permis que pour une arme lancée (« ranged », ou « touch » "
                "avec « range_increment_ft »)"
            )
        if self.firearm and self.range_increment_ft is None:
            raise ValueError("une arme à feu (« firearm ») exige « range_increment_ft »")
        if self.reach_ft is not None and self.reach_ft % 5:
            raise ValueError("« reach_ft » doit être un multiple de 5")
        if self.secondary and not self.natural:
            raise ValueError("« secondary » ne s'applique qu'à une attaque naturelle")
        return self


class Combatant(StrictModel):
    """A monster or a player character, as written in its JSON file."""

    name: str = Field(min_length=1)
    level: int = Field(default=1, ge=0, le=40)
    size: Size = "Medium"
    cr: str | int | float | None = None
    xp: int | None = Field(default=None, ge=0)
    source: str | None = None
    notes: str | list[str] | None = None
    #: Extension: explicitly a player character (see module docstring).
    pc: bool | None = None
    abilities: AbilityScores
    hp_max: int = Field(gt=0)
    ac: ACProfile
    bab: int = Field(ge=0, le=40)
    #: Combat Maneuver Defense as printed in a stat block (SRD « Combat Maneuver
    #: Defense »); when absent, 10 + BAB + Str mod + Dex mod + special size modifier
    cmd: int | None = Field(default=None, ge=0, le=200)
    initiative_mod: int
    speed_land_ft: int = Field(ge=0, le=500)
    speed_fly_ft: int | None = Field(default=None, ge=0, le=500)
    saves: Saves
    dr: DamageReduction | None = None
    aware: bool = True
    #: the conditions it starts the fight under: a name of the table (the whole
    #: fight) or ``{name, rounds, bleed}`` (:mod:`engine.content.abilities`)
    conditions: list[str | StartConditionSpec] = Field(default_factory=empty_list)
    #: its start-of-turn auras (:mod:`engine.content.abilities`)
    auras: list[AuraSpec] = Field(default_factory=empty_list)
    alignment: Literal["LG", "NG", "CG", "LN", "N", "CN", "LE", "NE", "CE"] = "N"
    creature_type: str | None = None
    spell_resistance: int | None = Field(default=None, ge=0)
    resistances: dict[str, int] = Field(default_factory=empty_dict)
    immunities: list[str] = Field(default_factory=empty_list)
    spell_slots: dict[str, int] = Field(default_factory=empty_dict)
    spells: list[str] = Field(default_factory=empty_list)
    casting_ability: Literal["int", "wis", "cha"] | None = None
    #: its caster level, when it is not ``level`` (a multiclass caster, a monster
    #: whose spells are cast at another level); ``None``: ``level``
    caster_level: int | None = Field(default=None, ge=0, le=40)
    #: its spellcasting classes, lower-case Foundry names (``wizard``, ``cleric``):
    #: a spell is cast at the lowest level among them (``engine/content/spellbook.py``)
    classes: list[str] = Field(default_factory=empty_list)
    #: the level of some of its spells, by name, when neither its classes nor the
    #: spell's lowest level say it (« cure light wounds »: 1)
    spell_levels: dict[str, int] = Field(default_factory=empty_dict)
    metamagic_feats: list[str] = Field(default_factory=empty_list)
    arcane_caster: bool = False
    armor_spell_failure: int = Field(default=0, ge=0, le=100)
    features: list[str] = Field(default_factory=empty_list)
    skills: dict[str, SkillEntry] = Field(default_factory=empty_dict)
    resources: dict[str, int] = Field(default_factory=empty_dict)
    carried_items: list[str] = Field(default_factory=empty_list)
    summon_duration: int | None = Field(default=None, ge=0)
    attacks: list[AttackSpec] = Field(default_factory=empty_list)

    @field_validator("conditions", mode="before")
    @classmethod
    def _conditions(cls, value: object) -> object:
        return parse_start_conditions(value)

    @field_validator("auras")
    @classmethod
    def _auras(cls, value: list[AuraSpec]) -> list[AuraSpec]:
        names = [a.name for a in value]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"aura « {name} » donnée deux fois")
        return value

    @field_validator("creature_type")
    @classmethod
    def _creature_type(cls, value: str | None) -> str | None:
        if value is None:
            return None
        low = value.strip().lower()
        if low not in CREATURE_TYPES:
            raise ValueError(
                f"type de créature inconnu « {value} »{suggestion(low, CREATURE_TYPES)}"
            )
        return low

    @field_validator("ac")
    @classmethod
    def _ac(cls, value: ACProfile, info: ValidationInfo) -> ACProfile:
        """Components must agree with the creature's size and Dexterity."""
        if not value.has_components:
            return value
        size = info.data.get("size")
        if isinstance(size, str) and size in SIZE_MODIFIER:
            expected = SIZE_MODIFIER[size]
            if (value.size or 0) != expected:
                said = "manquante" if value.size is None else f"vaut {value.size:+d}"
                raise ValueError(
                    f"composante « size » {said} : une créature {size} a un modificateur "
                    f"de taille de {expected:+d}"
                )
        abilities = info.data.get("abilities")
        if isinstance(abilities, AbilityScores):
            mod = ability_mod(abilities.dex_score)
            if value.dex is None and mod:
                why = "moins que lui si l'armure le plafonne" if mod > 0 else "un malus s'applique"
                raise ValueError(
                    f"composante « dex » manquante : le modificateur de Dextérité est {mod:+d} "
                    f"(donner « dex », {why})"
                )
            dex = value.dex or 0
            if mod <= 0 and dex != mod:
                raise ValueError(
                    f"composante « dex » : {dex:+d}, mais le modificateur de Dextérité est "
                    f"{mod:+d} (une armure plafonne un bonus, jamais un malus)"
                )
            if mod > 0 and not 0 <= dex <= mod:
                raise ValueError(
                    f"composante « dex » : {dex:+d}, hors de 0 à {mod:+d} (le modificateur "
                    "de Dextérité, que l'armure peut plafonner)"
                )
        return value

    @field_validator("resistances")
    @classmethod
    def _resistances(cls, value: dict[str, int]) -> dict[str, int]:
        _check_types(list(value))
        for t, amount in value.items():
            if amount <= 0:
                raise ValueError(f"résistance « {t} » : valeur > 0 attendue")
        return value

    @field_validator("immunities")
    @classmethod
    def _immunities(cls, value: list[str]) -> list[str]:
        """Damage types (« cold », « fire »), descriptors (« mind-affecting »,
        « paralysis », « sleep ») or conditions of the table (« shaken »)."""
        for name in value:
            if name not in IMMUNITY_NAMES:
                raise ValueError(
                    f"immunité inconnue « {name} »{suggestion(name, IMMUNITY_NAMES)} : un type "
                    "de dégâts, un descripteur ou une condition attendu"
                )
        return value

    @field_validator("skills")
    @classmethod
    def _skills(cls, value: dict[str, SkillEntry]) -> dict[str, SkillEntry]:
        """A skill name the engine would not recognise is an error, never an untrained roll."""
        for name in value:
            if skill_name(name) is None:
                low = " ".join(name.strip().lower().split())
                hint = suggestion(low.split(" (")[0], SKILL_ABILITY) or (
                    " : une compétence de Pathfinder est attendue (« Knowledge (arcana) » "
                    "pour une compétence à sujet)"
                )
                raise ValueError(f"compétence inconnue « {name} »{hint}")
        return value

    @field_validator("spells")
    @classmethod
    def _spells(cls, value: list[str]) -> list[str]:
        """No spell twice (names compared as ids: case and punctuation aside). The
        names are resolved when an encounter is built, against the shipped
        registry and the encounter's own spells (``engine/content/spellbook.py``):
        a name neither knows is listed « non modélisé » with the closest spell."""
        if value:
            from engine.content.spells import spell_key

            seen: dict[str, str] = {}
            for name in value:
                key = spell_key(name)
                if key in seen:
                    raise ValueError(
                        f"sort « {name.strip()} » donné deux fois (comme « {seen[key]} »)"
                    )
                seen[key] = name.strip()
        return value

    @field_validator("spell_slots")
    @classmethod
    def _slots(cls, value: dict[str, int]) -> dict[str, int]:
        for level, count in value.items():
            if level not in {str(i) for i in range(10)}:
                raise ValueError(f"niveau d'emplacement « {level} » : entier de 0 à 9 attendu")
            if count < 0:
                raise ValueError(f"emplacements de niveau {level} : nombre ≥ 0 attendu")
        return value

    @field_validator("spell_levels")
    @classmethod
    def _spell_levels(cls, value: dict[str, int]) -> dict[str, int]:
        for name, level in value.items():
            if not 0 <= level <= 9:
                raise ValueError(f"niveau {level} pour le sort « {name} » : de 0 à 9 attendu")
        return value

    @field_validator("classes")
    @classmethod
    def _classes(cls, value: list[str]) -> list[str]:
        out = [c.strip().lower() for c in value]
        for c in out:
            if not c or not c.replace("-", "").isalpha():
                raise ValueError(
                    f"classe « {c} » : un nom de classe en lettres attendu (« wizard »)"
                )
        if len(set(out)) != len(out):
            raise ValueError("classe donnée deux fois")
        return out

    @model_validator(mode="after")
    def _coherent(self) -> Combatant:
        if self.speed_land_ft % 5 or (self.speed_fly_ft or 0) % 5:
            raise ValueError("les vitesses doivent être des multiples de 5 pieds")
        no_con = self.abilities.con_score is None
        if no_con and self.creature_type not in ("undead", "construct"):
            raise ValueError(
                "seuls les morts-vivants et les créatures artificielles n'ont pas de Constitution "
                "(« con_score »: null)"
            )
        return self


def slug(text: str) -> str:
    """Lowercase ASCII identifier: ``"Épée courte"`` → ``"epee-courte"``."""
    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    out = re.sub(r"[^a-z0-9]+", "-", norm.lower()).strip("-")
    return out or "x"


def ability_mod(score: int | None) -> int:
    """PF1e ability modifier; 0 for a missing score."""
    return 0 if score is None else (score - 10) // 2


@dataclass(frozen=True, slots=True)
class DamagePart:
    """One compiled damage component."""

    dice: DiceExpr
    types: tuple[str, ...]
    #: multiplied on a critical hit and reduced by DR (slashing, piercing,
    #: bludgeoning or untyped weapon damage)
    physical: bool


@dataclass(frozen=True, slots=True, eq=False)
class AttackProfile:
    """An attack compiled for the engine (immutable, shared by every fight).

    Compared and hashed by identity: geometry caches use attack tuples as keys.
    """

    id: str
    name: str
    kind: str
    attack_bonus: int
    parts: tuple[DamagePart, ...]
    damage_bonus: int
    crit_range: int
    crit_mult: int
    count: int
    range_increment_ft: int | None
    #: melee reach in feet (5 for an ordinary weapon), 0 for ranged attacks
    reach_ft: int
    #: a reach weapon's dead zone: it cannot hit (nor threaten) at this distance
    #: or closer (the wielder's natural reach); 0 for every other attack
    dead_zone_ft: int
    natural: bool
    #: properties of the attack for DR bypass (its physical types and materials)
    bypass: frozenset[str]
    spec: AttackSpec
    #: no range increment: a melee attack (reach), else a ranged one (range)
    is_melee: bool
    #: what a hit does beyond its damage (:mod:`engine.rules.auras`), else ``None``
    rider: Rider | None = None

    @property
    def max_range_ft(self) -> int:
        """Farthest usable distance: 10 increments (5 for thrown/firearm touch and
        for splash weapons, which are thrown)."""
        if self.range_increment_ft is None:
            return self.reach_ft
        increments = 5 if self.kind == "touch" or self.spec.splash is not None else 10
        return self.range_increment_ft * increments


NATURAL_REACH_FT = {
    "Fine": 0,
    "Diminutive": 0,
    "Tiny": 0,
    "Small": 5,
    "Medium": 5,
    "Large": 10,
    "Huge": 15,
    "Gargantuan": 20,
    "Colossal": 30,
}


@dataclass(frozen=True, slots=True, eq=False)
class CombatantProfile:
    """Static data of one combatant, compiled once from its file."""

    base_id: str
    spec: Combatant
    attacks: tuple[AttackProfile, ...]
    is_pc: bool
    #: undead and constructs: no Con, destroyed at 0 hp
    no_con: bool
    con_score: int
    con_mod: int
    source_file: str | None
    #: its Armor Class: the file's components, or derived from its totals
    #: (:func:`ac_breakdown`); the engine reads its totals
    ac: ACBreakdown
    #: attacks of opportunity per round: 1, or 1 + Dex modifier with Combat Reflexes
    aoo_per_round: int = 1
    #: feats and features, lower-cased, for rule checks (« precise shot » …)
    features: frozenset[str] = frozenset()
    #: longest melee reach (0: threatens nothing), a cheap pre-filter for threat tests
    threat_reach_ft: int = 0
    #: the conditions it starts each fight under, in name order
    #: (:func:`engine.state.conditions.file_effects`)
    conditions: tuple[StartingCondition, ...] = ()
    #: its start-of-turn auras (:mod:`engine.rules.auras`); the turn loop tests
    #: this tuple only
    auras: tuple[Aura, ...] = ()
    #: squares per side of its space (Large 2, Huge 3 …; see :mod:`engine.content.space`)
    space: int = 1
    #: Tiny or smaller: may share a bigger creature's square
    #: (:func:`engine.content.space.may_share`)
    very_small: bool = False

    @property
    def name(self) -> str:
        return self.spec.name


def _compile_attack(spec: AttackSpec, ident: str, size: str) -> AttackProfile:
    parts: list[DamagePart] = []
    bypass: set[str] = set()
    for comp in spec.damage:
        types = tuple(comp.types)
        physical = not types or any(
            t in PHYSICAL_TYPES or t in BYPASS_PROPERTIES or t == "untyped" for t in types
        )
        parts.append(DamagePart(compile_dice(comp.formula), types, physical))
        if physical:
            bypass.update(types)
    natural_reach = NATURAL_REACH_FT.get(size, 5)
    dead_zone = 0
    if spec.range_increment_ft is not None:
        reach = 0
    elif spec.reach_weapon:
        # SRD « Reach Weapons »: twice the wielder's natural reach, not adjacent
        reach = spec.reach_ft if spec.reach_ft is not None else 2 * natural_reach
        dead_zone = natural_reach
    else:
        reach = spec.reach_ft if spec.reach_ft is not None else natural_reach
    return AttackProfile(
        id=ident,
        name=spec.name,
        kind=spec.kind,
        attack_bonus=spec.attack_bonus,
        parts=tuple(parts),
        damage_bonus=spec.damage_bonus,
        crit_range=spec.crit_range,
        crit_mult=spec.crit_mult,
        count=spec.count,
        range_increment_ft=spec.range_increment_ft,
        reach_ft=reach,
        dead_zone_ft=dead_zone,
        natural=spec.natural,
        bypass=frozenset(bypass),
        spec=spec,
        is_melee=spec.range_increment_ft is None,
        rider=compile_rider(spec.rider) if spec.rider is not None else None,
    )


def ac_breakdown(spec: Combatant) -> ACBreakdown:
    """The combatant's AC breakdown: its file's components when it gives them, else
    :func:`derive_breakdown` from its three totals, its Dexterity and its size."""
    ac = spec.ac
    if ac.has_components:
        return ac.components()
    if ac.total is None or ac.touch is None or ac.flat_footed is None:  # pragma: no cover
        raise AssertionError("ACProfile without components has its three totals")
    dex_mod = ability_mod(spec.abilities.dex_score)
    return derive_breakdown(ac.total, ac.touch, ac.flat_footed, dex_mod, spec.size)


def compile_combatant(spec: Combatant, source_file: str | None = None) -> CombatantProfile:
    """Compile a validated combatant into its runtime profile."""
    attacks: list[AttackProfile] = []
    used: set[str] = set()
    for i, att in enumerate(spec.attacks):
        base = att.id or slug(att.name)
        ident = base
        n = 2
        while ident in used:
            if att.id is not None:
                raise DataError(
                    f"identifiant d'attaque « {att.id} » en double",
                    source=source_file,
                    location=f"attacks[{i}].id",
                )
            ident = f"{base}-{n}"
            n += 1
        used.add(ident)
        attacks.append(_compile_attack(att, ident, spec.size))
    no_con = spec.abilities.con_score is None
    is_pc = bool(spec.pc) or (
        spec.pc is None and (spec.source or "").startswith("fiches_personnages/")
    )
    features = frozenset(f.strip().lower() for f in spec.features)
    aoo = 1
    if "combat reflexes" in features:
        aoo = max(1, 1 + ability_mod(spec.abilities.dex_score))
    return CombatantProfile(
        base_id=slug(spec.name),
        spec=spec,
        attacks=tuple(attacks),
        is_pc=is_pc,
        no_con=no_con,
        con_score=spec.abilities.con_score or 0,
        con_mod=ability_mod(spec.abilities.con_score),
        source_file=source_file,
        ac=ac_breakdown(spec),
        aoo_per_round=aoo,
        features=features,
        threat_reach_ft=max((a.reach_ft for a in attacks if a.is_melee), default=0),
        conditions=compile_start(spec.conditions),
        auras=tuple(compile_aura(a) for a in spec.auras),
        space=space_of(spec.size),
        very_small=spec.size in VERY_SMALL,
    )


def parse_combatant(text: str, source: str | None = None) -> CombatantProfile:
    """Parse and validate combatant JSON text. :raises DataError: on any problem."""
    data = load_json(text, source)
    spec = validate(Combatant, data, source)
    return compile_combatant(spec, source)


def load_combatant(path: str | Path) -> CombatantProfile:
    """Read a combatant file. :raises DataError: unreadable or invalid file."""
    text, source = read_text(path)
    return parse_combatant(text, source)


def with_start(
    profile: CombatantProfile,
    *,
    aware: bool | None = None,
    conditions: list[str | StartConditionSpec] | None = None,
) -> CombatantProfile:
    """``profile`` with another starting state: an encounter file's per-combatant
    ``aware`` and ``conditions`` (validated by the same rules as a combatant
    file's), without copying the creature file. ``None`` keeps the file's value.

    >>> orc = load_combatant("data/monsters/orc.json")
    >>> late = with_start(orc, aware=False, conditions=["shaken"])
    >>> late.spec.aware, [c.name for c in late.conditions], orc.spec.aware
    (False, ['shaken'], True)
    """
    update: dict[str, object] = {}
    if aware is not None:
        update["aware"] = aware
    if conditions is not None:
        update["conditions"] = conditions
    if not update:
        return profile
    return compile_combatant(profile.spec.model_copy(update=update), profile.source_file)
