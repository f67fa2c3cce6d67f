"""Engine throughput and quick-start wall time.

Prints:
* in-process fights per second on one core for the quick start (3 goblins vs
  2 orcs on the sample arena), best of several rounds of 1000 fights, after a
  warm-up round (the geometry caches of the map are then filled);
* end-to-end wall time of the README's quick-start command (1000 fights) with
  ``--workers 1`` and ``--workers 2``, median of several runs.

Usage: ``uv run python bench/bench_engine.py [--rounds N] [--e2e-runs N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.content.creatures import load_combatant  # noqa: E402
from engine.content.maps import load_map  # noqa: E402
from engine.run.runner import run_range  # noqa: E402
from engine.state.encounter import build_encounter  # noqa: E402
from policies import HeuristicPolicy  # noqa: E402

QUICKSTART = [
    "--map", "data/maps/sample_arena.yaml",
    "--side", "players", "data/monsters/goblin.json", "data/monsters/goblin.json",
    "data/monsters/goblin.json",
    "--side", "monsters", "data/monsters/orc.json", "data/monsters/orc.json",
    "--runs", "1000", "--seed", "1",
]  # fmt: skip


def in_process(rounds: int) -> None:
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    h = HeuristicPolicy()
    policies = {"players": h, "monsters": h}
    start = time.perf_counter()
    list(run_range(enc, 1, 0, 1000, policies))
    cold = 1000 / (time.perf_counter() - start)
    rates = []
    for r in range(rounds):
        start = time.perf_counter()
        list(run_range(enc, 1 + 1000 * (r + 1), 0, 1000, policies))
        rates.append(1000 / (time.perf_counter() - start))
    print(f"in-process, 1 core: cold {cold:.0f} fights/s (first 1000, empty caches)")
    print(
        f"in-process, 1 core: warm best {max(rates):.0f} fights/s, "
        f"median {statistics.median(rates):.0f} fights/s over {rounds} x 1000 fights"
    )


def end_to_end(runs: int) -> None:
    script = Path(sys.executable).parent / "pf1e-sim"
    exe = [str(script)] if script.exists() else [sys.executable, "-m", "harness.cli"]
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print(
            "note: PYTHONDONTWRITEBYTECODE is set; start-up is only fast if the venv was "
            "byte-compiled (uv sync --compile-bytecode)"
        )
    for workers in (1, 2):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(
                [*exe, *QUICKSTART, "--workers", str(workers)],
                cwd=ROOT,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            times.append(time.perf_counter() - start)
        print(
            f"quick start end to end (1000 fights, --workers {workers}): "
            f"median {statistics.median(times):.2f} s, min {min(times):.2f} s over {runs} runs"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--e2e-runs", type=int, default=5)
    args = parser.parse_args()
    in_process(args.rounds)
    end_to_end(args.e2e_runs)


if __name__ == "__main__":
    main()
