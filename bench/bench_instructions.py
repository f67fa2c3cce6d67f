"""Instructions per 1000 quick-start fights, counted by valgrind (callgrind).

Wall-clock figures on a shared 2-core VM move by ±30 % from minute to minute;
instruction counts do not. This script counts the instructions of the
in-process quick start (3 goblins vs 2 orcs, heuristic both sides) at the
current checkout and, optionally, at another git revision (checked out in a
temporary worktree), and prints the ratio.

Usage: ``uv run python bench/bench_instructions.py [--against REV] [--fights 1000]``
(needs ``valgrind``; takes about a minute per revision).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = """
import sys
root = sys.argv[1]; warm = int(sys.argv[2]); fights = int(sys.argv[3])
sys.path.insert(0, root)
from engine.creatures import load_combatant
from engine.encounter import build_encounter
from engine.maps import load_map
from engine.runner import run_range
from policies import HeuristicPolicy
gmap = load_map(root + "/data/maps/sample_arena.yaml")
g = load_combatant(root + "/data/monsters/goblin.json")
o = load_combatant(root + "/data/monsters/orc.json")
enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
h = HeuristicPolicy()
policies = {"players": h, "monsters": h}
list(run_range(enc, 1, 0, warm, policies))
list(run_range(enc, 1, warm, warm + fights, policies))
"""


def instructions(root: Path, warm: int, fights: int) -> int:
    cmd = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, "-c", PROGRAM, str(root), str(warm), str(fights),
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    match = re.search(r"Collected : (\d+)", out)
    if match is None:
        raise SystemExit(f"callgrind printed no count:\n{out}")
    return int(match.group(1))


def per_fights(root: Path, fights: int) -> int:
    """Instructions of ``fights`` fights after 200 warm-up fights (start-up subtracted)."""
    return instructions(root, 200, fights) - instructions(root, 200, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", help="git revision to compare with")
    parser.add_argument("--fights", type=int, default=1000)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    here = per_fights(ROOT, args.fights)
    print(f"checkout: {here / 1e9:.3f} G instructions per {args.fights} fights")
    if args.against:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "tree"
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(tree),
                 args.against],
                check=True,
            )  # fmt: skip
            try:
                there = per_fights(tree, args.fights)
            finally:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                    check=True,
                )
        print(f"{args.against}: {there / 1e9:.3f} G instructions per {args.fights} fights")
        print(f"ratio: {here / there:.3f} (throughput ≈ {there / here:.2f}× the other revision's)")


if __name__ == "__main__":
    main()
