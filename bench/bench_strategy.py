"""Strategy throughput against the heuristic policy.

Plays the quick start (3 goblins vs 2 orcs on the sample arena) in-process on one
core, after a warm-up round that fills the map's geometry caches, and prints the
fights per second of the heuristic and of every strategy under
``data/strategies/`` played by both sides, with the ratio heuristic / strategy
(the issue's target: at most 1.5).

Usage: ``uv run python bench/bench_strategy.py [--fights N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.battle import Policy  # noqa: E402
from engine.creatures import load_combatant  # noqa: E402
from engine.encounter import Encounter, build_encounter  # noqa: E402
from engine.maps import load_map  # noqa: E402
from engine.runner import run_range  # noqa: E402
from policies import HeuristicPolicy  # noqa: E402
from policies.strategy import StrategyPolicy, StrategySpec, load_strategy  # noqa: E402


def rate(enc: Encounter, policy: Policy, fights: int, rounds: int) -> float:
    policies = {"players": policy, "monsters": policy}
    list(run_range(enc, 1, 0, fights, policies))  # warm-up
    rates = []
    for r in range(rounds):
        start = time.perf_counter()
        list(run_range(enc, 1 + fights * (r + 1), 0, fights, policies))
        rates.append(fights / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fights", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    base = rate(enc, HeuristicPolicy(), args.fights, args.rounds)
    print(f"heuristic: {base:.0f} fights/s (median of {args.rounds} x {args.fights})")
    arms = [("strategy (defaults)", StrategySpec())]
    arms += [
        (f"strategy {p.name}", load_strategy(p))
        for p in sorted(ROOT.glob("data/strategies/*.yaml"))
    ]
    for label, spec in arms:
        r = rate(enc, StrategyPolicy(spec), args.fights, args.rounds)
        print(f"{label}: {r:.0f} fights/s, heuristic/strategy = {base / r:.2f}")


if __name__ == "__main__":
    main()
