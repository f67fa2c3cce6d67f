"""The single check mechanism: every uncertain resolution returns a RollRecord.

A check is a roll of dice plus named modifiers compared with a target. How the
dice behave is *data*: a :class:`CheckMechanic`, compiled once from a rules pack
(:mod:`engine.content.packs`, YAML files under ``engine/content/packs/``). A mechanic says which
dice are rolled (one d20, 2d5 numbered 0–5, a d100 read as tens and units, any
NdM), how the kept result is compared (``roll + modifiers ≥ target`` or
``roll ≤ target + modifiers``), which natural results decide the outcome,
criticals, advantage / disadvantage, bonus / penalty dice and success levels.
PF1e is one pack among others; its mechanics take the same short path as before
(one die, no allocation beyond the record).

>>> from engine.content.packs import D20_ATTACK
>>> from engine.core.rng import ScriptedDice
>>> dice = ScriptedDice({"attack": [14]})
>>> rec = check(dice, D20_ATTACK, CheckKind.ATTACK, (Modifier(2, "attaque"),), 13)
>>> rec.total, rec.success, rec.margin
(16, True, 3)
>>> rec.explain()
'd20=14+2=16 vs 13 -> réussite (marge 3)'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from engine.core.errors import Pf1eSimError
from engine.core.rng import Rng


class CheckKind(StrEnum):
    """What a check resolves. Closed vocabulary, shown in transcripts and JSON.

    Its dice are rolled as the :class:`~engine.core.rng.RollKind` of the same value
    unless the check names a finer one (``check(..., roll=...)``)."""

    ATTACK = "attack"
    CONFIRM = "confirm"
    INITIATIVE = "initiative"
    STABILIZE = "stabilize"
    SAVE = "save"
    SKILL = "skill"
    CONCENTRATION = "concentration"
    CHECK = "check"


class CheckError(Pf1eSimError):
    """A check asked for something its mechanic does not declare (French message):
    advantage on a pack without it, too many bonus dice, an unknown success level."""


class BonusType(StrEnum):
    """The type of a bonus or penalty (CRB « Bonus Types », Chapter 9 « Magic »;
    the bonus descriptions of the Glossary). The type decides what stacks with
    what (:func:`stack`); the value is the identifier written in files and JSON.

    A size modifier is typed :attr:`SIZE`; an ability modifier (Dex to AC, Str to
    attack) has no bonus type and is :attr:`UNTYPED`, with the ability as its
    source. An enhancement bonus *to* armor, a shield or natural armor raises that
    bonus (CRB « Armor Class », « Magic Armor »): it belongs to the armor, shield or
    natural armor value, not to :attr:`ENHANCEMENT`, so that a +1 chain shirt and
    *barkskin* still stack.
    """

    UNTYPED = "untyped"
    ALCHEMICAL = "alchemical"
    ARMOR = "armor"
    CIRCUMSTANCE = "circumstance"
    COMPETENCE = "competence"
    DEFLECTION = "deflection"
    DODGE = "dodge"
    ENHANCEMENT = "enhancement"
    INHERENT = "inherent"
    INSIGHT = "insight"
    LUCK = "luck"
    MORALE = "morale"
    NATURAL_ARMOR = "natural_armor"
    PROFANE = "profane"
    RACIAL = "racial"
    RESISTANCE = "resistance"
    SACRED = "sacred"
    SHIELD = "shield"
    SIZE = "size"
    TRAIT = "trait"


#: Types whose modifiers from different sources add (CRB « Bonus Types »: « With
#: the exception of dodge bonuses, most circumstance bonuses, and racial bonuses,
#: only the better bonus of a given type works »; « Bonuses without a type always
#: stack, unless they are from the same source »). Every other type keeps only its
#: best bonus and its worst penalty.
STACKING_TYPES = frozenset(
    {BonusType.UNTYPED, BonusType.DODGE, BonusType.CIRCUMSTANCE, BonusType.RACIAL}
)


@dataclass(frozen=True, slots=True)
class Modifier:
    """A signed bonus or penalty, where it comes from (``"bonus d'attaque"``) and
    its PF1e bonus type (untyped unless said otherwise).

    ``source`` names the effect: two modifiers of the same source and type are the
    same effect applied twice and do not stack (:func:`stack`).

    >>> Modifier(2, "flanc")
    Modifier(2, 'flanc')
    >>> Modifier(4, "armure du mage", BonusType.ARMOR)
    Modifier(4, 'armure du mage', BonusType.ARMOR)
    """

    value: int
    source: str
    type: BonusType = BonusType.UNTYPED

    def __repr__(self) -> str:
        if self.type is BonusType.UNTYPED:
            return f"Modifier({self.value!r}, {self.source!r})"
        return f"Modifier({self.value!r}, {self.source!r}, BonusType.{self.type.name})"


def stack(modifiers: Iterable[Modifier]) -> tuple[Modifier, ...]:
    """The modifiers that apply together to one check or statistic, by the PF1e
    stacking rules; their values add up to the total.

    - Bonuses of the same type do not stack: only the best applies (CRB « Bonus
      Types », « Combining Magical Effects »: « two bonuses of the same type don't
      generally stack »).
    - Except dodge bonuses (CRB « Armor Class »: « Unlike most sorts of bonuses,
      dodge bonuses stack with each other »), circumstance and racial bonuses
      (« most circumstance bonuses, and racial bonuses ») and untyped bonuses
      (« Bonuses without a type always stack, unless they are from the same
      source »): these add when their sources differ.
    - Penalties follow the same principle (« a character taking two or more
      penalties of the same type applies only the worst one, although most
      penalties have no type and thus always stack »): untyped penalties add,
      a typed penalty keeps only the worst of its type.
    - The same effect twice never stacks (« Same Effect More than Once in
      Different Strengths »: only the strongest applies): among modifiers of one
      source and one type, only the best bonus and the worst penalty are kept.
    - Bonuses and penalties stack with one another (CRB « Stacking »), of the same
      type or not. A zero counts as a bonus.

    Deterministic: the kept modifiers come in their input order; between equal
    values the first one is kept.

    >>> ARMOR, DODGE = BonusType.ARMOR, BonusType.DODGE
    >>> mods = [Modifier(2, "armure de cuir", ARMOR), Modifier(4, "armure du mage", ARMOR),
    ...         Modifier(1, "Esquive", DODGE), Modifier(1, "rapidité", DODGE)]
    >>> [m.source for m in stack(mods)]
    ['armure du mage', 'Esquive', 'rapidité']
    >>> stack([Modifier(-2, "secoué"), Modifier(-1, "enchevêtré"), Modifier(-2, "secoué")])
    (Modifier(-2, 'secoué'), Modifier(-1, 'enchevêtré'))
    """
    mods = tuple(modifiers)
    if len(mods) < 2:
        return mods
    # one kept index per group: (type, sign) for a non-stacking type, (type, sign,
    # source) for a stacking one
    kept: dict[tuple[BonusType, bool, str | None], int] = {}
    for i, mod in enumerate(mods):
        penalty = mod.value < 0
        key = (mod.type, penalty, mod.source if mod.type in STACKING_TYPES else None)
        j = kept.get(key)
        if j is None or (mod.value < mods[j].value if penalty else mod.value > mods[j].value):
            kept[key] = i
    if len(kept) == len(mods):
        return mods
    return tuple(mods[i] for i in sorted(kept.values()))


def stacked_total(modifiers: Iterable[Modifier]) -> int:
    """The sum of :func:`stack` (``modifiers`` as they combine).

    >>> MORALE = BonusType.MORALE
    >>> stacked_total([Modifier(1, "bénédiction", MORALE), Modifier(2, "rage", MORALE)])
    2
    >>> stacked_total([Modifier(2, "flanc"), Modifier(2, "aide"), Modifier(-4, "à terre")])
    0
    """
    return sum(m.value for m in stack(modifiers))


#: level names given to critical results (shown in records and explanations)
CRITICAL_SUCCESS = "critique"
CRITICAL_FAILURE = "maladresse"


@dataclass(frozen=True, slots=True)
class NaturalRange:
    """Natural (kept, unmodified) results ``low..high`` that decide the outcome;
    with ``target_below``, only when the threshold needed is below that value
    (CoC 7e fumbles: 96–100 below 50, else 100 only)."""

    low: int
    high: int
    target_below: int | None = None

    def matches(self, natural: int, threshold: int) -> bool:
        if not self.low <= natural <= self.high:
            return False
        return self.target_below is None or threshold < self.target_below


@dataclass(frozen=True, slots=True)
class SuccessLevel:
    """A success level of a roll-under mechanic: succeed at ``threshold // divisor``."""

    name: str
    divisor: int


