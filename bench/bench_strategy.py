"""Strategy throughput against the heuristic policy.

Plays the quick start (3 goblins vs 2 orcs on the sample arena) in-process on one
core, after a warm-up round that fills the map's geometry caches, and prints the
fights and turns per second of the heuristic and of every strategy under
``data/strategies/`` played by both sides (best of interleaved rounds), with the
ratio heuristic / strategy (the issue's target: at most 1.5).

Usage: ``uv run python bench/bench_strategy.py [--fights N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.battle import Policy  # noqa: E402
from engine.creatures import load_combatant  # noqa: E402
from engine.encounter import Encounter, build_encounter  # noqa: E402
from engine.maps import load_map  # noqa: E402
from engine.runner import run_range  # noqa: E402
from policies import HeuristicPolicy  # noqa: E402
from policies.strategy import StrategyPolicy, StrategySpec, load_strategy  # noqa: E402


class Counting:
    """Counts the turns a policy plays (turns per second are fairer than fights per
    second when a strategy makes fights longer or shorter)."""

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.turns = 0

    def decide(self, obs: Any) -> Any:
        self.turns += 1
        return self.inner.decide(obs)


def one_round(enc: Encounter, policy: Counting, seed: int, fights: int) -> tuple[float, float]:
    policies = {"players": policy, "monsters": policy}
    policy.turns = 0
    start = time.perf_counter()
    list(run_range(enc, seed, 0, fights, policies))
    elapsed = time.perf_counter() - start
    return fights / elapsed, policy.turns / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fights", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    arms: list[tuple[str, Counting]] = [("heuristic", Counting(HeuristicPolicy()))]
    arms.append(("strategy (defaults)", Counting(StrategyPolicy(StrategySpec()))))
    for path in sorted(ROOT.glob("data/strategies/*.yaml")):
        arms.append((f"strategy {path.name}", Counting(StrategyPolicy(load_strategy(path)))))
    for _label, policy in arms:  # warm-up: the map's geometry caches
        one_round(enc, policy, 1, args.fights)
    best: dict[str, tuple[float, float]] = {}
    # rounds interleave the arms, so that a load change on a shared machine hits them alike
    for r in range(args.rounds):
        for label, policy in arms:
            fights, turns = one_round(enc, policy, 1 + args.fights * (r + 1), args.fights)
            old = best.get(label, (0.0, 0.0))
            best[label] = (max(old[0], fights), max(old[1], turns))
    base_f, base_t = best["heuristic"]
    print(f"best of {args.rounds} interleaved rounds of {args.fights} fights, one core")
    for label, (fights, turns) in best.items():
        print(
            f"{label}: {fights:.0f} fights/s, {turns:.0f} turns/s; heuristic/strategy "
            f"{base_f / fights:.2f} (fights), {base_t / turns:.2f} (turns)"
        )


if __name__ == "__main__":
    main()
