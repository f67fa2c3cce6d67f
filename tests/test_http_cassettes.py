"""Replays of a real llama.cpp OpenAI-compatible server session (vcrpy): no network, no model.

Recorded by ``scripts/record_http_cassettes.py`` against ``python -m llama_cpp.server``
with the light embedded model.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

vcr = pytest.importorskip("vcr")
pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from record_http_cassettes import BASE, CASSETTE, encounter, recorder  # noqa: E402

from engine.runner import play_fight  # noqa: E402
from harness.models import OpenAIModel  # noqa: E402
from policies.heuristic import HeuristicPolicy  # noqa: E402
from policies.llm import LLMPolicy  # noqa: E402


def replay():
    model = OpenAIModel("qwen-0.5b", base_url=BASE)
    policy = LLMPolicy(model)
    with recorder("none").use_cassette(str(CASSETTE)) as cassette:
        result = play_fight(
            encounter(), 1, {"players": policy, "monsters": HeuristicPolicy()},
            round_cap=2, record=True,
        )  # fmt: skip
        played = cassette.play_count
        requests = [json.loads(r.body) for r in cassette.requests]
    return model, policy, result, played, requests


def test_server_session_replays_and_the_response_format_adapts_to_llama_cpp():
    model, policy, result, played, requests = replay()
    assert played == len(requests) == 2
    assert requests[0]["response_format"]["type"] == "json_schema"  # answered HTTP 500
    assert requests[1]["response_format"]["type"] == "json_object"
    assert requests[1]["response_format"]["schema"]["properties"]["option_id"]["enum"]
    assert model._format == "json_object"
    tel = policy.telemetry
    assert (tel.decisions, tel.model_calls, tel.fallbacks) == (1, 1, {})
    goblin = [m for _r, actor, m, _x in result.log if actor == "goblin"]
    assert goblin[0].startswith("raisonnement : ")
    assert not any("action sans effet" in m for m in goblin)


def test_no_credentials_in_the_cassette():
    text = CASSETTE.read_text(encoding="utf-8").lower()
    assert "authorization" not in text and "bearer" not in text


def test_unreachable_server_is_a_counted_fallback():
    # Nothing listens on the loopback discard port: retried, then a counted fallback.
    model = OpenAIModel("x", base_url="http://127.0.0.1:9/v1", timeout_s=0.5, attempts=2)
    policy = LLMPolicy(model, breaker_threshold=1)
    result = play_fight(
        encounter(), 1, {"players": policy, "monsters": HeuristicPolicy()}, round_cap=2
    )
    assert policy.telemetry.fallbacks.get("model_error") == 1
    assert result.rounds >= 1
