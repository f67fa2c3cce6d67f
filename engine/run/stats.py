"""Closed-form statistics of a series of fights and the report object.

Win rate ``p = wins / n``, ``σ = √(p(1−p)/n)``, 3σ band ``[p − 3σ, p + 3σ]``
clamped to [0, 1] (binomial model, as in the seed). Beside it, the Wilson score
interval at the same z = 3 (``wilson_3sigma``): the 3σ band shrinks to a point
at 0 and n wins (``[0.0%, 0.0%]`` for 0 wins out of 1000), the Wilson interval
does not (``[0.0%, 0.9%]``). The report object
(``pf1e-sim/report@1``) is what every rendering reads: terminal, JSON, later HTML
and the narrative.

Attrition is aggregated from integer counters summed in run order, so the
report does not depend on how runs were split across processes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

REPORT_SCHEMA = "pf1e-sim/report@1"

#: per-combatant counters collected for every fight, in this order
#: (``melee``: 1 in a fight where the combatant made at least one melee attack roll;
#: ``spells_cast``: spells it began to cast, lost ones included; ``slots_spent``:
#: spell slots it spent, cantrips free; ``conditions_inflicted``: table
#: conditions it gave other creatures that took hold)
COUNTERS = (
    "hits",
    "crits",
    "damage_dealt",
    "damage_taken",
    "healing_given",
    "down",
    "dead",
    "melee",
    "spells_cast",
    "slots_spent",
    "conditions_inflicted",
)


def win_rate_band(wins: int, n: int, k: float = 3.0) -> tuple[float, float, float]:
    """``(p, lo, hi)`` with the k·σ band clamped to [0, 1].

    >>> tuple(round(x, 4) for x in win_rate_band(962, 1000))
    (0.962, 0.9439, 0.9801)
    """
    if n <= 0:
        return 0.0, 0.0, 0.0
    p = wins / n
    sigma = math.sqrt(p * (1 - p) / n)
    return p, max(0.0, p - k * sigma), min(1.0, p + k * sigma)


#: index of ``damage_dealt`` in :data:`COUNTERS`
_DAMAGE = COUNTERS.index("damage_dealt")


def wilson_band(wins: int, n: int, z: float = 3.0) -> tuple[float, float]:
    """The Wilson score interval at ``z`` (default 3, the 3σ band's coverage).

    Unlike the 3σ band it keeps a width at 0 and ``n`` wins:

    >>> tuple(round(x, 4) for x in wilson_band(0, 1000))
    (0.0, 0.0089)
    >>> tuple(round(x, 4) for x in wilson_band(962, 1000))
    (0.9394, 0.9764)
    """
    return wilson_interval(wins, n, z)


#: a draw because the round cap was reached
DRAW_ROUND_CAP = -1
#: a draw because the last combatants of every side fell in the same turn
DRAW_MUTUAL_KNOCKOUT = -2


@dataclass(frozen=True, slots=True)
class FightSummary:
    """The compact outcome of one fight (picklable, order-independent to aggregate)."""

    #: index into sides; DRAW_ROUND_CAP (-1) or DRAW_MUTUAL_KNOCKOUT (-2) for a draw
    winner: int
    rounds: int
    #: per combatant (deployment order): the COUNTERS values
    counters: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class CombatantInfo:
    id: str
    side: str
    name: str
    hp_max: int


@dataclass(slots=True)
class Tally:
    """Integer sums over a series of fights; merging tallies is exact and order-free.

    Memory does not grow with the number of fights, so a million runs cost the
    same memory as ten.
    """

    sides: int
    combatants: int
    fights: int = 0
    draws: int = 0
    mutual_knockouts: int = 0
    rounds_total: int = 0
    wins: list[int] = field(default_factory=list)
    rounds_hist: dict[int, int] = field(default_factory=dict)
    totals: list[list[int]] = field(default_factory=list)
    #: per combatant: the sum over fights of its damage dealt squared (its
    #: variance, so that « who carries the fight » is said only beyond noise)
    damage_squares: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.wins:
            self.wins = [0] * self.sides
        if not self.totals:
            self.totals = [[0] * len(COUNTERS) for _ in range(self.combatants)]
        if not self.damage_squares:
            self.damage_squares = [0] * self.combatants

    def add(self, s: FightSummary) -> None:
        self.fights += 1
        if s.winner < 0:
            self.draws += 1
            if s.winner == DRAW_MUTUAL_KNOCKOUT:
                self.mutual_knockouts += 1
        else:
            self.wins[s.winner] += 1
        self.rounds_total += s.rounds
        self.rounds_hist[s.rounds] = self.rounds_hist.get(s.rounds, 0) + 1
        squares = self.damage_squares
        for i, (tot, values) in enumerate(zip(self.totals, s.counters, strict=True)):
            for j, v in enumerate(values):
                tot[j] += v
            squares[i] += values[_DAMAGE] * values[_DAMAGE]

    def merge(self, other: Tally) -> None:
        self.fights += other.fights
        self.draws += other.draws
        self.mutual_knockouts += other.mutual_knockouts
        self.rounds_total += other.rounds_total
        for i, w in enumerate(other.wins):
            self.wins[i] += w
        for k, v in other.rounds_hist.items():
            self.rounds_hist[k] = self.rounds_hist.get(k, 0) + v
        for tot, values in zip(self.totals, other.totals, strict=True):
            for j, v in enumerate(values):
                tot[j] += v
        for i, v in enumerate(other.damage_squares):
            self.damage_squares[i] += v


def build_report(
    *,
    map_name: str,
    sides: tuple[str, ...],
    combatants: tuple[CombatantInfo, ...],
    runs: int,
    seed: int,
    round_cap: int,
    summaries: Iterable[FightSummary] | Tally,
    options: dict[str, Any] | None = None,
    unmodelled: Iterable[dict[str, str]] = (),
) -> dict[str, Any]:
    """Aggregate fight summaries (or their tally) into the ``pf1e-sim/report@1`` object.

    ``unmodelled``: what the creature files hold that no rule plays
    (:func:`engine.content.modelled.unmodelled`, as dicts), listed once."""
    if isinstance(summaries, Tally):
        tally = summaries
    else:
        tally = Tally(len(sides), len(combatants))
        for summary in summaries:
            tally.add(summary)
    n = tally.fights
    if n != runs:
        raise ValueError(f"expected {runs} fights, got {n}")
    side_rows: list[dict[str, Any]] = []
    for side, w in zip(sides, tally.wins, strict=True):
        p, lo, hi = win_rate_band(w, n)
        side_rows.append(
            {
                "name": side,
                "combatants": sum(1 for c in combatants if c.side == side),
                "wins": w,
                "rate": p,
                "band_3sigma": [lo, hi],
                "wilson_3sigma": list(wilson_band(w, n)),
            }
        )
    dp, dlo, dhi = win_rate_band(tally.draws, n)
    combatant_rows: list[dict[str, Any]] = []
    for info, tot, squares in zip(combatants, tally.totals, tally.damage_squares, strict=True):
        row: dict[str, Any] = {"id": info.id, "side": info.side, "name": info.name}
        row["hp_max"] = info.hp_max
        for key, value in zip(COUNTERS, tot, strict=True):
            row[f"{key}_total"] = value
            row[f"{key}_mean"] = value / n if n else 0.0
        row["damage_dealt_squares"] = squares
        combatant_rows.append(row)
    hist = tally.rounds_hist
    return {
        "schema": REPORT_SCHEMA,
        "map": map_name,
        "runs": n,
        "seed": seed,
        "round_cap": round_cap,
        "options": options or {},
        "sides": side_rows,
        "draws": {
            "count": tally.draws,
            "rate": dp,
            "band_3sigma": [dlo, dhi],
            "wilson_3sigma": list(wilson_band(tally.draws, n)),
            "round_cap": tally.draws - tally.mutual_knockouts,
            "mutual_knockout": tally.mutual_knockouts,
        },
        "rounds": {
            "mean": tally.rounds_total / n if n else 0.0,
            "distribution": {str(k): hist[k] for k in sorted(hist)},
        },
        "combatants": combatant_rows,
        "unmodelled": list(unmodelled),
    }


# -- comparing two arms of an experiment ------------------------------------------


def normal_cdf(z: float) -> float:
    """Standard normal distribution function.

    >>> round(normal_cdf(1.959964), 4)
    0.975
    """
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """Inverse of :func:`normal_cdf` for ``0 < p < 1`` (bisection, exact to 1e-12).

    >>> round(normal_quantile(0.975), 4)
    1.96
    """
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if normal_cdf(mid) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


def wilson_interval(wins: int, n: int, z: float) -> tuple[float, float]:
    """Wilson score interval of a proportion (``z``: normal quantile of the level).

    >>> tuple(round(x, 4) for x in wilson_interval(8, 10, 1.959964))
    (0.4902, 0.9433)
    """
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def two_proportion_test(x1: int, n1: int, x2: int, n2: int) -> tuple[float, float]:
    """Pooled two-proportion z-test of ``x1/n1`` against ``x2/n2`` (independent
    samples): ``(z, two-sided p-value)``; ``(0, 1)`` when the pooled variance is 0."""
    if n1 <= 0 or n2 <= 0:
        return 0.0, 1.0
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0, 1.0
    z = (x1 / n1 - x2 / n2) / se
    return z, 2 * normal_cdf(-abs(z))


@dataclass(frozen=True, slots=True)
class PairedDifference:
    """Difference of two win rates measured on the same fights (common random numbers).

    ``only_a``: fights arm A won and arm B did not; ``only_b``: the reverse; the
    other fights do not tell the arms apart. The difference is
    ``(only_a − only_b) / n``. Its interval is the Agresti–Min adjusted Wald
    interval for paired proportions (half a fight added to each of the four
    cells: never of zero width, good coverage for small counts); the test is
    McNemar's ``z = (only_a − only_b) / √(only_a + only_b)``, the two-proportion
    test for paired samples. Pairing makes both narrower than for independent
    samples when the arms' outcomes are correlated.
    """

    n: int
    only_a: int
    only_b: int
    level: float

    @property
    def diff(self) -> float:
        return (self.only_a - self.only_b) / self.n if self.n else 0.0

    @property
    def z_crit(self) -> float:
        return normal_quantile(1 - self.level / 2)

    @property
    def interval(self) -> tuple[float, float]:
        n, b, c = self.n + 2, self.only_a + 0.5, self.only_b + 0.5
        d = (b - c) / n
        se = math.sqrt(max((b + c) - (b - c) ** 2 / n, 0.0)) / n
        half = self.z_crit * se
        return max(-1.0, d - half), min(1.0, d + half)

    @property
    def z(self) -> float:
        """McNemar's statistic (0 when no fight tells the arms apart)."""
        m = self.only_a + self.only_b
        return (self.only_a - self.only_b) / math.sqrt(m) if m else 0.0

    @property
    def p_value(self) -> float:
        """Two-sided p-value of McNemar's test (1 when the arms never differ)."""
        return 2 * normal_cdf(-abs(self.z))

    @property
    def significant(self) -> bool:
        return self.p_value < self.level
