"""Spell files (JSON, ``data/spells/<id>.json``): the ``SpellSpec`` schema, the
compiled :class:`Spell` the engine reads, and the registry.

The files are written by ``scripts/import_spells.py`` from the Foundry VTT pf1
records (``../shared/reference-data/foundry-pf1-spells.json``) and the authored
overlays of ``data/spells/overlays/`` (the conditions, buffs, HD limits, partial
saves and target filters the records hold only as text). Never edit a spell
file by hand: edit an overlay and re-run the importer.

A spell file holds the record's mechanics (levels per class, school,
descriptors, components, spell resistance, cast time, range, targeting, attack
kind, projectiles, area, save, duration) and a list of typed **effects**, each
in formulas of the caster level (``@cl``, :mod:`engine.content.formulas`):

* ``damage``: ``formula`` and energy ``types`` (*fireball* ``(min(10, @cl))d6`` fire);
* ``heal``: ``formula`` (*cure light wounds* ``1d8 + min(5, @cl)``);
* ``condition``: ``conditions`` (names of the condition table) for ``rounds``,
  ``then`` later phases (*color spray*), ``on_success`` a lesser condition on a
  successful save (*fear*: shaken 1 round), Hit Dice bounds (``min_hd``,
  ``max_hd``), a new save each round, ending when the holder attacks
  (*invisibility*), an escape check (*web*);
* ``buff``: typed ``modifiers`` by stat (bonus types of
  :class:`~engine.core.checks.BonusType`; ``against`` an alignment of the
  opponent, ``when`` a descriptor of the effect rolled against), ``once``
  (*guidance*), speed, an extra attack (*haste*), half speed (*slow*), size
  steps (*enlarge person*), spells it wards off (*shield* and *magic missile*);
* ``recurring``: damage again at the start of the target's turns (*acid arrow*);
* ``temp_hp``: temporary hit points (*aid*, *false life*);
* ``mirror_image``: images, each a miss chance (*mirror image*).

Every effect and the spell itself may carry ``affects``, a filter of the
creatures it acts on (living, undead, creature types, alignments, Hit Dice).
A spell whose effect the schema cannot say is in the registry with
``modelled: false`` and a French ``reason``: a creature listing it is reported
« non modélisé » (:mod:`engine.content.modelled`); a creature listing a name the
registry does not know is an error naming the closest spell
(:func:`SpellRegistry.resolve`).

>>> spell = load_spell("data/spells/fireball.json")
>>> spell.name, spell.level_for(("wizard",)), spell.range_ft(5), spell.save.outcome
('Fireball', 3, 600, 'half')
>>> damage = spell.effects[0]
>>> damage.kind, damage.formula.at(5), damage.formula.at(12), damage.types
('damage', '5d6', '10d6', ('fire',))
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from engine.content.abilities import CONDITION_NAMES, DESCRIPTORS, SaveName, check_condition
from engine.content.formulas import Formula, check_formula, compile_formula
from engine.content.validation import (
    StrictModel,
    empty_dict,
    empty_list,
    load_json,
    read_text,
    validate,
)
from engine.core.checks import BonusType
from engine.core.errors import DataError, closest, suggestion

# -- vocabularies ---------------------------------------------------------------

#: the schools, by their names in files (Foundry's codes: abj, con, div, …)
SCHOOLS: dict[str, str] = {
    "abj": "abjuration",
    "con": "conjuration",
    "div": "divination",
    "enc": "enchantment",
    "evo": "evocation",
    "ill": "illusion",
    "nec": "necromancy",
    "trs": "transmutation",
    "uni": "universal",
}
School = Literal[
    "abjuration",
    "conjuration",
    "divination",
    "enchantment",
    "evocation",
    "illusion",
    "necromancy",
    "transmutation",
    "universal",
]

#: the descriptors a spell may carry: those of the rules (auras, immunities) and
#: the few others Foundry's records use
SPELL_DESCRIPTORS: frozenset[str] = DESCRIPTORS | frozenset(
    {"shadow", "ruse", "meditative", "draconic"}
)

#: a spell's components (CRB « Components »; ``M/DF``, ``F/DF``: either)
Component = Literal["V", "S", "M", "F", "DF", "M/DF", "F/DF"]

#: the budget slot a cast takes (CRB « Casting Time »): ``one_round`` is a
#: full-round action whose effect comes at the start of the caster's next turn;
#: ``long`` (more than one round) is never cast in a fight
CastTime = Literal[
    "standard", "swift", "immediate", "free", "move", "full_round", "one_round", "long"
]

#: a range (CRB « Range »): ``feet`` with its ``feet`` value; ``special`` a range
#: the record gives only as text (miles, « see text »)
RangeKind = Literal["personal", "touch", "close", "medium", "long", "feet", "unlimited", "special"]

#: what the caster aims the spell at:
#: ``self`` (personal spells), ``creature`` (one creature, friend or foe: a ray,
#: a touch, *hold person*), ``ally`` (one willing creature: the buffs),
#: ``area`` (an area that starts at the caster: centered on it — *bless* — or a
#: cone or a line aimed at a creature or a point), ``point`` (an area placed at a
#: point in range: *fireball*, *sleep*, *grease*)
Targeting = Literal["self", "creature", "ally", "area", "point"]

#: ``melee_touch`` and ``ranged_touch`` roll against touch AC; ``auto_hit``
#: always hits (*magic missile*: Foundry's ``rsak`` with ``attackBonus`` 100)
AttackKind = Literal["none", "melee_touch", "ranged_touch", "auto_hit"]

#: an area's shape: ``burst`` (a circle of radius ``size_ft``), ``cone`` (90°,
#: ``size_ft`` long), ``line`` (5 ft wide, ``size_ft`` long), ``rect`` (a square
#: of ``size_ft`` sides: *grease*)
AreaShape = Literal["burst", "cone", "line", "rect"]

#: what a successful save does to the spell (``partial``: each effect says, by its
#: ``on_save``)
SaveOutcome = Literal["negates", "half", "partial", "none"]

#: what a successful save does to one effect: ``negates`` (none of it), ``half``
#: (half its dice's total, rounded down; half a modifier), ``none`` (all of it)
EffectSave = Literal["negates", "half", "none"]

DurationUnits = Literal[
    "instantaneous",
    "rounds",
    "minutes",
    "hours",
    "days",
    "weeks",
    "months",
    "permanent",
    "special",
]
#: rounds in one unit of a duration (CRB « Duration »: 1 minute = 10 rounds)
ROUNDS_PER_UNIT: dict[str, int] = {"rounds": 1, "minutes": 10, "hours": 600}

Alignment = Literal["lawful", "chaotic", "good", "evil"]

#: the creature types a filter may name: those of combatant files
#: (``engine.content.creatures.CREATURE_TYPES``; creatures imports this module to
#: check a file's spells, so this one cannot import it: a test keeps them equal)
CREATURE_TYPES = frozenset(
    {
        "aberration", "animal", "construct", "dragon", "fey", "humanoid", "magical beast",
        "monstrous humanoid", "ooze", "outsider", "plant", "undead", "vermin",
    }
)  # fmt: skip

#: the damage types of a spell's damage (the energies, force, positive and negative
#: energy, untyped, and the physical types of a few conjurations)
SPELL_DAMAGE_TYPES = frozenset(
    {
        "fire", "cold", "acid", "electricity", "sonic", "force", "positive", "negative",
        "untyped", "slashing", "piercing", "bludgeoning",
    }
)  # fmt: skip

#: the stats a buff's modifier may name, by their file names, and the stats of
#: :mod:`engine.state.effects` each stands for (``ac``: against melee and ranged
#: attacks; ``saves``: the three). The indices are those of
#: ``engine.state.conditions.STAT_NAMES`` (the content layer cannot import the
#: state layer; ``tests/test_spells_data.py`` keeps them equal).
STAT_INDEX: dict[str, int] = {
    "attack": 0,
    "ac_melee": 1,
    "ac_ranged": 2,
    "cmd": 3,
    "damage": 4,
    "fort": 5,
    "ref": 6,
    "will": 7,
    "skill": 8,
    "cmb": 9,
    "initiative": 10,
    "ability_check": 11,
    "str_score": 12,
    "dex_score": 13,
    "speed_ft": 14,
    "half_speed": 15,
    "extra_attack": 16,
    "size_steps": 17,
}
#: the stats a buff's own fields give (``speed_ft``, ``half_speed``, ``extra_attack``,
#: ``size_steps``), never named by a modifier
_FIELD_STATS = frozenset({"speed_ft", "half_speed", "extra_attack", "size_steps"})
STAT_GROUPS: dict[str, tuple[int, ...]] = {
    **{name: (i,) for name, i in STAT_INDEX.items() if name not in _FIELD_STATS},
    "ac": (1, 2),
    "saves": (5, 6, 7),
}

_BONUS_TYPES = frozenset(t.value for t in BonusType)

#: a spell file's id: lower-case ASCII letters, digits and dashes (the name's slug)
_ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


def _formula(value: str | None) -> str | None:
    return None if value is None else check_formula(value)


def _check_descriptors(values: list[str]) -> list[str]:
    for d in values:
        if d not in SPELL_DESCRIPTORS:
            raise ValueError(f"descripteur inconnu « {d} »{suggestion(d, SPELL_DESCRIPTORS)}")
    if len(set(values)) != len(values):
        raise ValueError("descripteur donné deux fois")
    return values


# -- the file format (pydantic) -------------------------------------------------


class AffectsSpec(StrictModel):
    """The creatures a spell or an effect acts on (all of the given tests):
    ``side`` (``allies``: the caster's side, the caster included; ``enemies``: the
    others), ``living`` (``true``: not undead nor constructs; ``false``: only
    those), ``creature_types`` (any of), ``not_creature_types`` (none of),
    ``alignments`` (any of the creature's alignment components: ``evil`` for LE,
    NE, CE), ``not_alignments`` (none of them: « neither good nor evil »),
    ``max_hd`` (at most so many Hit Dice), ``dying`` (``true``: only creatures
    below 0 hit points, dying or stable)."""

    side: Literal["allies", "enemies"] | None = None
    living: bool | None = None
    creature_types: list[str] = Field(default_factory=empty_list)
    not_creature_types: list[str] = Field(default_factory=empty_list)
    alignments: list[Alignment] = Field(default_factory=empty_list)
    not_alignments: list[Alignment] = Field(default_factory=empty_list)
    max_hd: int | None = Field(default=None, ge=0, le=99)
    dying: bool | None = None

    @field_validator("creature_types", "not_creature_types")
    @classmethod
    def _types(cls, value: list[str]) -> list[str]:
        for t in value:
            if t not in CREATURE_TYPES:
                raise ValueError(f"type de créature inconnu « {t} »{suggestion(t, CREATURE_TYPES)}")
        return value


class RangeSpec(StrictModel):
    """A range: a kind, and ``feet`` for ``kind: feet`` (only then)."""

    kind: RangeKind
    feet: int | None = Field(default=None, ge=0, le=10_000)

    @model_validator(mode="after")
    def _feet(self) -> RangeSpec:
        if (self.kind == "feet") != (self.feet is not None):
            raise ValueError("« feet » est donné si et seulement si « kind » vaut « feet »")
        return self


class AreaSpec(StrictModel):
    """An area (CRB « Aiming a Spell »): its shape, its size in feet (a burst's
    radius, a cone's or a line's length, a square's side), and whether it is
    centered on the caster (*bless*, *bane*)."""

    shape: AreaShape
    size_ft: int = Field(gt=0, le=1000)
    centered_on_caster: bool = False

    @field_validator("size_ft")
    @classmethod
    def _size(cls, value: int) -> int:
        if value % 5:
            raise ValueError("« size_ft » doit être un multiple de 5")
        return value


class SaveSpec(StrictModel):
    """The saving throw: its ``type``, what a success does (``outcome``), whether
    it is harmless (no save on a willing target), and the record's words."""

    type: SaveName
    outcome: SaveOutcome
    harmless: bool = False
    #: a bonus on the target's save (*hypnotism*: +2 in combat)
    bonus: int = Field(default=0, ge=-20, le=20)
    #: the record's description (« Will half; see text »), for the reader
    text: str = ""


class DurationSpec(StrictModel):
    """A duration: ``units`` and a ``formula`` of how many (``@cl``: per level);
    ``text`` the record's words when it gives only words."""

    units: DurationUnits
    formula: str | None = None
    text: str = ""

    @field_validator("formula")
    @classmethod
    def _formula(cls, value: str | None) -> str | None:
        return _formula(value)

    @model_validator(mode="after")
    def _counted(self) -> DurationSpec:
        counted = self.units not in ("instantaneous", "permanent", "special")
        if counted and self.formula is None:
            raise ValueError(f"une durée en « {self.units} » demande « formula »")
        if not counted and self.formula is not None:
            raise ValueError(f"une durée « {self.units} » n'a pas de « formula »")
        return self


class _Effect(StrictModel):
    #: the creatures this effect acts on (another effect of the spell may act on
    #: the others: *cure light wounds* heals the living and hurts the undead)
    affects: AffectsSpec | None = None
    #: what a successful save does to it; ``None``: as the spell's save says
    #: (negates or half; required when the spell's save is ``partial``)
    on_save: EffectSave | None = None


class DamageEffectSpec(_Effect):
    kind: Literal["damage"]
    formula: str
    types: list[str] = Field(min_length=1)
    #: only half the rolled total, rounded down, before any save (*holy smite* on
    #: a neutral creature: « only half damage »)
    halved: bool = False

    @field_validator("formula")
    @classmethod
    def _formula(cls, value: str) -> str:
        return check_formula(value)

    @field_validator("types")
    @classmethod
    def _types(cls, value: list[str]) -> list[str]:
        return _check_damage_types(value)


class HealEffectSpec(_Effect):
    kind: Literal["heal"]
    formula: str

    @field_validator("formula")
    @classmethod
    def _formula(cls, value: str) -> str:
        return check_formula(value)


class PhaseSpec(StrictModel):
    """Conditions for a number of rounds (a formula, dice allowed: ``2d4``;
    ``None``: the spell's duration)."""

    conditions: list[str] = Field(min_length=1)
    rounds: str | None = None

    @field_validator("conditions")
    @classmethod
    def _conditions(cls, value: list[str]) -> list[str]:
        return _check_conditions(value)

    @field_validator("rounds")
    @classmethod
    def _rounds(cls, value: str | None) -> str | None:
        return _formula(value)


class ConditionEffectSpec(_Effect):
    """Conditions from the condition table (:data:`CONDITION_NAMES`): ``conditions``
    for ``rounds``, then each of ``then`` in turn (*color spray*: unconscious,
    blinded and stunned 2d4 rounds, then blinded and stunned 1d4, then stunned 1).
    ``min_hd``/``max_hd``: only creatures of so many Hit Dice (*color spray*'s
    table is three such effects)."""

    kind: Literal["condition"]
    conditions: list[str] = Field(min_length=1)
    rounds: str | None = None
    then: list[PhaseSpec] = Field(default_factory=empty_list)
    #: what a creature that saves gets instead (*fear*: shaken 1 round)
    on_success: PhaseSpec | None = None
    min_hd: int | None = Field(default=None, ge=0, le=99)
    max_hd: int | None = Field(default=None, ge=0, le=99)
    #: the holder saves again at the end of each of its turns; a success ends it
    #: (*hold person*, *glitterdust*)
    save_each_round: bool = False
    #: it ends when its holder attacks (*invisibility*: SRD « If the subject
    #: attacks any creature, the spell ends »)
    ends_on_attack: bool = False
    #: the holder may break free as an action: the better of ``escape_check`` and
    #: Escape Artist against the spell's DC (*web*, *entangle*)
    escape: bool = False
    #: the check besides Escape Artist: a combat maneuver check (*web*) or a
    #: Strength check (*entangle*)
    escape_check: Literal["cmb", "strength"] = "cmb"
    #: the action breaking free takes: a standard action (*web*) or a move action
    #: (*entangle*)
    escape_action: Literal["standard", "move"] = "standard"
    #: the hit points ``bleeding`` costs each turn (required with it)
    bleed: int = Field(default=0, ge=0, le=100)
    #: it lasts until the fight ends, whatever the spell's duration (*waves of
    #: fatigue*: an instantaneous spell whose fatigue stays); ``rounds`` is then null
    whole_fight: bool = False

    @field_validator("conditions")
    @classmethod
    def _conditions(cls, value: list[str]) -> list[str]:
        return _check_conditions(value)

    @field_validator("rounds")
    @classmethod
    def _rounds(cls, value: str | None) -> str | None:
        return _formula(value)

    @model_validator(mode="after")
    def _hd(self) -> ConditionEffectSpec:
        if self.whole_fight and self.rounds is not None:
            raise ValueError("« whole_fight » et « rounds » s'excluent")
        if not self.escape and (self.escape_check != "cmb" or self.escape_action != "standard"):
            raise ValueError("« escape_check » et « escape_action » vont avec « escape »")
        if ("bleeding" in self.conditions) != bool(self.bleed):
            raise ValueError("« bleeding » va avec « bleed » (les points de vie perdus par tour)")
        if self.min_hd is not None and self.max_hd is not None and self.min_hd > self.max_hd:
            raise ValueError(f"« min_hd » {self.min_hd} au-dessus de « max_hd » {self.max_hd}")
        return self


class ModifierSpec(StrictModel):
    """One typed modifier of a buff: ``stat`` (:data:`STAT_GROUPS`), ``value`` (a
    number or a formula; dice are rolled once, when the spell is cast), ``type``
    (a :class:`~engine.core.checks.BonusType` value), ``against`` (only against
    opponents of that alignment: *protection from evil*), ``when`` (only on rolls
    against an effect with that descriptor: *bless* against fear)."""

    stat: str
    value: int | str
    type: str = "untyped"
    against: Alignment | None = None
    when: str | None = None

    @field_validator("stat")
    @classmethod
    def _stat(cls, value: str) -> str:
        if value not in STAT_GROUPS:
            raise ValueError(f"statistique inconnue « {value} »{suggestion(value, STAT_GROUPS)}")
        return value

    @field_validator("value")
    @classmethod
    def _value(cls, value: int | str) -> int | str:
        if isinstance(value, str):
            check_formula(value)
        return value

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        if value not in _BONUS_TYPES:
            raise ValueError(f"type de bonus inconnu « {value} »{suggestion(value, _BONUS_TYPES)}")
        return value

    @field_validator("when")
    @classmethod
    def _when(cls, value: str | None) -> str | None:
        if value is not None and value not in DESCRIPTORS:
            raise ValueError(f"descripteur inconnu « {value} »{suggestion(value, DESCRIPTORS)}")
        return value


class BuffEffectSpec(_Effect):
    """Timed modifiers (the effects layer), for ``rounds`` (``None``: the spell's
    duration), or used up by the first roll they modify (``once``: *guidance*)."""

    kind: Literal["buff"]
    modifiers: list[ModifierSpec] = Field(default_factory=empty_list)
    rounds: str | None = None
    once: bool = False
    #: an enhancement bonus to every speed, in feet (*haste* +30)
    speed_ft: int = Field(default=0, ge=0, le=120)
    #: its holder moves at half speed (*slow*)
    half_speed: bool = False
    #: one more attack at its full bonus on a full attack (*haste*)
    extra_attack: bool = False
    #: size categories gained (*enlarge person* 1) or lost (*reduce person* −1):
    #: space, reach and weapon damage dice; the size modifiers to Str, Dex, attack
    #: and AC are in ``modifiers``, not implied by this
    size_steps: int = Field(default=0, ge=-2, le=2)
    #: the spells (ids) it negates when they target its holder (*shield*:
    #: « negates magic missile attacks directed at you »)
    wards: list[str] = Field(default_factory=empty_list)

    @field_validator("rounds")
    @classmethod
    def _rounds(cls, value: str | None) -> str | None:
        return _formula(value)

    @model_validator(mode="after")
    def _something(self) -> BuffEffectSpec:
        if not (
            self.modifiers
            or self.speed_ft
            or self.half_speed
            or self.extra_attack
            or self.size_steps
            or self.wards
        ):
            raise ValueError("un « buff » sans modificateur ni autre effet")
        return self


class RecurringEffectSpec(_Effect):
    """Damage again at the start of the target's turns, ``ticks`` times (a formula),
    after a hit (*acid arrow*: 2d4 acid, ``min(6, floor(@cl / 3))`` more rounds)."""

    kind: Literal["recurring"]
    formula: str
    types: list[str] = Field(min_length=1)
    ticks: str

    @field_validator("formula", "ticks")
    @classmethod
    def _formula(cls, value: str) -> str:
        return check_formula(value)

    @field_validator("types")
    @classmethod
    def _types(cls, value: list[str]) -> list[str]:
        return _check_damage_types(value)


class TempHpEffectSpec(_Effect):
    """Temporary hit points (CRB « Temporary Hit Points »), lost first, for
    ``rounds`` (``None``: the spell's duration)."""

    kind: Literal["temp_hp"]
    formula: str
    rounds: str | None = None

    @field_validator("formula")
    @classmethod
    def _formula(cls, value: str) -> str:
        return check_formula(value)

    @field_validator("rounds")
    @classmethod
    def _rounds(cls, value: str | None) -> str | None:
        return _formula(value)


class MirrorImageEffectSpec(_Effect):
    """Figments that take the attacks meant for the caster (SRD « Mirror Image »):
    ``images`` (a formula, at most ``max_images``)."""

    kind: Literal["mirror_image"]
    images: str
    max_images: int = Field(ge=1, le=20)

    @field_validator("images")
    @classmethod
    def _images(cls, value: str) -> str:
        return check_formula(value)


def _effect_kind(value: object) -> str | None:
    if isinstance(value, Mapping):
        kind = value.get("kind")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        return kind if isinstance(kind, str) else None
    return getattr(value, "kind", None)


EffectSpec = Annotated[
    Union[  # noqa: UP007 - a tagged union needs the Union form for Tag
        Annotated[DamageEffectSpec, Tag("damage")],
        Annotated[HealEffectSpec, Tag("heal")],
        Annotated[ConditionEffectSpec, Tag("condition")],
        Annotated[BuffEffectSpec, Tag("buff")],
        Annotated[RecurringEffectSpec, Tag("recurring")],
        Annotated[TempHpEffectSpec, Tag("temp_hp")],
        Annotated[MirrorImageEffectSpec, Tag("mirror_image")],
    ],
    Discriminator(_effect_kind),
]
EFFECT_KINDS = ("damage", "heal", "condition", "buff", "recurring", "temp_hp", "mirror_image")


def _check_damage_types(value: list[str]) -> list[str]:
    for t in value:
        if t not in SPELL_DAMAGE_TYPES:
            raise ValueError(f"type de dégâts inconnu « {t} »{suggestion(t, SPELL_DAMAGE_TYPES)}")
    return value


def _check_conditions(value: list[str]) -> list[str]:
    for name in value:
        check_condition(name)
    if len(set(value)) != len(value):
        raise ValueError("condition donnée deux fois")
    return value


class SpellSpec(StrictModel):
    """A spell file (module docstring; the fields in ``README.md``, « Sort (JSON) »)."""

    #: the stable id: the slug of ``name`` (``magic-missile``), also the file's name
    id: str = Field(pattern=_ID_PATTERN, max_length=80)
    #: Foundry's English name (« Restoration, Lesser »)
    name: str = Field(min_length=1, max_length=80)
    #: the French name, shown in the transcript when given
    label: str | None = Field(default=None, min_length=1, max_length=80)
    #: where the record comes from (« foundry-pf1:<_id> »)
    source: str = ""
    #: the base level (the record's ``level``): used when no class of the caster
    #: has the spell
    level: int = Field(ge=0, le=9)
    #: the level for each class that learns it (Foundry's ``learnedAt.class``)
    class_levels: dict[str, int] = Field(default_factory=empty_dict)
    school: School
    subschools: list[str] = Field(default_factory=empty_list)
    descriptors: list[str] = Field(default_factory=empty_list)
    components: list[Component] = Field(default_factory=empty_list)
    spell_resistance: bool = True
    cast_time: CastTime = "standard"
    range: RangeSpec
    targeting: Targeting
    #: the creatures it can act on at all (*hold person*: humanoids)
    affects: AffectsSpec | None = None
    #: a pool of Hit Dice shared by the creatures affected, fewest HD first, then
    #: nearest to the point of origin (*sleep*: 4; SRD « HD that are not
    #: sufficient to affect a creature are wasted »)
    hd_pool: str | None = None
    #: how many creatures it targets (a formula; ``None``: one; *haste*: ``@cl``)
    targets: str | None = None
    attack: AttackKind = "none"
    #: how many missiles or rays (a formula; ``None``: one); each rolls its own
    #: attack and damage
    projectiles: str | None = None
    area: AreaSpec | None = None
    save: SaveSpec | None = None
    duration: DurationSpec
    effects: list[EffectSpec] = Field(default_factory=empty_list)
    #: whether the engine plays the whole combat effect
    modelled: bool
    #: why not (French), when ``modelled`` is false
    reason: str | None = None
    #: what the model leaves out or changes, each in French (``docs/rules.md``)
    simplifications: list[str] = Field(default_factory=empty_list)
    #: the record's first sentences, in English (stripped of HTML)
    summary: str = ""

    @field_validator("class_levels")
    @classmethod
    def _levels(cls, value: dict[str, int]) -> dict[str, int]:
        for name, level in value.items():
            if not 0 <= level <= 9:
                raise ValueError(f"niveau {level} pour la classe « {name} » : de 0 à 9 attendu")
        return value

    @field_validator("descriptors")
    @classmethod
    def _descriptors(cls, value: list[str]) -> list[str]:
        return _check_descriptors(value)

    @field_validator("hd_pool", "targets", "projectiles")
    @classmethod
    def _formulas(cls, value: str | None) -> str | None:
        return _formula(value)

    @model_validator(mode="after")
    def _coherent(self) -> SpellSpec:
        if self.modelled and self.reason is not None:
            raise ValueError("« reason » n'est donné que pour un sort non modélisé")
        if not self.modelled and not self.reason:
            raise ValueError("un sort non modélisé (« modelled »: false) demande « reason »")
        if self.modelled and not self.effects:
            raise ValueError("un sort modélisé demande au moins un effet (« effects »)")
        if self.targeting == "self" and self.range.kind != "personal":
            raise ValueError("« targeting »: « self » demande une portée « personal »")
        if self.targeting in ("area", "point") and self.area is None:
            raise ValueError(f"« targeting »: « {self.targeting} » demande « area »")
        if self.area is not None and self.area.centered_on_caster and self.targeting != "area":
            raise ValueError("une zone centrée sur le lanceur demande « targeting »: « area »")
        if self.projectiles is not None and self.attack == "none":
            raise ValueError("« projectiles » demande une attaque (« attack »)")
        for i, effect in enumerate(self.effects):
            if effect.on_save is not None and self.save is None:
                raise ValueError(f"effects[{i}] : « on_save » sans jet de sauvegarde (« save »)")
            if self.save is not None and self.save.outcome == "partial" and effect.on_save is None:
                raise ValueError(
                    f"effects[{i}] : un jet de sauvegarde « partial » demande l'« on_save » "
                    "de chaque effet"
                )
            on_success = isinstance(effect, ConditionEffectSpec) and effect.on_success is not None
            if on_success and self.save is None:
                raise ValueError(f"effects[{i}] : « on_success » sans jet de sauvegarde")
            rounds = getattr(effect, "rounds", None)
            if rounds is None and self._untimed(effect):
                if self.duration.units == "instantaneous":
                    raise ValueError(
                        f"effects[{i}] : sans « rounds », l'effet dure le sort, qui est instantané"
                    )
                formula = self.duration.formula
                if formula is not None and compile_formula(formula).has_dice:
                    raise ValueError(
                        f"effects[{i}] : la durée du sort se tire aux dés : donner « rounds »"
                    )
        return self

    @staticmethod
    def _untimed(effect: object) -> bool:
        if isinstance(effect, BuffEffectSpec):
            return not effect.once
        if isinstance(effect, ConditionEffectSpec):
            return not effect.whole_fight
        return isinstance(effect, TempHpEffectSpec)


# -- the compiled forms (plain values the engine reads) -------------------------


@dataclass(frozen=True, slots=True)
class Affects:
    """A compiled :class:`AffectsSpec`."""

    #: ``allies`` / ``enemies`` of the caster, or ``None``; the rules test it
    #: (:meth:`admits` knows nothing of sides)
    side: str | None = None
    living: bool | None = None
    creature_types: frozenset[str] = frozenset()
    not_creature_types: frozenset[str] = frozenset()
    alignments: frozenset[str] = frozenset()
    not_alignments: frozenset[str] = frozenset()
    max_hd: int | None = None
    #: only creatures below 0 hit points; the rules test it (:meth:`admits` does not)
    dying: bool | None = None

    def admits(self, creature_type: str | None, alignment: str | None, hd: int) -> bool:
        """Whether a creature of this type (``None``: humanoid-like, living),
        alignment (``"LE"``…; ``None``: neutral) and Hit Dice passes the tests of
        its nature (all but ``side`` and ``dying``, which the rules test).

        >>> undead = Affects(living=False)
        >>> undead.admits("undead", "NE", 11), undead.admits("humanoid", None, 1)
        (True, False)
        >>> Affects(alignments=frozenset({"evil"})).admits(None, "CE", 3)
        True
        """
        if self.living is not None:
            living = creature_type not in ("undead", "construct")
            if living != self.living:
                return False
        if self.creature_types and creature_type not in self.creature_types:
            return False
        if creature_type in self.not_creature_types:
            return False
        components = alignment_components(alignment)
        if self.alignments and not self.alignments & components:
            return False
        if self.not_alignments & components:
            return False
        return self.max_hd is None or hd <= self.max_hd


ALL_CREATURES = Affects()


def alignment_components(code: str | None) -> frozenset[str]:
    """The alignment components of a two-letter code (``None`` or ``N``: none).

    >>> sorted(alignment_components("LE")), sorted(alignment_components("N"))
    (['evil', 'lawful'], [])
    """
    if not code:
        return frozenset()
    out: set[str] = set()
    if code[0] == "L":
        out.add("lawful")
    elif code[0] == "C":
        out.add("chaotic")
    if code[-1] == "G":
        out.add("good")
    elif code[-1] == "E":
        out.add("evil")
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Area:
    shape: str
    size_ft: int
    centered_on_caster: bool


@dataclass(frozen=True, slots=True)
class Save:
    type: str
    outcome: str
    harmless: bool
    #: a bonus on the target's save
    bonus: int = 0


@dataclass(frozen=True, slots=True)
class Duration:
    units: str
    formula: Formula | None

    def rounds(self, cl: int) -> int | None:
        """Its length in rounds at caster level ``cl``: 0 when instantaneous,
        ``None`` when it outlasts any fight (hours and more, permanent), is
        given only in words (``special``) or is rolled (:attr:`rolled`).

        >>> Duration("minutes", compile_formula("@cl")).rounds(3)
        30
        """
        per = ROUNDS_PER_UNIT.get(self.units)
        if self.units == "instantaneous":
            return 0
        if per is None or self.formula is None or per > 10 or self.rolled:
            return None
        return per * self.formula.number(cl)

    @property
    def rolled(self) -> bool:
        """Whether its length is rolled (*hypnotism*: 2d4 rounds): its timed
        effects then give their own ``rounds`` (the spell file says so)."""
        return self.formula is not None and self.formula.has_dice


@dataclass(frozen=True, slots=True)
class Phase:
    """Conditions for ``rounds`` (``None``: the spell's duration)."""

    conditions: tuple[str, ...]
    rounds: Formula | None


@dataclass(frozen=True, slots=True)
class _Compiled:
    affects: Affects
    #: ``None``: as the spell's save says
    on_save: str | None


@dataclass(frozen=True, slots=True)
class DamageEffect(_Compiled):
    formula: Formula
    types: tuple[str, ...]
    halved: bool
    kind: Literal["damage"] = "damage"


@dataclass(frozen=True, slots=True)
class HealEffect(_Compiled):
    formula: Formula
    kind: Literal["heal"] = "heal"


@dataclass(frozen=True, slots=True)
class ConditionEffect(_Compiled):
    #: the first phase, then the others in turn
    phases: tuple[Phase, ...]
    on_success: Phase | None
    min_hd: int | None
    max_hd: int | None
    save_each_round: bool
    ends_on_attack: bool
    escape: bool
    bleed: int
    whole_fight: bool
    #: ``cmb`` or ``strength`` (with ``escape``)
    escape_check: str = "cmb"
    #: ``standard`` or ``move`` (with ``escape``)
    escape_action: str = "standard"
    kind: Literal["condition"] = "condition"

    def fits(self, hd: int) -> bool:
        """Whether it acts on a creature of ``hd`` Hit Dice (``min_hd``, ``max_hd``)."""
        return (self.min_hd is None or hd >= self.min_hd) and (
            self.max_hd is None or hd <= self.max_hd
        )


@dataclass(frozen=True, slots=True)
class SpellModifier:
    """A buff's modifier: the :mod:`engine.state.effects` stats it applies to."""

    stats: tuple[int, ...]
    value: Formula
    type: BonusType
    against: str | None
    when: str | None


@dataclass(frozen=True, slots=True)
class BuffEffect(_Compiled):
    modifiers: tuple[SpellModifier, ...]
    rounds: Formula | None
    once: bool
    speed_ft: int
    half_speed: bool
    extra_attack: bool
    size_steps: int
    wards: tuple[str, ...]
    kind: Literal["buff"] = "buff"


@dataclass(frozen=True, slots=True)
class RecurringEffect(_Compiled):
    formula: Formula
    types: tuple[str, ...]
    ticks: Formula
    kind: Literal["recurring"] = "recurring"


@dataclass(frozen=True, slots=True)
class TempHpEffect(_Compiled):
    formula: Formula
    rounds: Formula | None
    kind: Literal["temp_hp"] = "temp_hp"


@dataclass(frozen=True, slots=True)
class MirrorImageEffect(_Compiled):
    images: Formula
    max_images: int
    kind: Literal["mirror_image"] = "mirror_image"

    def count(self, rolled: int) -> int:
        """The images from the rolled value of ``images`` (at most ``max_images``)."""
        return max(0, min(self.max_images, rolled))


SpellEffect = (
    DamageEffect
    | HealEffect
    | ConditionEffect
    | BuffEffect
    | RecurringEffect
    | TempHpEffect
    | MirrorImageEffect
)

#: the range formulas (CRB « Range »): close 25 ft + 5 ft per two levels, medium
#: 100 ft + 10 ft per level, long 400 ft + 40 ft per level
_RANGE_BASE = {"close": (25, 5, 2), "medium": (100, 10, 1), "long": (400, 40, 1)}


@dataclass(frozen=True, slots=True, eq=False)
class Spell:
    """A spell compiled for the engine (immutable, shared by every fight).

    The formulas are :class:`~engine.content.formulas.Formula` values: ``at(cl)``
    gives dice notation, ``dice(cl)`` the compiled dice, ``number(cl)`` a count.
    """

    id: str
    name: str
    #: the French name when the file gives one, else the English name
    label: str
    level: int
    class_levels: Mapping[str, int]
    school: str
    subschools: tuple[str, ...]
    descriptors: tuple[str, ...]
    components: frozenset[str]
    spell_resistance: bool
    cast_time: str
    range_kind: str
    range_feet: int | None
    targeting: str
    affects: Affects
    hd_pool: Formula | None
    targets: Formula | None
    attack: str
    projectiles: Formula | None
    area: Area | None
    save: Save | None
    duration: Duration
    effects: tuple[SpellEffect, ...]
    modelled: bool
    reason: str | None
    #: the descriptors a save or an immunity reads: the file's descriptors, the
    #: subschools and school that are descriptors of the rules (compulsion, charm,
    #: illusion, necromancy), and the energies of its damage
    tags: frozenset[str]
    spec: SpellSpec

    def level_for(self, classes: tuple[str, ...] | list[str] = ()) -> int:
        """The level for a caster of these classes (lower-case Foundry names:
        ``wizard``, ``cleric``…): the lowest among its classes that learn it, else
        the base level.

        >>> fear = load_spell("data/spells/sleep.json")
        >>> fear.level_for(("bard",)), fear.level_for(())
        (1, 1)
        """
        levels = [self.class_levels[c] for c in classes if c in self.class_levels]
        return min(levels) if levels else self.level

    def range_ft(self, cl: int) -> int | None:
        """The range in feet at caster level ``cl``: 0 for personal, 5 for touch
        (the caster's reach: the rules read the reach), ``None`` unlimited or in
        words.

        >>> missile = load_spell("data/spells/magic-missile.json")
        >>> [missile.range_ft(cl) for cl in (1, 5)]
        [110, 150]
        """
        kind = self.range_kind
        if kind in _RANGE_BASE:
            base, step, per = _RANGE_BASE[kind]
            return base + step * (cl // per)
        if kind == "feet":
            return self.range_feet
        if kind == "personal":
            return 0
        if kind == "touch":
            return 5
        return None

    def projectile_count(self, cl: int) -> int:
        """How many missiles or rays at ``cl`` (at least 1).

        >>> missile = load_spell("data/spells/magic-missile.json")
        >>> [missile.projectile_count(cl) for cl in (1, 4, 9, 20)]
        [1, 2, 5, 5]
        """
        return 1 if self.projectiles is None else max(1, self.projectiles.number(cl))

    def __repr__(self) -> str:
        return f"Spell({self.id!r})"


def _affects(spec: AffectsSpec | None) -> Affects:
    if spec is None:
        return ALL_CREATURES
    return Affects(
        spec.side,
        spec.living,
        frozenset(spec.creature_types),
        frozenset(spec.not_creature_types),
        frozenset(spec.alignments),
        frozenset(spec.not_alignments),
        spec.max_hd,
        spec.dying,
    )


def _opt(text: str | None) -> Formula | None:
    return None if text is None else compile_formula(text)


def _phase(spec: PhaseSpec) -> Phase:
    return Phase(tuple(spec.conditions), _opt(spec.rounds))


def _compile_effect(spec: EffectSpec) -> SpellEffect:
    affects = _affects(spec.affects)
    if isinstance(spec, DamageEffectSpec):
        return DamageEffect(
            affects, spec.on_save, compile_formula(spec.formula), tuple(spec.types), spec.halved
        )
    if isinstance(spec, HealEffectSpec):
        return HealEffect(affects, spec.on_save, compile_formula(spec.formula))
    if isinstance(spec, ConditionEffectSpec):
        first = Phase(tuple(spec.conditions), _opt(spec.rounds))
        return ConditionEffect(
            affects,
            spec.on_save,
            (first, *(_phase(p) for p in spec.then)),
            _phase(spec.on_success) if spec.on_success is not None else None,
            spec.min_hd,
            spec.max_hd,
            spec.save_each_round,
            spec.ends_on_attack,
            spec.escape,
            spec.bleed,
            spec.whole_fight,
            spec.escape_check,
            spec.escape_action,
        )
    if isinstance(spec, BuffEffectSpec):
        mods = tuple(
            SpellModifier(
                STAT_GROUPS[m.stat],
                compile_formula(str(m.value)),
                BonusType(m.type),
                m.against,
                m.when,
            )
            for m in spec.modifiers
        )
        return BuffEffect(
            affects,
            spec.on_save,
            mods,
            _opt(spec.rounds),
            spec.once,
            spec.speed_ft,
            spec.half_speed,
            spec.extra_attack,
            spec.size_steps,
            tuple(spec.wards),
        )
    if isinstance(spec, RecurringEffectSpec):
        return RecurringEffect(
            affects,
            spec.on_save,
            compile_formula(spec.formula),
            tuple(spec.types),
            compile_formula(spec.ticks),
        )
    if isinstance(spec, TempHpEffectSpec):
        return TempHpEffect(affects, spec.on_save, compile_formula(spec.formula), _opt(spec.rounds))
    return MirrorImageEffect(affects, spec.on_save, compile_formula(spec.images), spec.max_images)


def _tags(spec: SpellSpec) -> frozenset[str]:
    tags = set(spec.descriptors)
    tags.update(s for s in spec.subschools if s in DESCRIPTORS)
    if spec.school in DESCRIPTORS:
        tags.add(spec.school)
    for effect in spec.effects:
        if isinstance(effect, (DamageEffectSpec, RecurringEffectSpec)):
            tags.update(t for t in effect.types if t in DESCRIPTORS)
    return frozenset(tags)


def compile_spell(spec: SpellSpec) -> Spell:
    """Compile a validated spell into the engine's :class:`Spell`."""
    return Spell(
        id=spec.id,
        name=spec.name,
        label=spec.label or spec.name,
        level=spec.level,
        class_levels=dict(spec.class_levels),
        school=spec.school,
        subschools=tuple(spec.subschools),
        descriptors=tuple(spec.descriptors),
        components=frozenset(spec.components),
        spell_resistance=spec.spell_resistance,
        cast_time=spec.cast_time,
        range_kind=spec.range.kind,
        range_feet=spec.range.feet,
        targeting=spec.targeting,
        affects=_affects(spec.affects),
        hd_pool=_opt(spec.hd_pool),
        targets=_opt(spec.targets),
        attack=spec.attack,
        projectiles=_opt(spec.projectiles),
        area=(
            Area(spec.area.shape, spec.area.size_ft, spec.area.centered_on_caster)
            if spec.area is not None
            else None
        ),
        save=(
            Save(spec.save.type, spec.save.outcome, spec.save.harmless, spec.save.bonus)
            if spec.save is not None
            else None
        ),
        duration=Duration(spec.duration.units, _opt(spec.duration.formula)),
        effects=tuple(_compile_effect(e) for e in spec.effects),
        modelled=spec.modelled,
        reason=spec.reason,
        tags=_tags(spec),
        spec=spec,
    )


def parse_spell(text: str, source: str | None = None) -> Spell:
    """Parse and validate spell JSON text. :raises DataError: on any problem."""
    data = load_json(text, source)
    spec = validate(SpellSpec, data, source)
    if source is not None and Path(source).suffix == ".json" and Path(source).stem != spec.id:
        raise DataError(f"le fichier doit s'appeler « {spec.id}.json » (son « id »)", source=source)
    return compile_spell(spec)


def load_spell(path: str | Path) -> Spell:
    """Read a spell file. :raises DataError: unreadable or invalid file."""
    text, source = read_text(path)
    return parse_spell(text, source)


# -- the registry ---------------------------------------------------------------

#: the shipped registry, next to the other content (``data/spells``)
SPELLS_DIR = Path(__file__).resolve().parents[2] / "data" / "spells"


def spell_key(name: str) -> str:
    """The id a spell name designates: its slug without apostrophes (as
    ``engine.content.creatures.slug`` makes them; case, accents, punctuation and
    the comma of « Restoration, Lesser » do not matter).

    >>> spell_key("Magic  Missile"), spell_key("Restoration, Lesser")
    ('magic-missile', 'restoration-lesser')
    >>> spell_key("restoration lesser"), spell_key("Bull’s Strength")
    ('restoration-lesser', 'bulls-strength')
    """
    text = name.replace("'", "").replace("’", "")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "x"


class SpellRegistry:
    """The spells of a directory of spell files, read on demand: a name is
    resolved by its id (:func:`spell_key`) to ``<dir>/<id>.json``, read and
    compiled once. Listing the directory (for suggestions) is the only other cost.

    >>> registry = SpellRegistry()
    >>> registry.resolve("fireball").name
    'Fireball'
    >>> registry.resolve("firebal")
    Traceback (most recent call last):
    ...
    engine.core.errors.DataError: sort inconnu « firebal » (vouliez-vous dire « Fireball » ?)
    """

    def __init__(self, directory: str | Path = SPELLS_DIR) -> None:
        self.directory = Path(directory)
        self._cache: dict[str, Spell] = {}
        self._ids: frozenset[str] | None = None

    def ids(self) -> frozenset[str]:
        """The ids of every spell file of the directory."""
        if self._ids is None:
            try:
                names = [p.stem for p in self.directory.glob("*.json")]
            except OSError:
                names = []
            self._ids = frozenset(names)
        return self._ids

    def __contains__(self, name: str) -> bool:
        return spell_key(name) in self.ids()

    def __iter__(self) -> Iterator[Spell]:
        """Every spell, in id order (reads them all)."""
        for ident in sorted(self.ids()):
            yield self.get(ident)

    def get(self, ident: str) -> Spell:
        """The spell of id ``ident``. :raises DataError: no such file, or a bad one."""
        hit = self._cache.get(ident)
        if hit is None:
            hit = self._cache[ident] = load_spell(self.directory / f"{ident}.json")
        return hit

    def resolve(self, name: str) -> Spell:
        """The spell a name designates (:func:`spell_key`). :raises DataError: no
        spell by that name (with the closest known name)."""
        key = spell_key(name)
        if key not in self.ids():
            raise DataError(f"sort inconnu « {name.strip()} »{self._hint(key)}")
        return self.get(key)

    def _hint(self, key: str) -> str:
        best = closest(key, self.ids())
        if best is None:
            return ""
        return f" (vouliez-vous dire « {self.get(best).name} » ?)"


_default: list[SpellRegistry] = []


def default_registry() -> SpellRegistry:
    """The shipped registry (``data/spells``), made on first use."""
    if not _default:
        _default.append(SpellRegistry())
    return _default[0]


_SCALAR_LIST = re.compile(
    r"\[\n\s*((?:(?:\"[^\"\n]*\"|-?\d+|true|false|null),\n\s*)*"
    r"(?:\"[^\"\n]*\"|-?\d+|true|false|null))\n\s*\]"
)


def check_spell_names(names: list[str], registry: SpellRegistry | None = None) -> list[Spell]:
    """The spells ``names`` designate (a combatant file's ``spells``), in order.

    :raises ValueError: a name the registry does not know (French, with the
        closest spell), or one spell named twice.

    >>> [s.id for s in check_spell_names(["Magic Missile", "shield"])]
    ['magic-missile', 'shield']
    >>> check_spell_names(["magic misile"])
    Traceback (most recent call last):
    ...
    ValueError: sort inconnu « magic misile » (vouliez-vous dire « Magic Missile » ?)
    """
    known = registry if registry is not None else default_registry()
    out: list[Spell] = []
    seen: dict[str, str] = {}
    for name in names:
        try:
            spell = known.resolve(name)
        except DataError as err:
            raise ValueError(err.message) from None
        if spell.id in seen:
            first = seen[spell.id]
            raise ValueError(f"sort « {name.strip()} » donné deux fois (comme « {first} »)")
        seen[spell.id] = name.strip()
        out.append(spell)
    return out


def spell_json(spec: SpellSpec) -> str:
    """A spell's file text: its fields without their default values, keys sorted,
    two-space indents, lists of plain values on one line, a final newline (what
    the importer writes).

    >>> spell_json(load_spell("data/spells/magic-missile.json").spec).splitlines()[1:3]
    ['  "attack": "auto_hit",', '  "class_levels": {']
    >>> spell_json(load_spell("data/spells/sleep.json").spec).splitlines()[22]
    '  "components": ["V", "S", "M"],'
    """
    data = spec.model_dump(mode="json", exclude_defaults=True)
    text = json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True)
    return _SCALAR_LIST.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text) + "\n"


__all__ = [
    "CONDITION_NAMES",
    "EFFECT_KINDS",
    "STAT_GROUPS",
    "STAT_INDEX",
    "Affects",
    "BuffEffect",
    "ConditionEffect",
    "DamageEffect",
    "HealEffect",
    "MirrorImageEffect",
    "RecurringEffect",
    "Spell",
    "SpellRegistry",
    "SpellSpec",
    "TempHpEffect",
    "check_spell_names",
    "compile_spell",
    "default_registry",
    "load_spell",
    "parse_spell",
    "spell_json",
    "spell_key",
]
