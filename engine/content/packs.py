"""Rules packs: check mechanics, difficulty scales and proportional values as data.

A pack is a YAML file (built-in ones under ``engine/content/packs/``) validated by
:class:`PackSpec` (unknown keys and unsupported capabilities fail closed with a
French :class:`~engine.core.errors.DataError`) and compiled once into a
:class:`RulesPack` of :class:`~engine.core.checks.CheckMechanic` objects.

>>> pack = load_pack("2d5")
>>> pack.proportional(40, 2), pack.modified(40, 2), pack.modified(40, -2)
(8, 48, 32)
>>> float(pack.mechanic("check").probabilities(0, 7)["réussite"])
0.8333333333333334
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from engine.content.validation import (
    StrictModel,
    empty_dict,
    empty_list,
    load_yaml,
    read_text,
    validate,
)
from engine.core.checks import (
    CheckError,
    CheckMechanic,
    Dice,
    NaturalRange,
    PercentileDice,
    SuccessLevel,
    SumDice,
)
from engine.core.errors import DataError, suggestion

PACK_DIR = Path(__file__).resolve().parent / "packs"
DEFAULT_PACK = "pf1e"
_NDM = re.compile(r"^([1-9][0-9]?)?d([1-9][0-9]{0,3})$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
#: check kinds a pack may map to its mechanics (engine.core.checks.CheckKind)
KINDS = ("attack", "confirm", "initiative", "stabilize", "save", "skill", "concentration", "check")
ABILITIES = ("for", "dex", "con", "int", "sag", "cha")


class DiceSpec(StrictModel):
    """``count`` dice numbered ``lowest..highest`` (2d5 of seed 004: 2, 0, 5)."""

    count: int = Field(ge=1, le=20)
    lowest: int = Field(ge=-100, le=100)
    highest: int = Field(ge=-100, le=1000)
    label: str = Field(min_length=1, max_length=20)

    @model_validator(mode="after")
    def _faces(self) -> DiceSpec:
        if self.highest <= self.lowest:
            raise ValueError("« highest » doit être supérieur à « lowest »")
        return self


class NaturalSpec(StrictModel):
    """Natural results ``from..to`` (``to`` defaults to ``from``), optionally only
    when the threshold needed is below ``target_below``."""

    from_: int = Field(alias="from")
    to: int | None = None
    target_below: int | None = None


Naturals = list[int | NaturalSpec]


class NaturalRules(StrictModel):
    success: Naturals = Field(default_factory=empty_list)
    failure: Naturals = Field(default_factory=empty_list)
    #: margin of a result whose outcome a natural rule forced (seed 004: 0)
    forced_margin: int | None = None


class CriticalRules(StrictModel):
    success: Naturals = Field(default_factory=empty_list)
    failure: Naturals = Field(default_factory=empty_list)


class AdvantageSpec(StrictModel):
    """Roll the dice twice, keep the better (advantage) or the worse (disadvantage).
    Never stacks; one of each cancels (seed 000, EX-DND-002)."""

    kind: Literal["roll_twice_keep_best"]


class BonusDiceSpec(StrictModel):
    """d100 bonus / penalty dice: extra tens dice; keep the lower / higher result."""

    max: int = Field(ge=1, le=3)


class LevelSpec(StrictModel):
    name: str = Field(min_length=1, max_length=40)
    divisor: int = Field(ge=1, le=100)


class MechanicSpec(StrictModel):
    dice: str | DiceSpec
    comparison: Literal["roll_plus_modifiers_at_least_target", "roll_at_most_target_plus_modifiers"]
    natural: NaturalRules | None = None
    critical: CriticalRules | None = None
    advantage: AdvantageSpec | None = None
    bonus_dice: BonusDiceSpec | None = None
    levels: list[LevelSpec] = Field(default_factory=empty_list)

    @field_validator("dice")
    @classmethod
    def _notation(cls, value: str | DiceSpec) -> str | DiceSpec:
        if isinstance(value, str) and value != "percentile" and not _NDM.match(value):
            raise ValueError(
                f"dés invalides « {value} » (attendu « d20 », « 3d6 », « percentile » "
                "ou {count, lowest, highest, label})"
            )
        return value


class DifficultySpec(StrictModel):
    """A named difficulty scale (seed 000, EX-DND-021): name → target value, or
    name → success level for packs whose difficulty is a level (CoC)."""

    label: str = Field(min_length=1, max_length=20)
    scale: dict[str, int | str]


class ProportionalSpec(StrictModel):
    """Values proportional to a margin (seed 004): base × margin × percent / 100."""

    percent_per_point: int = Field(ge=1, le=100)
    rounding: Literal["floor", "ceil", "nearest"]


class PackSpec(StrictModel):
    id: str = Field(min_length=1, max_length=40)
    name: str = Field(min_length=1, max_length=80)
    description: str = ""
    sources: list[str] = Field(default_factory=empty_list)
    mechanics: dict[str, MechanicSpec]
    checks: dict[str, str]
    difficulty: DifficultySpec | None = None
    dcs: dict[str, int] = Field(default_factory=empty_dict)
    proportional: ProportionalSpec | None = None
    skills: dict[str, str] = Field(default_factory=empty_dict)

    @field_validator("skills")
    @classmethod
    def _abilities(cls, value: dict[str, str]) -> dict[str, str]:
        for skill, ability in value.items():
            if ability not in ABILITIES:
                raise ValueError(
                    f"compétence « {skill} » : caractéristique « {ability} » inconnue "
                    f"(connues : {', '.join(ABILITIES)})"
                )
        return value


@dataclass(frozen=True, slots=True)
class RulesPack:
    """A compiled pack: mechanics by name and by check kind, difficulty, values."""

    id: str
    name: str
    description: str
    sources: tuple[str, ...]
    mechanics: dict[str, CheckMechanic]
    kinds: dict[str, CheckMechanic]
    difficulty_label: str
    difficulties: dict[str, int | str]
    dcs: dict[str, int]
    percent_per_point: int | None
    rounding: str
    skills: dict[str, str]

    def mechanic(self, kind: str) -> CheckMechanic:
        """The mechanic for a check kind (``attack``, ``skill``…) or a mechanic name.

        :raises CheckError: if the pack declares neither.
        """
        found = self.kinds.get(kind) or self.mechanics.get(kind)
        if found is None:
            known = sorted(set(self.kinds) | set(self.mechanics))
            raise CheckError(
                f"le pack « {self.id} » ne déclare pas de jet « {kind} »{suggestion(kind, known)}"
                f" (connus : {', '.join(known)})"
            )
        return found

    def dc(self, name: str) -> int:
        """A fixed difficulty the engine needs (``stabilize``…), from the data."""
        try:
            return self.dcs[name]
        except KeyError:
            raise DataError(f"le pack « {self.id} » ne déclare pas le DD « {name} »") from None

    def difficulty(self, name: str) -> int | str:
        """The value of a named difficulty. :raises CheckError: if unknown."""
        if name in self.difficulties:
            return self.difficulties[name]
        if not self.difficulties:
            raise CheckError(f"le pack « {self.id} » ne déclare pas d'échelle de difficulté")
        known = ", ".join(self.difficulties)
        raise CheckError(
            f"difficulté inconnue « {name} »{suggestion(name, list(self.difficulties))}"
            f" (connues : {known})"
        )

    def _scaled(self, base: int, margin: int) -> Fraction:
        if self.percent_per_point is None:
            raise CheckError(f"le pack « {self.id} » ne déclare pas de valeurs proportionnelles")
        return Fraction(base * margin * self.percent_per_point, 100)

    def _round(self, value: Fraction) -> int:
        if self.rounding == "floor":
            return math.floor(value)
        if self.rounding == "ceil":
            return math.ceil(value)
        sign = 1 if value >= 0 else -1
        return sign * math.floor(abs(value) + Fraction(1, 2))

    def proportional(self, base: int, margin: int) -> int:
        """A value proportional to the margin: ``base × margin / 10`` (seed 004)."""
        return self._round(self._scaled(base, margin))

    def modified(self, base: int, margin: int) -> int:
        """A value modified by 10 % per margin point: ``base + base × margin / 10``."""
        return self._round(base + self._scaled(base, margin))


def _ranges(values: Naturals) -> tuple[NaturalRange, ...]:
    out: list[NaturalRange] = []
    for v in values:
        if isinstance(v, int):
            out.append(NaturalRange(v, v))
        else:
            out.append(NaturalRange(v.from_, v.to if v.to is not None else v.from_, v.target_below))
    return tuple(out)


def _dice(spec: str | DiceSpec) -> Dice:
    if isinstance(spec, DiceSpec):
        return SumDice(spec.count, spec.lowest, spec.highest, spec.label)
    if spec == "percentile":
        return PercentileDice()
    match = _NDM.match(spec)
    assert match is not None  # validated
    count = int(match.group(1) or 1)
    sides = int(match.group(2))
    return SumDice(count, 1, sides, f"{count}d{sides}" if count > 1 else f"d{sides}")


def _compile_mechanic(pack: str, name: str, spec: MechanicSpec) -> CheckMechanic:
    where = f"mechanics.{name}"
    dice = _dice(spec.dice)
    if isinstance(dice, PercentileDice):
        low, high = 1, 100
    else:
        low = dice.count * dice.lowest
        high = dice.count * (dice.lowest + dice.faces - 1)
    if dice.faces < 2:
        raise DataError("un dé doit avoir au moins deux faces", location=where)
    under = spec.comparison == "roll_at_most_target_plus_modifiers"
    natural = spec.natural or NaturalRules()
    critical = spec.critical or CriticalRules()
    groups = {
        "natural.success": _ranges(natural.success),
        "natural.failure": _ranges(natural.failure),
        "critical.success": _ranges(critical.success),
        "critical.failure": _ranges(critical.failure),
    }
    for field, ranges in groups.items():
        for r in ranges:
            if r.low > r.high or r.low < low or r.high > high:
                raise DataError(
                    f"résultat naturel {r.low}–{r.high} impossible avec {dice.label} "
                    f"({low} à {high})",
                    location=f"{where}.{field}",
                )
    wins = {v for key in ("natural.success", "critical.success") for r in groups[key]
            for v in range(r.low, r.high + 1)}  # fmt: skip
    losses = {v for key in ("natural.failure", "critical.failure") for r in groups[key]
              for v in range(r.low, r.high + 1)}  # fmt: skip
    if wins & losses:
        raise DataError(
            f"résultat naturel {min(wins & losses)} à la fois réussite et échec", location=where
        )
    if spec.bonus_dice is not None and not isinstance(dice, PercentileDice):
        raise DataError(
            "les dés bonus / pénalité n'existent que pour « percentile » (d100)",
            location=f"{where}.bonus_dice",
        )
    if spec.advantage is not None and isinstance(dice, PercentileDice):
        raise DataError(
            "l'avantage n'est pas défini pour « percentile » : utiliser « bonus_dice »",
            location=f"{where}.advantage",
        )
    if spec.levels and not under:
        raise DataError(
            "les niveaux de réussite n'existent que pour les jets sous une valeur",
            location=f"{where}.levels",
        )
    divisors = [lv.divisor for lv in spec.levels]
    if divisors and (divisors != sorted(divisors, reverse=True) or divisors[-1] != 1):
        raise DataError(
            "niveaux de réussite : du meilleur (plus grand diviseur) au niveau ordinaire "
            "(diviseur 1), sans doublon",
            location=f"{where}.levels",
        )
    if len(set(divisors)) != len(divisors):
        raise DataError("niveaux de réussite : diviseurs en double", location=f"{where}.levels")
    return CheckMechanic(
        name,
        dice,
        under=under,
        success=groups["natural.success"],
        failure=groups["natural.failure"],
        critical_success=groups["critical.success"],
        critical_failure=groups["critical.failure"],
        forced_margin=natural.forced_margin,
        advantage=spec.advantage is not None,
        bonus_dice=spec.bonus_dice.max if spec.bonus_dice else 0,
        levels=tuple(SuccessLevel(lv.name, lv.divisor) for lv in spec.levels),
        pack=pack,
    )


def compile_pack(spec: PackSpec, source: str | None = None) -> RulesPack:
    """Compile a validated declaration. :raises DataError: on inconsistencies."""
    try:
        if not _NAME.match(spec.id):
            raise DataError(f"identifiant de pack invalide « {spec.id} »", location="id")
        if not spec.mechanics:
            raise DataError("au moins une mécanique est nécessaire", location="mechanics")
        mechanics = {
            name: _compile_mechanic(spec.id, name, m) for name, m in spec.mechanics.items()
        }
        kinds: dict[str, CheckMechanic] = {}
        for kind, name in spec.checks.items():
            if kind not in KINDS:
                raise DataError(
                    f"type de jet inconnu « {kind} »{suggestion(kind, list(KINDS))}",
                    location=f"checks.{kind}",
                )
            if name not in mechanics:
                raise DataError(
                    f"mécanique inconnue « {name} »{suggestion(name, list(mechanics))}",
                    location=f"checks.{kind}",
                )
            kinds[kind] = mechanics[name]
        difficulties: dict[str, int | str] = {}
        label = ""
        if spec.difficulty is not None:
            label = spec.difficulty.label
            difficulties = dict(spec.difficulty.scale)
            levels = {lv.name for m in mechanics.values() for lv in m.levels}
            for name, value in difficulties.items():
                if isinstance(value, str) and value not in levels:
                    raise DataError(
                        f"difficulté « {name} » : niveau de réussite inconnu « {value} »",
                        location="difficulty.scale",
                    )
        return RulesPack(
            spec.id,
            spec.name,
            spec.description.strip(),
            tuple(spec.sources),
            mechanics,
            kinds,
            label,
            difficulties,
            dict(spec.dcs),
            spec.proportional.percent_per_point if spec.proportional else None,
            spec.proportional.rounding if spec.proportional else "floor",
            dict(spec.skills),
        )
    except DataError as err:
        raise err.with_source(source) if source and not err.source else err from None


def parse_pack(text: str, source: str) -> RulesPack:
    """Validate and compile a pack from YAML text."""
    spec = validate(PackSpec, load_yaml(text, source), source)
    return compile_pack(spec, source)


def builtin_packs() -> list[str]:
    """Names of the packs shipped with the engine."""
    return sorted(p.stem for p in PACK_DIR.glob("*.yaml"))


@cache
def load_pack(name: str) -> RulesPack:
    """A built-in pack by name, or a pack file by path (``*.yaml``).

    :raises DataError: unknown pack, unreadable or invalid file (French).
    """
    if name.endswith((".yaml", ".yml")) or "/" in name:
        text, source = read_text(name)
        return parse_pack(text, source)
    known = builtin_packs()
    if name not in known:
        raise DataError(f"pack de règles inconnu « {name} »{suggestion(name, known)}"
                        f" (disponibles : {', '.join(known)})")  # fmt: skip
    path = PACK_DIR / f"{name}.yaml"
    # shipped files: the same guarded reader (libyaml's parser when present)
    text, _ = read_text(path)
    data = load_yaml(text, f"{name}.yaml")
    pack = compile_pack(validate(PackSpec, data, f"{name}.yaml"), f"{name}.yaml")
    if pack.id != name:
        raise DataError(f"le fichier déclare l'identifiant « {pack.id} »", source=f"{name}.yaml")
    return pack


#: The PF1e pack, compiled once at import: every engine roll goes through it.
PF1E = load_pack(DEFAULT_PACK)
#: Attack rolls and crit confirmations (SRD: natural 20 hits, natural 1 misses).
D20_ATTACK = PF1E.mechanic("attack")
#: Stabilization (SRD « Dying »: a natural 20 always stabilizes).
D20_STABILIZE = PF1E.mechanic("stabilize")
#: Saving throws (SRD « Saving Throws »: natural 20 succeeds, natural 1 fails).
D20_SAVE = PF1E.mechanic("save")
#: Plain d20 roll with no natural results (initiative, ability and skill checks).
D20_PLAIN = PF1E.mechanic("check")
