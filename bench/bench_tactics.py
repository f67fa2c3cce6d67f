"""Tactics bench: does the LLM policy compare its options, or play a position?

For each model, plays an LLM-played side against the heuristic on three small
encounters of the sample arena, and prints:

* the **position-bias check**: every situation the model met in those fights
  is asked again with its options shuffled (:func:`policies.llm.position_bias`);
  the agreement is the share of situations where the same option was chosen;
* **the played plan is the chosen option's**: every decision's plan is checked
  against the actions of the option the model chose (or is a counted fallback);
* the **kinds chosen**: full attack when one was offered vs « approach then
  attack » chosen instead, shots at a target at 0 hp or below while a target
  still standing could be attacked, the first option's share;
* the **win rate** of the LLM side against the heuristic per encounter, with its
  Wilson 95 % interval and 3σ band (engine.run.stats), next to the heuristic's own
  win rate in the same seat (same seeds, 200 fights).

Each decision costs seconds on 2 cores: the default run is small (2 fights per
encounter, round cap 3). Full-size run (documented in the README):
``uv run python bench/bench_tactics.py --model local --model local:qwen-0.5b --fights 10
--round-cap 6``.

Usage: ``uv run python bench/bench_tactics.py [--model local] [--model local:qwen-0.5b]
[--fights 2] [--round-cap 3] [--seed 1] [--only 1 3] [--answer rating|number|label]
[--skip-bias]`` (``--answer``: the policy's answer mode, ``rating`` by default as in
play; ``--skip-bias``: the fights' figures only, without asking again).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.content.creatures import load_combatant  # noqa: E402
from engine.content.maps import load_map  # noqa: E402
from engine.run.runner import play_fight  # noqa: E402
from engine.run.stats import wilson_interval, win_rate_band  # noqa: E402
from engine.state.encounter import Encounter, build_encounter  # noqa: E402
from harness.models import open_model  # noqa: E402
from policies.heuristic import HeuristicPolicy  # noqa: E402
from policies.llm import ANSWER_MODES, BiasCheck, LLMPolicy, position_bias  # noqa: E402
from policies.tactics import option_figures  # noqa: E402

Z95 = 1.959964


def encounters() -> list[tuple[str, Encounter, str]]:
    """(name, encounter, side played by the LLM)."""
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    one = build_encounter(gmap, [("players", [g]), ("monsters", [o, o])])
    three = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    return [
        ("1 gobelin (LLM) contre 2 orques", one, "players"),
        ("3 gobelins (LLM) contre 2 orques", three, "players"),
        ("2 orques (LLM) contre 3 gobelins", three, "monsters"),
    ]


@dataclass
class Counts:
    decisions: int = 0
    fallbacks: int = 0
    #: the played plan is not the chosen option's actions (must stay 0)
    not_chosen: int = 0
    first_option: int = 0
    full_attack_offered: int = 0
    full_attack_chosen: int = 0
    approach_instead_of_full: int = 0
    downed_shot: int = 0
    downed_shot_avoidable: int = 0
    #: ``--answer rating``: decisions whose best rating was shared by another
    #: option (the figures broke the tie, not the model)
    rating_ties: int = 0
    kinds: Counter[str] = field(default_factory=Counter)


class Spy:
    """Plays ``policy`` and checks each decision; keeps the observations."""

    def __init__(self, policy: LLMPolicy, counts: Counts) -> None:
        self.policy = policy
        self.counts = counts
        self.observations: list[Any] = []
        self.chosen: list[str | None] = []

    def decide(self, obs):
        c = self.counts
        shown = self.policy.options(obs)
        before = sum(self.policy.telemetry.fallbacks.values())
        plan = self.policy.decide(obs)
        c.decisions += 1
        if sum(self.policy.telemetry.fallbacks.values()) > before:
            c.fallbacks += 1
            self.observations.append(obs)
            self.chosen.append(None)
            if not (plan.rationale or "").startswith("repli heuristique"):
                c.not_chosen += 1
            return plan
        chosen_id = (plan.rationale or "").split(" — ")[0]
        option = next((o for o in shown if o.id == chosen_id), None)
        if option is None or option.actions != plan.actions:
            c.not_chosen += 1
        self.observations.append(obs)
        self.chosen.append(chosen_id)
        if option is None:
            return plan
        rated = re.search(r"note (\d)/9 \(autres : ([\d, ]*)\)", plan.rationale or "")
        if rated and rated.group(1) in rated.group(2).split(", "):
            c.rating_ties += 1
        kind = chosen_id.split(":")[0]
        c.kinds[kind] += 1
        c.first_option += option is shown[0]
        fulls = [o for o in shown if o.id.startswith("full_attack:")]
        if fulls:
            c.full_attack_offered += 1
            c.full_attack_chosen += kind == "full_attack"
            c.approach_instead_of_full += kind == "move_attack"
        fig = option_figures(obs, option)
        if fig.target is not None and fig.target_hp <= 0:
            c.downed_shot += 1
            standing = [
                o for o in shown
                if (f := option_figures(obs, o)).target is not None and f.target_hp > 0
            ]  # fmt: skip
            c.downed_shot_avoidable += bool(standing)
        return plan


def band(wins: int, n: int) -> str:
    p, lo3, hi3 = win_rate_band(wins, n)
    lo, hi = wilson_interval(wins, n, Z95)
    return (
        f"{wins}/{n} = {100 * p:.0f} % (Wilson 95 % [{100 * lo:.0f} ; {100 * hi:.0f}] %, "
        f"3σ [{100 * lo3:.0f} ; {100 * hi3:.0f}] %)"
    )


def run_model(spec: str, args: argparse.Namespace) -> dict[str, Any]:
    start = time.perf_counter()
    model = open_model(spec)
    print(f"\n=== {spec} (chargé en {time.perf_counter() - start:.1f} s) ===")
    counts = Counts()
    policy = LLMPolicy(model, answer=args.answer)
    spy = Spy(policy, counts)
    out: dict[str, Any] = {"model": spec, "answer": args.answer, "encounters": []}
    seeds = range(args.seed, args.seed + args.fights)
    chosen = [e for i, e in enumerate(encounters(), 1) if not args.only or i in args.only]
    for name, enc, side in chosen:
        other = "monsters" if side == "players" else "players"
        wins = 0
        for seed in seeds:
            sides = {side: spy, other: HeuristicPolicy()}
            result = play_fight(enc, seed, sides, round_cap=args.round_cap)
            wins += result.winner == side
        ref_sides = {"players": HeuristicPolicy(), "monsters": HeuristicPolicy()}
        ref = sum(
            play_fight(enc, s, ref_sides, round_cap=args.round_cap).winner == side
            for s in range(args.seed, args.seed + 200)
        )
        print(f"{name} : LLM {band(wins, len(seeds))} ; heuristique à sa place {band(ref, 200)}")
        out["encounters"].append({"name": name, "llm_wins": wins, "fights": len(seeds),
                                  "heuristic_wins": ref, "heuristic_fights": 200})  # fmt: skip
    if args.skip_bias:  # the fights' figures only
        check = BiasCheck(())
    else:
        check = position_bias(
            model, spy.observations, seed=args.seed, known=spy.chosen, answer=args.answer
        )
    c = counts
    rate = check.rate
    shown = "—" if rate is None else f"{100 * rate:.0f} %"
    singles = sum(len(policy.options(o)) < 2 for o in spy.observations)
    print(
        f"biais de position : {check.agreements}/{check.compared} situations, même choix "
        f"= {shown} (options mélangées, graine {args.seed} ; {singles} situations à une seule "
        "option non comparées)"
    )
    print(
        f"décisions : {c.decisions} ; replis : {c.fallbacks} ; plan joué ≠ option choisie : "
        f"{c.not_chosen} ; première option choisie : {c.first_option}/{c.decisions - c.fallbacks}"
    )
    print(
        f"outrance offerte : {c.full_attack_offered} fois, choisie {c.full_attack_chosen}, "
        f"« approche puis attaque » à la place {c.approach_instead_of_full} ; "
        f"tirs sur une cible à 0 pv ou moins : {c.downed_shot} "
        f"(dont {c.downed_shot_avoidable} avec une cible debout attaquable)"
    )
    if args.answer == "rating":
        print(f"notes à égalité (départagées par les chiffres) : {c.rating_ties}/{c.decisions}")
    print(f"types choisis : {dict(sorted(c.kinds.items()))}")
    print(f"télémétrie : {policy.telemetry.to_dict()}")
    print(f"durée : {time.perf_counter() - start:.0f} s")
    out.update(
        bias={
            "agreements": check.agreements,
            "compared": check.compared,
            "rate": rate,
            "single_option": singles,
        },
        counts={k: v for k, v in vars(c).items() if k != "kinds"} | {"kinds": dict(c.kinds)},
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", action="append")
    parser.add_argument("--fights", type=int, default=2)
    parser.add_argument("--round-cap", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", type=int, nargs="*", help="numéros des rencontres (1 2 3)")
    parser.add_argument(
        "--answer", choices=ANSWER_MODES, default="rating",
        help="le modèle répond par le numéro de l'option ou recopie son texte",
    )  # fmt: skip
    parser.add_argument(
        "--skip-bias", action="store_true", help="sans le contrôle du biais de position"
    )
    parser.add_argument("--json", type=Path, help="écrit aussi les chiffres dans ce fichier")
    args = parser.parse_args()
    models = args.model or ["local", "local:qwen-0.5b"]
    print(
        f"{args.fights} combats par rencontre (graines {args.seed}…{args.seed + args.fights - 1}), "
        f"plafond {args.round_cap} rounds"
    )
    results = [run_model(m, args) for m in models]
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
