"""LLM policy logic with a scripted fake model (no network, no weights).

These tests pin the policy's contract: schema-constrained choice among legal
options, one retry with the error fed back, heuristic fallback counted by
reason, circuit breaker per fight, decision cache, rationale in the transcript.
Recorded sessions of real models (cassettes) come with the model providers.
"""

from __future__ import annotations

import json
import re

import pytest
from builders import archer_vs_two as _encounter

from engine.run.runner import play_fight
from harness.report import render_transcript
from policies.heuristic import HeuristicPolicy
from policies.llm import ChatRequest, ChatResponse, LLMPolicy, ModelError


class FakeModel:
    """Answers from a function of the request; records every request."""

    model_id = "fake"

    def __init__(self, answer):
        self.answer = answer
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        text = self.answer(request, len(self.requests))
        if isinstance(text, Exception):
            raise text
        return ChatResponse(text, 100, 10, 0.01, self.model_id)


def _menu(request):
    """The numbered menu shown to the model: ``{label: number}``."""
    return {
        m.group(2): m.group(1)
        for m in re.finditer(r"^(\d+)\. (.+?) : ", request.messages[1].content, re.MULTILINE)
    }


def _choose(label):
    """A model that picks the option with that label (else the last one)."""

    def answer(request, _n):
        menu = _menu(request)
        pick = menu.get(label, list(menu.values())[-1])
        return json.dumps({"option_id": pick, "rationale": "le plus fragile d'abord"})

    return answer


def test_the_model_choice_is_played_and_explained():
    model = FakeModel(_choose("outrance sur weak (dagger)"))
    policy = LLMPolicy(model, answer="number")
    result = play_fight(
        _encounter(), 3, {"west": policy, "east": HeuristicPolicy()}, round_cap=2, record=True
    )
    text = render_transcript(result.log)
    assert "dagger vs weak" in text
    first = model.requests[0]
    assert first.messages[0].role == "system" and first.messages[1].role == "user"
    # the model sees the options by number; the enum is exactly the menu's numbers
    menu = _menu(first)
    width = len(str(len(menu)))
    assert first.json_schema["properties"]["option_id"]["enum"] == [
        f"{i:0{width}d}" for i in range(1, len(menu) + 1)
    ]
    assert sorted(menu.values(), key=int) == first.json_schema["properties"]["option_id"]["enum"]
    assert "outrance sur weak (dagger)" in menu
    assert policy.telemetry.decisions >= 1 and policy.telemetry.fallbacks == {}


def test_rationale_reaches_the_plan():
    model = FakeModel(_choose("outrance sur weak (dagger)"))
    policy = LLMPolicy(model, answer="number")
    plans = []

    class Spy:
        def decide(self, obs):
            plan = policy.decide(obs)
            plans.append(plan)
            return plan

    play_fight(_encounter(), 3, {"west": Spy(), "east": HeuristicPolicy()}, round_cap=1)
    assert plans[0].rationale == "full_attack:weak:dagger — le plus fragile d'abord"


@pytest.mark.parametrize(
    "bad",
    ["not json", json.dumps({"option_id": "fly:away"}), json.dumps({"choice": "wait"})],
)
def test_invalid_answer_gets_one_retry_with_the_error_then_succeeds(bad):
    def answer(request, n):
        return bad if n == 1 else json.dumps({"option_id": list(_menu(request).values())[-1]})

    model = FakeModel(answer)
    policy = LLMPolicy(model, answer="number")
    play_fight(_encounter(), 1, {"west": _Once(policy), "east": HeuristicPolicy()}, round_cap=1)
    assert len(model.requests) == 2
    assert "Ta réponse précédente était invalide" in model.requests[1].messages[1].content
    assert policy.telemetry.retries == 1 and policy.telemetry.fallbacks == {}


class _Once:
    """Uses the LLM policy for the first decision only, then waits."""

    def __init__(self, policy):
        self.policy = policy
        self.used = False

    def decide(self, obs):
        if self.used:
            from engine.content.actions import TurnPlan, WaitAction

            return TurnPlan((WaitAction(),))
        self.used = True
        return self.policy.decide(obs)


def test_two_invalid_answers_fall_back_to_the_heuristic():
    model = FakeModel(lambda _r, _n: "garbage")
    policy = LLMPolicy(model, answer="number")
    play_fight(_encounter(), 1, {"west": _Once(policy), "east": HeuristicPolicy()}, round_cap=1)
    assert len(model.requests) == 2
    assert policy.telemetry.fallbacks == {"invalid_output": 1}


