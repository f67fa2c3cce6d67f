"""Dice audit: roll many checks, recompute each one independently from the raw
draws, and test the kept results against their exact distribution (chi-square),
as DiceFrame's audit scripts do (seed 003).

The recomputation reads the die values the RNG actually returned and derives the
kept result, the comparison, natural results, margin and level again with its
own code; any disagreement with the :class:`~engine.core.checks.RollRecord` is
counted. The chi-square test pools the exact distribution's cells until each
expects at least 5 results.

>>> round(chi2_sf(3.841458820694124, 1), 4), round(chi2_sf(4.0, 2), 6)
(0.05, 0.135335)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from engine.content.packs import RulesPack
from engine.core.checks import (
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    CheckMechanic,
    Modifier,
    NaturalRange,
    PercentileDice,
    RollRecord,
    check,
)
from engine.core.rng import Rng, SeededRng

#: modifier applied to every audited check (exercises the arithmetic)
AUDIT_MODIFIER = Modifier(1, "audit")
MIN_EXPECTED = 5.0


class RecordingRng:
    """Wraps an RNG and keeps every die it returns."""

    __slots__ = ("draws", "inner")

    def __init__(self, inner: Rng) -> None:
        self.inner = inner
        self.draws: list[int] = []

    def die(self, sides: int, kind: str) -> int:
        value = self.inner.die(sides, kind)
        self.draws.append(value)
        return value


@dataclass(frozen=True, slots=True)
class AuditResult:
    """One audited (mechanic, edge) case."""

    pack: str
    mechanic: str
    dice: str
    edge: int
    samples: int
    mismatches: int
    chi2: float
    dof: int
    p_value: float
    alpha: float

    @property
    def passed(self) -> bool:
        return self.mismatches == 0 and self.p_value >= self.alpha

    def to_dict(self) -> dict[str, object]:
        return {
            "pack": self.pack,
            "mechanic": self.mechanic,
            "dice": self.dice,
            "edge": self.edge,
            "samples": self.samples,
            "mismatches": self.mismatches,
            "chi2": round(self.chi2, 6),
            "dof": self.dof,
            "p_value": self.p_value,
            "alpha": self.alpha,
            "passed": self.passed,
        }


# -- chi-square survival function (regularised upper incomplete gamma) ---------------
def _gamma_q(a: float, x: float) -> float:
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:  # series for P, then Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - gln))
    # continued fraction (Lentz) for Q
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def chi2_sf(x: float, dof: int) -> float:
    """P(χ² with ``dof`` degrees of freedom ≥ ``x``)."""
    return _gamma_q(dof / 2, x / 2)


def chi_square(counts: dict[int, int], exact: dict[int, Fraction], n: int) -> tuple[float, int]:
    """Chi-square statistic and degrees of freedom, cells pooled in value order
    until each expects at least :data:`MIN_EXPECTED`."""
    cells: list[tuple[float, int]] = []
    expected = 0.0
    observed = 0
    for value, p in exact.items():
        expected += float(p) * n
        observed += counts.get(value, 0)
        if expected >= MIN_EXPECTED:
            cells.append((expected, observed))
            expected, observed = 0.0, 0
    if expected or observed:
        if cells:
            e, o = cells.pop()
            cells.append((e + expected, o + observed))
        else:
            cells.append((expected, observed))
    stray = sum(c for v, c in counts.items() if v not in exact)
    if stray:  # a value the exact distribution says is impossible
        return math.inf, max(1, len(cells) - 1)
    stat = sum((o - e) ** 2 / e for e, o in cells if e > 0)
    return stat, max(1, len(cells) - 1)


# -- independent recomputation ------------------------------------------------------------
def _kept(mech: CheckMechanic, draws: list[int], edge: int) -> int:
    dice = mech.dice
    if isinstance(dice, PercentileDice):
        digits = [d - 1 for d in draws]
        units = digits[1]
        values = [(t * 10 + units) or 100 for t in (digits[0], *digits[2:])]
        return min(values) if edge > 0 else max(values)
    faces = [d + dice.lowest - 1 for d in draws]
    if not edge:
        return sum(faces)
    half = len(faces) // 2
    a, b = sum(faces[:half]), sum(faces[half:])
    better_is_low = mech.under
    if edge > 0:
        return min(a, b) if better_is_low else max(a, b)
    return max(a, b) if better_is_low else min(a, b)


def _hit(ranges: tuple[NaturalRange, ...], natural: int, need: int) -> bool:
    return any(
        r.low <= natural <= r.high and (r.target_below is None or need < r.target_below)
        for r in ranges
    )


def recompute(
    mech: CheckMechanic, draws: list[int], edge: int, mods: int, target: int
) -> tuple[int, bool, int, str | None]:
    """``(natural, success, margin, level)`` from the raw draws, by the rules."""
    natural = _kept(mech, draws, edge)
    if mech.under:
        threshold = target + mods
        margin = threshold - natural
        levels = [lv.name for lv in mech.levels if natural <= threshold // lv.divisor]
        level = levels[0] if levels else None
        need = threshold
    else:
        margin = natural + mods - target
        level = None
        need = target
    plain = margin >= 0
    success = plain
    if _hit(mech.critical_success, natural, need):
        success, level = True, CRITICAL_SUCCESS
    elif _hit(mech.critical_failure, natural, need):
        success, level = False, CRITICAL_FAILURE
    elif _hit(mech.success, natural, need):
        success = True
    elif _hit(mech.failure, natural, need):
        success = False
    if success != plain and mech.forced_margin is not None:
        margin = mech.forced_margin
    if not success and level != CRITICAL_FAILURE:
        level = None
    return natural, success, margin, level


def _agrees(rec: RollRecord, expected: tuple[int, bool, int, str | None]) -> bool:
    return (rec.natural, rec.success, rec.margin, rec.level) == expected


def audit_cases(pack: RulesPack) -> list[tuple[CheckMechanic, int]]:
    """Every (mechanic, edge) the pack declares: plain, advantage and disadvantage,
    each count of bonus and penalty dice."""
    cases: list[tuple[CheckMechanic, int]] = []
    for mech in pack.mechanics.values():
        edges = [0]
        if mech.advantage:
            edges += [1, -1]
        for n in range(1, mech.bonus_dice + 1):
            edges += [n, -n]
        cases.extend((mech, e) for e in edges)
    return cases


def audit_mechanic(
    mech: CheckMechanic, edge: int, samples: int, rng: Rng, alpha: float
) -> AuditResult:
    """Roll ``samples`` checks of ``mech`` with ``edge`` and test them."""
    exact = mech.distribution(edge)
    lowest, highest = min(exact), max(exact)
    span = highest - lowest + 5
    rec_rng = RecordingRng(rng)
    draws = rec_rng.draws
    counts: dict[int, int] = {}
    mismatches = 0
    mods = (AUDIT_MODIFIER,)
    for i in range(samples):
        # sweep targets across the whole range (and two beyond each end)
        target = lowest - 2 + i % span
        draws.clear()
        rec = check(rec_rng, mech, "check", mods, target, edge)
        expected = recompute(mech, draws, edge, AUDIT_MODIFIER.value, target)
        if not _agrees(rec, expected):
            mismatches += 1
        counts[rec.natural] = counts.get(rec.natural, 0) + 1
    stat, dof = chi_square(counts, exact, samples)
    return AuditResult(
        mech.pack, mech.name, mech.dice.label, edge, samples, mismatches, stat, dof,
        chi2_sf(stat, dof), alpha,
    )  # fmt: skip


def audit_pack(
    pack: RulesPack,
    samples: int,
    seed: int = 1,
    alpha: float = 0.001,
    rng_factory: Callable[[int], Rng] = SeededRng,
) -> list[AuditResult]:
    """Audit every case of ``pack``; ``alpha`` is shared among them (Bonferroni).
    Case ``k`` rolls with ``rng_factory(seed + k)``."""
    cases = audit_cases(pack)
    per_case = alpha / len(cases)
    return [
        audit_mechanic(mech, edge, samples, rng_factory(seed + k), per_case)
        for k, (mech, edge) in enumerate(cases)
    ]
