"""Fidelity of compiled strategies: does the compiled spec, played, do what the text says?

Compiles the texts of ``scripts/record_strategy_cassettes.py`` (by default from
the recorded cassette of the embedded model; ``--model local:qwen-0.5b`` to
compile live), then:

* field accuracy: the share of the fields each text clearly asks for (written
  below by hand, per text) that the compiled spec sets as asked; a text that is
  not a strategy counts one, right when compilation refuses it;
* extra fields: the fields the spec sets away from their default although the
  text does not ask for them (a model that guesses or copies the prompt's
  examples), next to the accuracy;
* behaviour over ``--fights`` quick-start fights (3 goblins with the compiled
  strategy against 2 orcs with the heuristic), next to the heuristic's: the
  share of fights whose first attack goes to the most dangerous orc-like target
  (the first deployed orc when they are equal), charges per fight, withdraws
  per fight, total defenses per fight, readied actions per fight, and the mean
  distance (feet) from each goblin to its nearest enemy at the start of its
  turns.

Usage: ``uv run python bench/bench_strategy_fidelity.py [--fights N] [--model MODEL]``
(``--model replay:cassettes/strategy_compile_qwen15.json`` for the 1.5B's cassette).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from record_strategy_cassettes import CASSETTE, TEXTS  # noqa: E402  # pyright: ignore[reportMissingImports]

from engine.content.creatures import load_combatant  # noqa: E402
from engine.content.maps import load_map  # noqa: E402
from engine.run.runner import play_fight  # noqa: E402
from engine.state.encounter import build_encounter  # noqa: E402
from harness.models import open_model  # noqa: E402
from policies import HeuristicPolicy  # noqa: E402
from policies.strategy import StrategyPolicy, StrategySpec  # noqa: E402
from policies.strategy_compile import StrategyCompileError, compile_strategy  # noqa: E402

#: per text (same order as TEXTS): the fields it clearly asks for
EXPECTED: tuple[dict[str, Any] | None, ...] = (
    {"target_roles": ["ranged"], "focus_fire": True, "charge": False},
    {"targets": ["most_dangerous"], "focus_fire": True},
    {"engagement": "ranged", "keep_distance_ft": 15},
    {"positioning": "hold"},
    {"targets": ["nearest"], "engagement": "melee", "prefer_charge": True},
    {"retreat_below_hp_pct": 33, "targets": ["most_wounded"]},
    {"targets": ["ranged_first"], "total_defense_below_hp_pct": 20},
    {"targets": ["engaged"], "avoid_threatened": True},
    None,  # not strategies: compilation should refuse them
    None,
    None,
    None,
    None,
    None,
)


def accuracy(spec: Any, expected: dict[str, Any]) -> tuple[int, int]:
    """(fields right, fields asked); a list asked is right when the spec's list starts with it,
    a percentage when it is within 2 points."""
    right = 0
    for key, want in expected.items():
        got = getattr(spec, key)
        if isinstance(want, list):
            ok = got[: len(want)] == want
        elif key.endswith("_pct"):
            ok = abs(got - want) <= 2
        else:
            ok = got == want
        right += ok
    return right, len(expected)


def extra(spec: Any, expected: dict[str, Any]) -> list[str]:
    """The fields ``spec`` sets away from the defaults that ``expected`` does not ask for."""
    defaults = StrategySpec()
    return [
        key
        for key in StrategySpec.model_fields
        if key not in ("name", "roles", *expected) and getattr(spec, key) != getattr(defaults, key)
    ]


class Watch:
    """Wraps a policy and counts what the players' side does."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.kinds: Counter[str] = Counter()
        self.distances: list[int] = []
        self.first_targets: Counter[str] = Counter()
        self._fight: object = None

    def decide(self, obs: Any) -> Any:
        if obs.fight_key != self._fight:
            self._fight = obs.fight_key
            self._first = True
        enemies = obs.enemies()
        if enemies:
            self.distances.append(min(obs.distance_ft(e.id) for e in enemies))
        plan = self.inner.decide(obs)
        for action in plan.actions:
            self.kinds[action.kind] += 1
            if self._first and action.kind in {"attack", "full_attack", "charge"}:
                self.first_targets[action.target_id] += 1
                self._first = False
        return plan


def behaviour(policy: Any, fights: int) -> dict[str, float]:
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    watch = Watch(policy)
    for seed in range(1, fights + 1):
        play_fight(enc, seed, {"players": watch, "monsters": HeuristicPolicy()})
    firsts = sum(watch.first_targets.values()) or 1
    return {
        "first=orc": watch.first_targets["orc"] / firsts,
        "charge": watch.kinds["charge"] / fights,
        "withdraw": watch.kinds["withdraw"] / fights,
        "total_def": watch.kinds["total_defense"] / fights,
        "ready": watch.kinds["ready"] / fights,
        "dist_ft": sum(watch.distances) / max(1, len(watch.distances)),
    }


def line(label: str, b: dict[str, float]) -> str:
    return f"{label:<34} " + "  ".join(f"{k} {v:6.2f}" for k, v in b.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fights", type=int, default=200)
    parser.add_argument("--model", default=f"replay:{CASSETTE}")
    args = parser.parse_args()
    model = open_model(args.model)
    print(f"model: {model.model_id}; {args.fights} quick-start fights per strategy")
    print(line("heuristic (reference)", behaviour(HeuristicPolicy(), args.fights)))
    right = asked = extras = 0
    for text, expected in zip(TEXTS, EXPECTED, strict=True):
        short = text[:32]
        try:
            spec = compile_strategy(text, model)
        except StrategyCompileError as err:
            wanted = "refusal" if expected is None else "a spec"
            print(f"{short:<34} refused: {err}  (expected: {wanted})")
            right += expected is None
            asked += 1
            continue
        if expected is None:
            print(f"{short:<34} compiled although it is not a strategy")
            asked += 1
            continue
        r, a = accuracy(spec, expected)
        right, asked = right + r, asked + a
        more = extra(spec, expected)
        extras += len(more)
        shown = f"  fields {r}/{a}  extra {len(more)}" + (f" ({', '.join(more)})" if more else "")
        print(line(short, behaviour(StrategyPolicy(spec), args.fights)) + shown)
    print(f"field accuracy: {right}/{asked} = {right / asked:.0%}; extra fields: {extras}")


if __name__ == "__main__":
    main()