class SumDice:
    """``count`` dice numbered ``lowest..highest``, added. A die with faces
    ``lowest..highest`` is rolled as ``rng.die(faces) + lowest - 1`` (one draw)."""

    __slots__ = ("count", "faces", "label", "lowest")

    def __init__(self, count: int, lowest: int, highest: int, label: str) -> None:
        self.count = count
        self.lowest = lowest
        self.faces = highest - lowest + 1
        self.label = label

    def roll(self, rng: Rng, kind: str) -> tuple[int, ...]:
        shift = self.lowest - 1
        return tuple(rng.die(self.faces, kind) + shift for _ in range(self.count))

    def distribution(self) -> dict[int, Fraction]:
        """Exact distribution of the sum (convolution)."""
        dist = {0: Fraction(1)}
        face = Fraction(1, self.faces)
        for _ in range(self.count):
            nxt: dict[int, Fraction] = {}
            for total, p in dist.items():
                for v in range(self.lowest, self.lowest + self.faces):
                    nxt[total + v] = nxt.get(total + v, Fraction(0)) + p * face
            dist = nxt
        return dict(sorted(dist.items()))


def percentile_value(tens: int, units: int) -> int:
    """A d100 read from a tens die (0–9) and a units die (0–9): ``00 + 0`` is 100."""
    value = tens * 10 + units
    return value if value else 100


