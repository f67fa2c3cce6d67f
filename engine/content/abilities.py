"""Monster abilities as data: start-of-turn auras, on-hit riders and the
conditions a combatant starts a fight under, as combatant files write them.

* An **aura** (SRD « Universal Monster Rules »: *Frightful Presence*, *Stench*;
  the lich's *Fear Aura*) acts at the start of its owner's turn on every other
  creature within ``radius_ft``: a saving throw, and on a failure the condition
  of the first :class:`Outcome` that fits the creature's Hit Dice (the file's
  ``level``). ``immune_after_save``: a creature that saves is not affected again
  by that creature's aura for the rest of the fight (SRD: « for 24 hours »);
  ``spares_same_aura``: creatures that have an aura of the same name are not
  affected (SRD « Stench »: « except those with the stench special ability »);
  ``needs_sight``: only creatures that can see the owner (SRD « Fear Aura »:
  « that look at the lich »: not blinded, with a line of sight).
* A **rider** on an attack (« bite +3 (1d6+1 plus paralysis) ») acts after a
  hit's damage: a saving throw, or the condition.
* **Durations** in rounds: a number, dice (« 1d4+1 », rolled when the
  condition is given) or ``null`` (until the fight ends).
* **Starting conditions** (the file's ``conditions``): a condition's name (for
  the whole fight) or ``{name, rounds, bleed}`` (``rounds``: it ends at the end
  of the combatant's own N-th turn; ``bleed``: the hit points a ``bleeding``
  condition costs each turn).

The rules that play them are :mod:`engine.rules.auras` and
:mod:`engine.state.conditions` (starting conditions). This module is the
content layer: plain names, validated, with French errors; an unknown name is
an error with the closest known one, never ignored.

>>> aura = compile_aura(AuraSpec.model_validate({
...     "name": "aura de terreur", "radius_ft": 60, "save": "will", "dc": 18,
...     "descriptors": ["mind-affecting", "fear"],
...     "outcomes": [{"max_hd": 4, "condition": "frightened", "rounds": 11},
...                  {"condition": "shaken", "rounds": 11}],
...     "immune_after_save": True}))
>>> aura.outcome_for(1).condition, aura.outcome_for(11).condition
('frightened', 'shaken')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from pydantic import Field, ValidationError, field_validator, model_validator

from engine.content.validation import StrictModel, empty_list, quote, translate
from engine.core.dice import compile_dice
from engine.core.errors import DataError, suggestion

#: the 29 conditions of the table, by their file names, in table order
#: (:data:`engine.state.conditions.CONDITIONS`: the content layer cannot import
#: the state layer, and ``tests/test_abilities.py`` keeps the two equal)
CONDITION_NAMES: tuple[str, ...] = (
    "shaken", "sickened", "fatigued", "exhausted", "entangled", "dazzled", "blinded",
    "deafened", "flat_footed", "prone", "stunned", "paralyzed", "nauseated", "dazed",
    "staggered", "frightened", "panicked", "cowering", "helpless", "fascinated", "invisible",
    "bleeding", "confused", "grappled", "pinned", "asleep", "unconscious", "blurred",
    "displaced",
)  # fmt: skip

#: the descriptors an aura or a rider may carry (SRD « Descriptors » of spells and
#: « Special Abilities »; the ones creature traits are immune to, SRD « Creature
#: Types »; the alignment descriptors of protection effects)
DESCRIPTORS: frozenset[str] = frozenset(
    {
        # schools and subschools creature traits name
        "mind-affecting", "fear", "emotion", "compulsion", "charm", "illusion", "necromancy",
        "gaze", "language-dependent", "sonic", "light", "darkness", "curse", "pain",
        # what undead, constructs, oozes, plants and vermin are immune to
        "poison", "disease", "paralysis", "sleep", "stun", "death", "bleed", "fatigue",
        "exhaustion", "nonlethal",
        # energies and alignments
        "acid", "cold", "electricity", "fire", "force", "air", "earth", "water",
        "evil", "good", "lawful", "chaotic",
    }
)  # fmt: skip

#: the saving throws by their names in files
SaveName = Literal["fort", "ref", "will"]


def check_condition(name: str) -> str:
    """``name`` if it is a condition of the table, else a French ``ValueError``
    naming the closest one.

    >>> check_condition("shaken")
    'shaken'
    >>> check_condition("paralysed")
    Traceback (most recent call last):
    ...
    ValueError: condition inconnue « paralysed » (vouliez-vous dire « paralyzed » ?)
    """
    if name not in CONDITION_NAMES:
        raise ValueError(f"condition inconnue « {name} »{suggestion(name, CONDITION_NAMES)}")
    return name


def _check_descriptors(values: list[str]) -> list[str]:
    for d in values:
        if d not in DESCRIPTORS:
            raise ValueError(f"descripteur inconnu « {d} »{suggestion(d, DESCRIPTORS)}")
    if len(set(values)) != len(values):
        raise ValueError("descripteur donné deux fois")
    return values


def _check_rounds(value: int | str | None) -> int | str | None:
    """A duration: ``None``, a number of rounds ≥ 1, or dice."""
    if isinstance(value, int):
        if value < 1:
            raise ValueError(f"durée en rounds ≥ 1 attendue (ou des dés, ou null), reçu {value}")
        return value
    if isinstance(value, str):
        try:
            compile_dice(value)
        except DataError as err:
            raise ValueError(err.message) from None
    return value


class Outcome(StrictModel):
    """What a failed save against an aura gives a creature of at most ``max_hd``
    Hit Dice (``None``: any): ``condition`` for ``rounds`` (a number, dice, or
    ``null``: until the fight ends)."""

    max_hd: int | None = Field(default=None, ge=0, le=99)
    condition: str
    rounds: int | str | None

    @field_validator("condition")
    @classmethod
    def _condition(cls, value: str) -> str:
        return check_condition(value)

    @field_validator("rounds")
    @classmethod
    def _rounds(cls, value: int | str | None) -> int | str | None:
        return _check_rounds(value)


class AuraSpec(StrictModel):
    """A start-of-turn aura as a combatant file writes it (module docstring)."""

    #: its French name (transcript, report)
    name: str = Field(min_length=1)
    radius_ft: int = Field(gt=0, le=1000)
    save: SaveName
    dc: int = Field(ge=1, le=100)
    descriptors: list[str] = Field(default_factory=empty_list)
    #: by Hit Dice, the lowest first; the first that fits the creature applies
    outcomes: list[Outcome] = Field(min_length=1)
    immune_after_save: bool = False
    spares_same_aura: bool = False
    needs_sight: bool = False

    @field_validator("descriptors")
    @classmethod
    def _descriptors(cls, value: list[str]) -> list[str]:
        return _check_descriptors(value)

    @field_validator("radius_ft")
    @classmethod
    def _radius(cls, value: int) -> int:
        if value % 5:
            raise ValueError("« radius_ft » doit être un multiple de 5")
        return value

    @model_validator(mode="after")
    def _ordered(self) -> AuraSpec:
        last = -1
        for i, outcome in enumerate(self.outcomes):
            if outcome.max_hd is None:
                if i != len(self.outcomes) - 1:
                    raise ValueError(
                        f"outcomes[{i}] : seul le dernier résultat peut omettre « max_hd »"
                    )
            elif outcome.max_hd <= last:
                raise ValueError(
                    f"outcomes[{i}] : « max_hd » doit croître d'un résultat au suivant "
                    f"({outcome.max_hd} après {last})"
                )
            else:
                last = outcome.max_hd
        return self


class RiderSpec(StrictModel):
    """What an attack's hit does beyond its damage: ``save`` against ``dc`` or
    ``condition`` for ``rounds`` (a number, dice, or ``null``: until the fight ends)."""

    #: its French name (transcript)
    name: str = Field(min_length=1)
    save: SaveName
    dc: int = Field(ge=1, le=100)
    descriptors: list[str] = Field(default_factory=empty_list)
    condition: str
    rounds: int | str | None

    @field_validator("descriptors")
    @classmethod
    def _descriptors(cls, value: list[str]) -> list[str]:
        return _check_descriptors(value)

    @field_validator("condition")
    @classmethod
    def _condition(cls, value: str) -> str:
        return check_condition(value)

    @field_validator("rounds")
    @classmethod
    def _rounds(cls, value: int | str | None) -> int | str | None:
        return _check_rounds(value)


class StartConditionSpec(StrictModel):
    """A starting condition written as an object: ``rounds`` (``None``: the whole
    fight) counted on the combatant's own turns, ``bleed`` for ``bleeding``."""

    name: str
    rounds: int | None = Field(default=None, ge=1, le=10_000)
    bleed: int = Field(default=0, ge=0, le=1000)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return check_condition(value)

    @model_validator(mode="after")
    def _bleed(self) -> StartConditionSpec:
        if self.name == "bleeding" and not self.bleed:
            raise ValueError("« bleeding » exige « bleed » : les points de vie perdus par tour")
        if self.bleed and self.name != "bleeding":
            raise ValueError(f"« bleed » n'a de sens que pour « bleeding », pas « {self.name} »")
        return self


