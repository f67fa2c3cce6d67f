"""Statistical checks against exact probabilities, each within 3σ.

The expectations are computed independently from the d20 rules (natural 1 always
misses, natural 20 always hits, a threat is confirmed by a second roll), never
from the engine's own output.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from builders import battle, make_map, make_profile, melee, state

from engine.core.rng import SeededRng
from engine.rules.attack import resolve_swing
from engine.run.runner import run_range
from engine.run.stats import win_rate_band
from engine.state.encounter import build_encounter
from policies import HeuristicPolicy

N = 20_000


def p_hit(bonus: int, ac: int) -> Fraction:
    """Exact probability that d20 + bonus hits ac with natural 1/20 rules."""
    wins = sum(1 for d in range(1, 21) if d == 20 or (d != 1 and d + bonus >= ac))
    return Fraction(wins, 20)


def p_crit(bonus: int, ac: int, crit_range: int) -> Fraction:
    threat = sum(1 for d in range(crit_range, 21) if d == 20 or (d != 1 and d + bonus >= ac))
    return Fraction(threat, 20) * p_hit(bonus, ac)


def simulate(bonus: int, ac: int, crit_range: int = 20, seed: int = 99) -> tuple[int, int]:
    gmap = make_map(["..."])
    a = state(
        "a",
        "A",
        make_profile(attacks=[melee(bonus=bonus, dmg="1d4", crit_range=crit_range)]),
        gmap,
        (0, 0),
        0,
    )
    t = state(
        "t",
        "B",
        make_profile(hp_max=10**9, ac={"total": ac, "touch": ac, "flat_footed": ac}),
        gmap,
        (0, 1),
        1,
    )
    b = battle(gmap, [a, t], SeededRng(seed), record=False)
    for _ in range(N):
        resolve_swing(b.fight, a, t, a.attacks[0])
    return a.hits, a.crits


def within_3_sigma(count: int, n: int, p: Fraction) -> bool:
    pf = float(p)
    sigma = math.sqrt(pf * (1 - pf) / n)
    return abs(count / n - pf) <= 3 * sigma


@pytest.mark.parametrize(
    ("bonus", "ac"),
    [(2, 13), (0, 25), (15, 10), (5, 17)],
)
def test_hit_rate_matches_exact_probability(bonus, ac):
    hits, _ = simulate(bonus, ac)
    assert within_3_sigma(hits, N, p_hit(bonus, ac)), (hits / N, float(p_hit(bonus, ac)))


@pytest.mark.parametrize(
    ("bonus", "ac", "crit_range"),
    [(5, 15, 19), (2, 13, 18), (0, 25, 20), (10, 12, 20)],
)
def test_crit_rate_matches_exact_probability(bonus, ac, crit_range):
    _, crits = simulate(bonus, ac, crit_range)
    expected = p_crit(bonus, ac, crit_range)
    assert within_3_sigma(crits, N, expected), (crits / N, float(expected))


def test_exact_probabilities_of_the_helpers():
    assert p_hit(0, 25) == Fraction(1, 20)
    assert p_hit(15, 10) == Fraction(19, 20)
    assert p_crit(5, 15, 19) == Fraction(2, 20) * Fraction(11, 20)


def test_symmetric_matchup_stays_within_its_band():
    """Identical teams on mirrored zones: each side wins half of decisive fights."""
    gmap = make_map(
        ["..........", "..........", "..........", "..........", ".........."],
        zones=["..........", "A........B", "..........", "A........B", ".........."],
        deployment={"west": "A", "east": "B"},
    )
    p = make_profile(
        attacks=[melee(bonus=3, dmg="1d8+1", crit_range=19)],
        hp_max=12,
        ac={"total": 14, "touch": 11, "flat_footed": 13},
    )
    enc = build_encounter(gmap, [("west", [p, p]), ("east", [p, p])])
    h = HeuristicPolicy()
    runs = 2000
    summaries = list(run_range(enc, 1, 0, runs, {"west": h, "east": h}))
    west = sum(1 for s in summaries if s.winner == 0)
    east = sum(1 for s in summaries if s.winner == 1)
    decisive = west + east
    assert decisive > 0.9 * runs
    p_west, lo, hi = win_rate_band(west, decisive)
    sigma = math.sqrt(0.25 / decisive)
    assert abs(p_west - 0.5) <= 3 * sigma, (p_west, lo, hi)


def test_band_formula():
    p, lo, hi = win_rate_band(962, 1000)
    sigma = math.sqrt(0.962 * 0.038 / 1000)
    assert (p, lo, hi) == (0.962, 0.962 - 3 * sigma, 0.962 + 3 * sigma)
    assert win_rate_band(0, 10) == (0.0, 0.0, 0.0)
    assert win_rate_band(10, 10) == (1.0, 1.0, 1.0)
    assert win_rate_band(1, 3)[1] == 0.0  # clamped


def test_tallies_merge_exactly_whatever_the_split():
    from engine.run.stats import CombatantInfo, FightSummary, Tally, build_report

    fights = [
        FightSummary(i % 3 - 1, 1 + i % 7, ((i, i % 2, 3 * i, 2 * i, 0, i % 2, 0),))
        for i in range(50)
    ]
    info = (CombatantInfo("x", "A", "X", 10),)

    def report(parts):
        total = Tally(2, 1)
        for part in parts:
            t = Tally(2, 1)
            for f in part:
                t.add(f)
            total.merge(t)
        return build_report(
            map_name="m",
            sides=("A", "B"),
            combatants=info,
            runs=50,
            seed=1,
            round_cap=100,
            summaries=total,
        )

    whole = report([fights])
    assert whole == report([fights[:17], fights[17:30], fights[30:]])
    assert whole == report([fights[40:], fights[:40]])
    assert whole["draws"]["count"] == sum(1 for f in fights if f.winner < 0)