def test_model_errors_fall_back_and_open_the_circuit_breaker_per_fight():
    model = FakeModel(lambda _r, _n: ModelError("boom"))
    policy = LLMPolicy(model, breaker_threshold=2, answer="number")
    result = play_fight(_encounter(), 1, {"west": policy, "east": HeuristicPolicy()}, round_cap=6)
    assert len(model.requests) == 2  # then the breaker stops calling the model
    assert policy.telemetry.fallbacks["model_error"] == 2
    assert policy.telemetry.fallbacks.get("circuit_breaker", 0) >= 1
    assert all(r.ok for c in result.combatants for r in c.last_results)
    play_fight(_encounter(), 2, {"west": policy, "east": HeuristicPolicy()}, round_cap=1)
    assert len(model.requests) == 3  # a new fight closes the breaker


def test_identical_situations_hit_the_decision_cache():
    model = FakeModel(_choose("attendre"))
    policy = LLMPolicy(model, answer="number")
    enc = _encounter()
    for _ in range(2):
        play_fight(enc, 5, {"west": policy, "east": HeuristicPolicy()}, round_cap=1)
    assert policy.telemetry.cache_hits >= 1
    assert policy.telemetry.model_calls == len(model.requests)


def test_static_prefix_comes_first_and_does_not_change_between_turns():
    model = FakeModel(_choose("attendre"))
    policy = LLMPolicy(model, answer="number")
    play_fight(_encounter(), 5, {"west": policy, "east": HeuristicPolicy()}, round_cap=3)
    systems = {r.messages[0].content for r in model.requests}
    assert len(systems) == 1
    assert len({r.messages[1].content for r in model.requests}) == len(model.requests)


def test_request_key_ignores_nothing_semantic():
    a = ChatRequest((), {"x": 1}, 10, 0.0, 1)
    assert a.key("m") == ChatRequest((), {"x": 1}, 10, 0.0, 1).key("m")
    assert a.key("m") != a.key("n")
    assert a.key("m") != ChatRequest((), {"x": 2}, 10, 0.0, 1).key("m")


def test_local_models_get_a_prefill_and_a_grammar_that_agree_with_the_schema():
    """What a grammar-decoding provider assembles (prefill + id + quote, then the
    free rationale it escapes and closes) is an answer the policy accepts."""
    from policies.llm import PREFILL, RATIONALE_MAX, _parse

    model = FakeModel(_choose("attendre"))
    play_fight(
        _encounter(),
        1,
        {"west": _Once(LLMPolicy(model, answer="number")), "east": HeuristicPolicy()},
    )
    request = model.requests[0]
    ids = request.json_schema["properties"]["option_id"]["enum"]
    assert request.prefill == PREFILL and request.free_field == ("rationale", RATIONALE_MAX)
    assert request.grammar is not None
    for i in ids:
        assert f'"{i}"' in request.grammar
        head = request.prefill + i + '"'
        why = 'l\'orc "blessé" \\ fuit' + "x" * RATIONALE_MAX
        clean = "".join(ch for ch in why if ch >= " " and ch != "\\")[:RATIONALE_MAX]
        answer = head + ', "rationale": ' + json.dumps(clean, ensure_ascii=False) + "}"
        assert _parse(answer, ids) == (i, clean.strip())
    # one character too many is refused: the provider must truncate
    long = request.prefill + ids[0] + '", "rationale": "' + "x" * (RATIONALE_MAX + 1) + '"}'
    assert isinstance(_parse(long, ids), str)


def test_passive_options_are_hidden_from_the_model_unless_asked():
    """The small embedded model misuses delay / total defense (see HIDDEN_KINDS)."""
    from policies.llm import HIDDEN_KINDS

    model = FakeModel(_choose("attendre"))
    play_fight(
        _encounter(),
        1,
        {"west": _Once(LLMPolicy(model, answer="number")), "east": HeuristicPolicy()},
    )
    labels = set(_menu(model.requests[0]))
    assert labels
    assert not any(lab.startswith(("défense totale", "retarder", "outrance défensive"))
                   for lab in labels)  # fmt: skip
    assert {"delay", "total_defense"} <= HIDDEN_KINDS
    everything = FakeModel(_choose("attendre"))
    policy = LLMPolicy(everything, hidden_kinds=frozenset(), answer="number")
    play_fight(_encounter(), 1, {"west": _Once(policy), "east": HeuristicPolicy()})
    labels = set(_menu(everything.requests[0]))
    assert "défense totale (+4 CA)" in labels
    assert "retarder son tour (agir en fin de round)" in labels
