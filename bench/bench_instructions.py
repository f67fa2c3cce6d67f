"""Instructions per 1000 quick-start fights, counted by valgrind (callgrind).

Wall-clock figures on a shared 2-core VM move by ±30 % from minute to minute;
instruction counts do not. This script counts the instructions of the
in-process quick start (3 goblins vs 2 orcs, heuristic both sides) at the
current checkout and, optionally, at another git revision (checked out in a
temporary worktree), and prints the ratio.

Usage: ``uv run python bench/bench_instructions.py [--against REV] [--fights 1000]``
(needs ``valgrind``; takes about a minute per revision).

``--encounter FILE`` counts instead the fights of an encounter file (its
combatants, starting-state overrides included, heuristic on every side; its
runs, seed and cap are not read: ``--fights`` fights from seed 1, cap 100), e.g.
``data/encounters/lich.yaml`` for auras, riders and conditions. With
``--against``, the other revision must be able to read the file.

``--startup`` counts instead the CLI start-up: the whole process of
``pf1e-sim … --runs 1`` on the quick start (``python -m harness.cli``), with
compiled bytecode (one unmeasured run first writes the ``.pyc`` files;
``PYTHONDONTWRITEBYTECODE`` is cleared for both runs, or every module would be
compiled from source and counted).
"""

from __future__ import annotations

import argparse
import os
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
try:  # the layered engine; before it (--against an older revision), flat modules
    from engine.content.creatures import load_combatant
    from engine.content.maps import load_map
    from engine.run.runner import run_range
    from engine.state.encounter import build_encounter
except ImportError:
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


ENCOUNTER_PROGRAM = """
import sys
root = sys.argv[1]; warm = int(sys.argv[2]); fights = int(sys.argv[3]); path = sys.argv[4]
sys.path.insert(0, root)
from engine.run.runner import run_range
from harness.cli.config import load_setup
from policies import HeuristicPolicy
enc = load_setup(None, None, path, None).encounter
h = HeuristicPolicy()
policies = {side: h for side in enc.sides}
list(run_range(enc, 1, 0, warm, policies))
list(run_range(enc, 1, warm, warm + fights, policies))
"""


def instructions(root: Path, warm: int, fights: int, encounter: Path | None = None) -> int:
    program = PROGRAM if encounter is None else ENCOUNTER_PROGRAM
    extra = [] if encounter is None else [str(encounter)]
    cmd = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, "-c", program, str(root), str(warm), str(fights), *extra,
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    match = re.search(r"Collected : (\d+)", out)
    if match is None:
        raise SystemExit(f"callgrind printed no count:\n{out}")
    return int(match.group(1))


def per_fights(root: Path, fights: int, encounter: Path | None = None) -> int:
    """Instructions of ``fights`` fights after 200 warm-up fights (start-up subtracted)."""
    return instructions(root, 200, fights, encounter) - instructions(root, 200, 0, encounter)


STARTUP_ARGS = [
    "--map", "data/maps/sample_arena.yaml",
    "--side", "players", *["data/monsters/goblin.json"] * 3,
    "--side", "monsters", *["data/monsters/orc.json"] * 2,
    "--runs", "1",
]  # fmt: skip


def startup(root: Path) -> int:
    """Instructions of one ``pf1e-sim --runs 1`` process (see the module docstring)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cmd = [sys.executable, "-m", "harness.cli", *STARTUP_ARGS]
    subprocess.run(cmd, cwd=root, env=env, capture_output=True, check=True)  # writes the .pyc
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd]
    out = subprocess.run(
        valgrind, cwd=root, env=env, capture_output=True, text=True, check=True
    ).stderr
    match = re.search(r"Collected : (\d+)", out)
    if match is None:
        raise SystemExit(f"callgrind printed no count:\n{out}")
    return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", help="git revision to compare with")
    parser.add_argument("--fights", type=int, default=1000)
    parser.add_argument("--startup", action="store_true", help="count pf1e-sim --runs 1")
    parser.add_argument("--encounter", type=Path, help="count the fights of this encounter file")
    args = parser.parse_args()
    encounter: Path | None = args.encounter.resolve() if args.encounter else None
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")

    def measure(root: Path) -> int:
        return startup(root) if args.startup else per_fights(root, args.fights, encounter)

    what = "for pf1e-sim --runs 1 (start-up)" if args.startup else f"per {args.fights} fights"
    if encounter is not None and not args.startup:
        what += f" of {encounter.name}"
    here = measure(ROOT)
    print(f"checkout: {here / 1e9:.3f} G instructions {what}")
    if args.against:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "tree"
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(tree),
                 args.against],
                check=True,
            )  # fmt: skip
            try:
                there = measure(tree)
            finally:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                    check=True,
                )
        print(f"{args.against}: {there / 1e9:.3f} G instructions {what}")
        speed = "" if args.startup else f" (throughput ≈ {there / here:.2f}× the other revision's)"
        print(f"ratio: {here / there:.3f}{speed}")


if __name__ == "__main__":
    main()
