"""Closed-form statistics of a series of fights and the report object.

Win rate ``p = wins / n``, ``σ = √(p(1−p)/n)``, 3σ band ``[p − 3σ, p + 3σ]``
clamped to [0, 1] (binomial model, as in the seed). The report object
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
COUNTERS = ("hits", "crits", "damage_dealt", "damage_taken", "healing_given", "down", "dead")


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

    def __post_init__(self) -> None:
        if not self.wins:
            self.wins = [0] * self.sides
        if not self.totals:
            self.totals = [[0] * len(COUNTERS) for _ in range(self.combatants)]

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
        for tot, values in zip(self.totals, s.counters, strict=True):
            for j, v in enumerate(values):
                tot[j] += v

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
) -> dict[str, Any]:
    """Aggregate fight summaries (or their tally) into the ``pf1e-sim/report@1`` object."""
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
            }
        )
    dp, dlo, dhi = win_rate_band(tally.draws, n)
    combatant_rows: list[dict[str, Any]] = []
    for info, tot in zip(combatants, tally.totals, strict=True):
        row: dict[str, Any] = {"id": info.id, "side": info.side, "name": info.name}
        row["hp_max"] = info.hp_max
        for key, value in zip(COUNTERS, tot, strict=True):
            row[f"{key}_total"] = value
            row[f"{key}_mean"] = value / n if n else 0.0
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
            "round_cap": tally.draws - tally.mutual_knockouts,
            "mutual_knockout": tally.mutual_knockouts,
        },
        "rounds": {
            "mean": tally.rounds_total / n if n else 0.0,
            "distribution": {str(k): hist[k] for k in sorted(hist)},
        },
        "combatants": combatant_rows,
    }