def parse_start_conditions(value: object) -> object:
    """The ``conditions`` of a combatant or an encounter file, checked before
    pydantic reads them (a ``mode="before"`` validator): names of the table or
    :class:`StartConditionSpec` objects, none twice, ``bleeding`` only as an object
    with its ``bleed``. A mistake is one French ``ValueError`` naming the entry
    (a union's error would name both of its members)."""
    if not isinstance(value, list):
        return value  # pydantic says « liste attendue »
    out: list[str | StartConditionSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(cast("list[object]", value)):
        where = f"entrée {i}"
        if isinstance(item, str):
            try:
                name = check_condition(item)
            except ValueError as err:
                raise ValueError(f"{where} : {err}") from None
            if name == "bleeding":
                raise ValueError(
                    f"{where} : « bleeding » s'écrit {{ name: bleeding, bleed: N }} "
                    "(N : points de vie perdus par tour)"
                )
            out.append(name)
        elif isinstance(item, dict):
            try:
                spec = StartConditionSpec.model_validate(item)
            except ValidationError as err:
                bad = translate(err, StartConditionSpec, None)
                field = f"« {bad.location} » : " if bad.location else ""
                raise ValueError(f"{where} : {field}{bad.message}") from None
            name = spec.name
            out.append(spec)
        else:
            raise ValueError(
                f"{where} : un nom de condition ou {{ name, rounds, bleed }} attendu, "
                f"reçu {quote(item)}"
            )
        if name in seen:
            raise ValueError(f"{where} : condition « {name} » donnée deux fois")
        seen.add(name)
    return out


# -- compiled forms (plain values the rules read) ------------------------------


@dataclass(frozen=True, slots=True)
class AuraOutcome:
    """One compiled :class:`Outcome`."""

    max_hd: int | None
    condition: str
    #: a number of rounds, dice text, or ``None`` (until the fight ends)
    rounds: int | str | None


@dataclass(frozen=True, slots=True)
class Aura:
    """A compiled aura (:class:`AuraSpec`)."""

    name: str
    radius_ft: int
    save: str
    dc: int
    descriptors: tuple[str, ...]
    outcomes: tuple[AuraOutcome, ...]
    immune_after_save: bool
    spares_same_aura: bool
    needs_sight: bool

    def outcome_for(self, hd: int) -> AuraOutcome | None:
        """What a failed save gives a creature of ``hd`` Hit Dice (``None``: nothing,
        and no save is rolled)."""
        for outcome in self.outcomes:
            if outcome.max_hd is None or hd <= outcome.max_hd:
                return outcome
        return None


@dataclass(frozen=True, slots=True)
class Rider:
    """A compiled rider (:class:`RiderSpec`)."""

    name: str
    save: str
    dc: int
    descriptors: tuple[str, ...]
    condition: str
    rounds: int | str | None


@dataclass(frozen=True, slots=True)
class StartingCondition:
    """A condition a combatant starts the fight under: ``rounds`` ``None`` for the
    whole fight, else it ends at the end of its own ``rounds``-th turn."""

    name: str
    rounds: int | None = None
    bleed: int = 0


def compile_aura(spec: AuraSpec) -> Aura:
    return Aura(
        spec.name,
        spec.radius_ft,
        spec.save,
        spec.dc,
        tuple(spec.descriptors),
        tuple(AuraOutcome(o.max_hd, o.condition, o.rounds) for o in spec.outcomes),
        spec.immune_after_save,
        spec.spares_same_aura,
        spec.needs_sight,
    )


def compile_rider(spec: RiderSpec) -> Rider:
    return Rider(
        spec.name, spec.save, spec.dc, tuple(spec.descriptors), spec.condition, spec.rounds
    )


def compile_start(values: list[str | StartConditionSpec]) -> tuple[StartingCondition, ...]:
    """The compiled starting conditions, in name order.

    >>> [(c.name, c.rounds) for c in compile_start(
    ...     [StartConditionSpec(name="confused", rounds=2), "blurred"])]
    [('blurred', None), ('confused', 2)]
    """
    out = [
        StartingCondition(v) if isinstance(v, str) else StartingCondition(v.name, v.rounds, v.bleed)
        for v in values
    ]
    return tuple(sorted(out, key=lambda c: c.name))
