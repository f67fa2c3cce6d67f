"""Wall time of the dice audit, pack by pack.

Prints, for each built-in pack, the number of cases, the rolls per second and the
seconds taken by ``pf1e-sim audit-dice --pack NAME --samples N`` in-process
(each roll is made, recomputed and counted).

Usage: ``uv run python bench/bench_audit.py [--samples 200000]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.content.packs import builtin_packs, load_pack
from engine.run.audit import audit_pack


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=200_000)
    args = parser.parse_args()
    total = 0.0
    for name in builtin_packs():
        start = time.perf_counter()
        results = audit_pack(load_pack(name), args.samples)
        seconds = time.perf_counter() - start
        total += seconds
        rolls = args.samples * len(results)
        verdict = "OK" if all(r.passed for r in results) else "ÉCHEC"
        rate = rolls / seconds
        print(f"{name:<11} {len(results)} cas  {rate:>9,.0f} jets/s  {seconds:6.1f} s  {verdict}")
    print(f"total       {total:.1f} s")


if __name__ == "__main__":
    main()