class PercentileDice:
    """A d100 rolled as a tens die then a units die (each ``rng.die(10) - 1``);
    bonus / penalty dice are extra tens dice rolled after them."""

    __slots__ = ()
    label = "d100"
    count = 2
    faces = 10
    lowest = 0

    def roll_tens_units(self, rng: Rng, extra: int, kind: str) -> tuple[int, ...]:
        tens = rng.die(10, kind) - 1
        units = rng.die(10, kind) - 1
        return (tens, units, *(rng.die(10, kind) - 1 for _ in range(extra)))

    def distribution(self) -> dict[int, Fraction]:
        return {v: Fraction(1, 100) for v in range(1, 101)}


Dice = SumDice | PercentileDice


def keep_percentile(dice: Sequence[int], bonus: int) -> int:
    """The kept d100 value of ``(tens, units, extra tens…)``: bonus dice keep the
    lowest candidate, penalty dice the highest (each candidate read with the one
    units die, ``00 + 0`` = 100)."""
    units = dice[1]
    candidates = [percentile_value(dice[0], units)]
    candidates.extend(percentile_value(t, units) for t in dice[2:])
    return min(candidates) if bonus > 0 else max(candidates)


class CheckMechanic:
    """A compiled check mechanic (built by :mod:`engine.content.packs`; immutable by use).

    :param name: identifier of the mechanic inside its pack (``attack``).
    :param dice: what is rolled.
    :param under: ``True`` for roll-under (``roll ≤ target + modifiers``),
        ``False`` for ``roll + modifiers ≥ target``.
    :param success: natural results that always succeed.
    :param failure: natural results that always fail.
    :param critical_success: natural results that succeed critically.
    :param critical_failure: natural results that fail critically.
    :param forced_margin: margin given when a natural result overrides the
        comparison (2d5: 0), ``None`` to keep the arithmetic margin (PF1e).
    :param advantage: advantage / disadvantage (roll twice, keep best / worst).
    :param bonus_dice: most bonus or penalty dice (d100 only), 0 if none.
    :param levels: success levels, best first (roll-under only).
    """

    __slots__ = (
        "advantage",
        "auto_failure",
        "auto_success",
        "bonus_dice",
        "critical_failure",
        "critical_success",
        "dice",
        "failure",
        "forced_margin",
        "levels",
        "name",
        "pack",
        "sides",
        "simple",
        "success",
        "under",
    )

    def __init__(
        self,
        name: str,
        dice: Dice,
        *,
        under: bool = False,
        success: tuple[NaturalRange, ...] = (),
        failure: tuple[NaturalRange, ...] = (),
        critical_success: tuple[NaturalRange, ...] = (),
        critical_failure: tuple[NaturalRange, ...] = (),
        forced_margin: int | None = None,
        advantage: bool = False,
        bonus_dice: int = 0,
        levels: tuple[SuccessLevel, ...] = (),
        pack: str = "",
    ) -> None:
        self.name = name
        self.pack = pack
        self.dice = dice
        self.under = under
        self.success = success
        self.failure = failure
        self.critical_success = critical_success
        self.critical_failure = critical_failure
        self.forced_margin = forced_margin
        self.advantage = advantage
        self.bonus_dice = bonus_dice
        self.levels = levels
        self.sides = dice.faces
        # The short path: one die numbered from 1, ≥ target, at most one plain
        # natural success and one natural failure value, no criticals.
        self.simple = (
            isinstance(dice, SumDice)
            and dice.count == 1
            and dice.lowest == 1
            and not under
            and not critical_success
            and not critical_failure
            and forced_margin is None
            and all(r.low == r.high and r.target_below is None for r in success + failure)
            and len(success) <= 1
            and len(failure) <= 1
        )
        self.auto_success = success[0].low if success else None
        self.auto_failure = failure[0].low if failure else None

    def __repr__(self) -> str:
        return f"CheckMechanic({self.pack}:{self.name}, {self.dice.label})"

    @property
    def where(self) -> str:
        """French name of this mechanic for messages."""
        return f"pack « {self.pack} », mécanique « {self.name} »"

    # -- rolling -------------------------------------------------------------------
    def verify_edge(self, edge: int) -> None:
        """:raises CheckError: if ``edge`` (advantage ±1, bonus dice ±n) is not
        something this mechanic declares."""
        if not edge:
            return
        if isinstance(self.dice, PercentileDice):
            if abs(edge) > self.bonus_dice:
                what = "bonus" if edge > 0 else "pénalité"
                raise CheckError(
                    f"{self.where} : au plus {self.bonus_dice} dé(s) {what} (demandé : {abs(edge)})"
                )
            return
        if not self.advantage:
            raise CheckError(f"{self.where} : ni avantage ni désavantage déclaré")
        if abs(edge) != 1:
            raise CheckError("avantage et désavantage ne se cumulent pas (±1 au plus)")

    def level_named(self, level: str | None) -> SuccessLevel | None:
        """The success level asked for. :raises CheckError: if unknown here."""
        if level is None:
            return None
        for lv in self.levels:
            if lv.name == level:
                return lv
        known = ", ".join(lv.name for lv in self.levels) or "aucun"
        raise CheckError(
            f"{self.where} : niveau de réussite inconnu « {level} » (connus : {known})"
        )

    def roll_dice(self, rng: Rng, edge: int, kind: str) -> tuple[tuple[int, ...], int]:
        """Roll the raw dice (of roll kind ``kind``); return them (in draw order)
        and the kept value."""
        dice = self.dice
        if isinstance(dice, PercentileDice):
            raw = dice.roll_tens_units(rng, abs(edge), kind)
            return raw, keep_percentile(raw, edge)
        first = dice.roll(rng, kind)
        if not edge:
            return first, sum(first)
        second = dice.roll(rng, kind)
        a, b = sum(first), sum(second)
        # advantage keeps the better roll: the higher one rolling over, the lower one under
        want_high = (edge > 0) != self.under
        return first + second, (max(a, b) if want_high else min(a, b))

    def judge(
        self, natural: int, mod_total: int, target: int, level: SuccessLevel | None = None
    ) -> tuple[bool, int, bool, str | None]:
        """``(success, margin, automatic, level name)`` of a kept natural result."""
        if self.under:
            threshold = target + mod_total
            need = threshold // level.divisor if level is not None else threshold
            margin = need - natural
            reached: str | None = None
            for lv in self.levels:
                if natural <= threshold // lv.divisor:
                    reached = lv.name
                    break
        else:
            need = target
            margin = natural + mod_total - target
            reached = None
        success = margin >= 0
        arithmetic = success
        automatic = False
        if any(r.matches(natural, need) for r in self.critical_success):
            success, automatic, reached = True, True, CRITICAL_SUCCESS
        elif any(r.matches(natural, need) for r in self.critical_failure):
            success, automatic, reached = False, True, CRITICAL_FAILURE
        elif any(r.matches(natural, need) for r in self.success):
            success, automatic = True, True
        elif any(r.matches(natural, need) for r in self.failure):
            success, automatic = False, True
        if success != arithmetic and self.forced_margin is not None:
            margin = self.forced_margin
        if not success and reached not in (CRITICAL_FAILURE, None):
            reached = None  # a level reached below the one asked for is a failure
        return success, margin, automatic, reached

    def resolve(
        self,
        rng: Rng,
        kind: str,
        modifiers: tuple[Modifier, ...],
        target: int | None,
        edge: int = 0,
        level: str | None = None,
        roll: str | None = None,
    ) -> RollRecord:
        """Roll one check on the general path (see :func:`check`, which takes a
        short path for PF1e's single-d20 mechanics)."""
        self.verify_edge(edge)
        lv = self.level_named(level)
        raw, natural = self.roll_dice(rng, edge, kind if roll is None else roll)
        mod_total = sum(m.value for m in modifiers)
        under = self.under
        total = natural if under else natural + mod_total
        label = self.dice.label
        if target is None:
            detail = RollDetail(raw, label, under, edge, None, None, self.name)
            return RollRecord(
                kind, self.sides, natural, modifiers, total, None, None, None, False, detail
            )
        success, margin, automatic, reached = self.judge(natural, mod_total, target, lv)
        detail = RollDetail(raw, label, under, edge, reached, level, self.name)
        return RollRecord(
            kind, self.sides, natural, modifiers, total, target, success, margin, automatic, detail
        )

    # -- exact probabilities ---------------------------------------------------------
    def distribution(self, edge: int = 0) -> dict[int, Fraction]:
        """Exact distribution of the kept natural result with ``edge``."""
        self.verify_edge(edge)
        dice = self.dice
        if isinstance(dice, PercentileDice):
            out: dict[int, Fraction] = {}
            n = abs(edge)
            p = Fraction(1, 10 ** (n + 2))
            for code in range(10 ** (n + 2)):
                digits = [(code // 10**i) % 10 for i in range(n + 2)]
                v = keep_percentile(digits, edge)
                out[v] = out.get(v, Fraction(0)) + p
            return dict(sorted(out.items()))
        base = dice.distribution()
        if not edge:
            return base
        want_high = (edge > 0) != self.under
        out = {}
        for a, pa in base.items():
            for b, pb in base.items():
                v = max(a, b) if want_high else min(a, b)
                out[v] = out.get(v, Fraction(0)) + pa * pb
        return dict(sorted(out.items()))

    def probabilities(
        self, mod_total: int, target: int, edge: int = 0, level: str | None = None
    ) -> dict[str, Fraction]:
        """Exact probability of success and of each level reached (``"réussite"``,
        ``"échec"``, then level names)."""
        lv = self.level_named(level)
        out: dict[str, Fraction] = {"réussite": Fraction(0), "échec": Fraction(0)}
        for natural, p in self.distribution(edge).items():
            success, _margin, _auto, reached = self.judge(natural, mod_total, target, lv)
            out["réussite" if success else "échec"] += p
            if reached is not None:
                out[reached] = out.get(reached, Fraction(0)) + p
        return out


@dataclass(frozen=True, slots=True)
class RollDetail:
    """What a roll beyond PF1e's single d20 adds to its record.

    :param dice: every die rolled, in draw order.
    :param die: the dice rolled, as a label (``2d5``, ``d100``).
    :param under: roll-under comparison.
    :param edge: +1 / −1 advantage / disadvantage, ±n bonus / penalty dice.
    :param level: success level reached (or critical label), if any.
    :param required: success level asked for, if any.
    :param mechanic: name of the mechanic in its pack.
    """

    dice: tuple[int, ...]
    die: str
    under: bool
    edge: int
    level: str | None
    required: str | None
    mechanic: str


@dataclass(slots=True, unsafe_hash=True)
class RollRecord:
    """An explainable roll: everything needed to say why it succeeded or failed.

    Read-only by contract, compared and hashed by value, but not a frozen dataclass:
    every attack roll makes one, and with ten fields a frozen one costs CPython about
    15,400 instructions to build (``object.__setattr__`` per field), a plain one 2,800.

    ``target`` is ``None`` for open rolls such as initiative; ``success`` and
    ``margin`` are then ``None`` too. ``automatic`` says when a natural result
    decided the outcome regardless of the total. ``natural`` is the kept result
    of the dice (before modifiers). Rolling over, ``total`` is ``natural`` +
    modifiers against ``target``; rolling under (``under``), ``total`` is
    ``natural`` against ``target`` + modifiers. ``detail`` is ``None`` on PF1e's
    single-d20 path (the one die is ``natural``), else a :class:`RollDetail`.
    """

    kind: str
    sides: int
    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    target: int | None
    success: bool | None
    margin: int | None
    automatic: bool = False
    detail: RollDetail | None = None

    @property
    def dice(self) -> tuple[int, ...]:
        """Every die rolled, in draw order."""
        return self.detail.dice if self.detail is not None else (self.natural,)

    @property
    def die(self) -> str:
        return self.detail.die if self.detail is not None else ""

    @property
    def under(self) -> bool:
        return self.detail is not None and self.detail.under

    @property
    def edge(self) -> int:
        return self.detail.edge if self.detail is not None else 0

    @property
    def level(self) -> str | None:
        return self.detail.level if self.detail is not None else None

    @property
    def required(self) -> str | None:
        return self.detail.required if self.detail is not None else None

    @property
    def mechanic(self) -> str:
        return self.detail.mechanic if self.detail is not None else ""

    @property
    def modifier_total(self) -> int:
        return sum(m.value for m in self.modifiers)

    @property
    def threshold(self) -> int | None:
        """What the kept dice are compared with: the target rolling over, the target
        plus modifiers rolling under."""
        if self.target is None:
            return None
        return self.target + self.modifier_total if self.under else self.target

    @property
    def die_label(self) -> str:
        return self.die or f"d{self.sides}"

    def explain(self, target_label: str = "") -> str:
        """Compact French explanation, e.g. ``d20=14+2=16 vs 13 -> réussite``."""
        label = f"{target_label} " if target_label else ""
        if self.under:
            text = f"{self.die_label}={self.natural}"
            if self.target is None:
                return text
            mods = f"{self.modifier_total:+d}={self.threshold}" if self.modifiers else ""
            text += f" ≤ {label}{self.target}{mods} -> "
        else:
            text = f"{self.die_label}={self.natural}{self.modifier_total:+d}={self.total}"
            if self.target is None:
                return text
            text += f" vs {label}{self.target} -> "
        text += "réussite" if self.success else "échec"
        if self.level is not None:
            text += f" {self.level}"
        if self.automatic and not self.die:
            text += f" (naturel {self.natural})"
        else:
            text += f" (marge {self.margin})"
        return text

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "mechanic": self.mechanic or None,
            "die": self.die_label,
            "dice": list(self.dice),
            "edge": self.edge,
            "natural": self.natural,
            "modifiers": [_modifier_dict(m) for m in self.modifiers],
            "comparison": "under" if self.under else "over",
            "total": self.total,
            "target": self.target,
            "threshold": self.threshold,
            "success": self.success,
            "margin": self.margin,
            "automatic": self.automatic,
            "level": self.level,
            "required_level": self.required,
        }


def _modifier_dict(mod: Modifier) -> dict[str, object]:
    """A modifier as JSON: ``type`` only when it has one (untyped is the default)."""
    if mod.type is BonusType.UNTYPED:
        return {"value": mod.value, "source": mod.source}
    return {"value": mod.value, "source": mod.source, "type": mod.type.value}


def check(
    rng: Rng,
    mechanic: CheckMechanic,
    kind: str,
    modifiers: tuple[Modifier, ...],
    target: int | None,
    edge: int = 0,
    level: str | None = None,
    roll: str | None = None,
) -> RollRecord:
    """Roll one check and return its :class:`RollRecord`.

    Rolling over, success means ``natural + sum(modifiers) >= target``; rolling
    under, ``natural <= target + sum(modifiers)`` (at the success level asked
    for, if any); either overridden by the mechanic's natural results.

    :param edge: +1 advantage, −1 disadvantage (see :func:`net_edge`), or ±n
        bonus / penalty dice on a d100.
    :param roll: the :class:`~engine.core.rng.RollKind` its dice are rolled as, when
        finer than ``kind`` (a skill check's skill); ``None``: ``kind``.
    :raises CheckError: for an edge or a level the mechanic does not declare.
    """
    if not mechanic.simple or edge or level is not None:
        return mechanic.resolve(rng, kind, modifiers, target, edge, level, roll)
    # PF1e's path, inlined: exactly the draws and arithmetic of the historical d20 check
    natural = rng.die(mechanic.sides, kind if roll is None else roll)
    total = natural
    for mod in modifiers:
        total += mod.value
    if target is None:
        return RollRecord(kind, mechanic.sides, natural, modifiers, total, None, None, None)
    margin = total - target
    if natural == mechanic.auto_success:
        return RollRecord(
            kind, mechanic.sides, natural, modifiers, total, target, True, margin, True
        )
    if natural == mechanic.auto_failure:
        return RollRecord(
            kind, mechanic.sides, natural, modifiers, total, target, False, margin, True
        )
    return RollRecord(kind, mechanic.sides, natural, modifiers, total, target, margin >= 0, margin)


def net_edge(advantages: int, disadvantages: int) -> int:
    """Advantage and disadvantage never stack and cancel out (seed 000, EX-DND-002).

    >>> net_edge(3, 0), net_edge(0, 2), net_edge(2, 1), net_edge(0, 0)
    (1, -1, 0, 0)
    """
    if advantages and disadvantages:
        return 0
    return 1 if advantages else (-1 if disadvantages else 0)
