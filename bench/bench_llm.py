"""LLM decision latency with an embedded model.

Plays LLM decisions on the quick-start encounter (the goblins are played by the
model) and prints:

* median and p95 latency per model call, and tokens in/out per call;
* the prompt-processing vs generation split: the prompt and generation speeds
  are measured on their own, and each call's floor is the tokens it read afresh
  divided by the prompt speed plus the tokens it wrote divided by the
  generation speed; the bench prints latency / floor;
* the effect of prefix reuse (first call, cold KV cache, vs later calls that
  share the static system prompt);
* the effect of the decision cache (replaying the same fights again).

Usage: ``uv run --extra llm --extra qwen-0.5b python bench/bench_llm.py [--model local:qwen-0.5b]
[--fights 2] [--round-cap 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.content.creatures import load_combatant  # noqa: E402
from engine.content.maps import load_map  # noqa: E402
from engine.run.runner import play_fight  # noqa: E402
from engine.state.encounter import build_encounter  # noqa: E402
from harness.models import open_model  # noqa: E402
from harness.transcript import lines  # noqa: E402
from policies.heuristic import HeuristicPolicy  # noqa: E402
from policies.llm import ChatRequest, LLMPolicy  # noqa: E402


class Timed:
    """Wraps a model and keeps every request with its latency."""

    def __init__(self, inner):
        self.inner = inner
        self.model_id = inner.model_id
        self.calls: list[tuple[ChatRequest, float, int, int, int]] = []

    def complete(self, request):
        start = time.perf_counter()
        response = self.inner.complete(request)
        self.calls.append(
            (
                request,
                time.perf_counter() - start,
                response.tokens_in,
                response.tokens_out,
                response.tokens_reused,
            )
        )
        return response


#: transcript words of an action the engine refused
REJECTED = ("action refusée", "sans effet")


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def speeds(model) -> tuple[float, float]:
    """Prompt and generation speeds of a llama.cpp model, measured without grammar."""
    llm = model._llm
    text = "Le gobelin décoche une flèche sur l'orc, qui grogne et charge. " * 40
    tokens = llm.tokenize(text.encode("utf-8"), add_bos=False)[:400]
    llm.reset()
    start = time.perf_counter()
    llm.eval(tokens)
    pp = len(tokens) / (time.perf_counter() - start)
    llm.reset()
    llm.eval(tokens[:20])
    start = time.perf_counter()
    n = 0
    for _token in llm.generate(tokens[:20], temp=0.0, reset=False):
        n += 1
        if n == 32:
            break
    gen = n / (time.perf_counter() - start)
    llm.reset()
    return pp, gen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="local:qwen-0.5b")
    parser.add_argument("--fights", type=int, default=2)
    parser.add_argument("--round-cap", type=int, default=3)
    args = parser.parse_args()

    load_start = time.perf_counter()
    inner = open_model(args.model)
    print(f"model {args.model}: loaded in {time.perf_counter() - load_start:.1f} s")
    model = Timed(inner)
    policy = LLMPolicy(model)
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    sides = {"players": policy, "monsters": HeuristicPolicy()}
    rejected = 0
    for seed in range(1, args.fights + 1):
        result = play_fight(enc, seed, sides, round_cap=args.round_cap, record=True)
        rejected += sum(
            1
            for _r, actor, message, _x in lines(result.log or ())
            if (actor or "").startswith("goblin") and any(w in message for w in REJECTED)
        )
    lat = [c[1] for c in model.calls]
    tin = [c[2] for c in model.calls]
    tout = [c[3] for c in model.calls]
    reused = [c[4] for c in model.calls]
    fresh = [i - r for i, r in zip(tin, reused, strict=True)]
    print(
        f"{len(lat)} model calls: latency median {statistics.median(lat):.2f} s, "
        f"p95 {p95(lat):.2f} s; tokens in median {statistics.median(tin):.0f} "
        f"(read afresh {statistics.median(fresh):.0f}, reused from the KV cache "
        f"{statistics.median(reused):.0f}), out median {statistics.median(tout):.0f}"
    )
    print(
        f"prefix reuse: first call {lat[0]:.2f} s (cold KV cache, {fresh[0]} tokens read), "
        f"later calls median {statistics.median(lat[1:]) if len(lat) > 1 else float('nan'):.2f} s"
    )
    invalid = policy.telemetry.retries + sum(policy.telemetry.fallbacks.values())
    print(
        f"answers: {len(lat) - policy.telemetry.retries} decisions, invalid JSON or id {invalid}; "
        f"actions of the LLM side rejected by the engine: {rejected}"
    )
    pp, gen = speeds(inner)
    print(f"measured speeds: prompt {pp:.1f} tok/s, generation {gen:.1f} tok/s")
    floors = [f / pp + o / gen for f, o in zip(fresh, tout, strict=True)]
    ratios = [a / b for a, b in zip(lat, floors, strict=True)]
    prompt_share = [f / pp / a for f, a in zip(fresh, lat, strict=True)]
    print(
        f"floor (tokens read / prompt speed + tokens out / generation speed): median "
        f"{statistics.median(floors):.2f} s; latency / floor median "
        f"{statistics.median(ratios):.2f}, max {max(ratios):.2f}; prompt reading is "
        f"~{100 * statistics.median(prompt_share):.0f}% of a call"
    )
    calls_before = len(model.calls)
    start = time.perf_counter()
    for seed in range(1, args.fights + 1):
        play_fight(enc, seed, sides, round_cap=args.round_cap)
    again = time.perf_counter() - start
    print(
        f"decision cache: replaying the same {args.fights} fights made "
        f"{len(model.calls) - calls_before} model calls "
        f"({policy.telemetry.cache_hits} cache hits) in {again:.2f} s"
    )
    print(f"telemetry: {policy.telemetry.to_dict()}")


if __name__ == "__main__":
    main()
