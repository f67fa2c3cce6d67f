"""The strategy compiler on its public dev set (``bench/strategy_devset.yaml``, issue 15),
or on another set of the same format (``--set bench/strategy_heldout.yaml``: the held-out
texts, written after the compiler and never tuned on before their first measurement).

Each text is compiled (by default with the embedded 1.5B, ``local``) against the
encounter ``bench/devset/encounter.yaml`` for its side (``players`` unless the
text gives ``side: monsters``: the heuristic provokes attacks of opportunity only
on that side), then:

* fields: every field the text asks for is set as asked; every other field stays
  unset (``unasked``: the fields set that the text does not ask for);
* « non compris »: each expected item is named by a report (or by the refusal
  of a text that cannot be compiled at all);
* behaviour: the spec plays ``--fights`` seeded fights against the heuristic
  (and the heuristic plays the same fights as the reference); the metric of each
  expected behaviour must move the expected way (``more`` / ``less``):
  ``first:ROLE`` / ``first:NAME`` (share of fights whose side's first attack
  targets an enemy with that role tag / creature name), ``shared`` (share of the
  side's attacks on its current common target: the target of its first attack,
  then, when that one falls, of the next attack), ``mate`` (share of
  the other allies' attacks on the target of Norg's last attack), ``distance``
  (mean feet to the nearest enemy at the start of a turn), ``aoo`` (attacks of
  opportunity taken per fight), ``charges``, ``withdraws``, ``total_defense``,
  ``moves`` (per fight), ``flanking`` (share of attacks made from a flanking
  square, when the square is known), ``cover`` (at the start of a turn, the
  share of the enemies with a ranged attack the actor's square has cover from),
  ``defense_before_contact`` (total defenses per fight before the side's first
  contact), ``col`` (mean column of the actor's square at the start of a turn:
  a zone kept).

A text passes when all four hold. Prints one line per text and the totals.

Usage: ``uv run python bench/bench_strategy_devset.py [--set FILE] [--model MODEL]
[--fights N] [--only I]`` (``--model replay:cassettes/strategy_devset_qwen15.json``
replays the recorded compilations; ``--record CASSETTE`` records them; the held-out
set: ``--set bench/strategy_heldout.yaml``, cassette
``cassettes/strategy_heldout_qwen15.json``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from engine.content.creatures import load_combatant  # noqa: E402
from engine.content.maps import load_map  # noqa: E402
from engine.run.runner import play_fight  # noqa: E402
from engine.state.encounter import Encounter, build_encounter  # noqa: E402
from harness.encounter_file import load_encounter_file  # noqa: E402
from harness.models import RecordingModel, open_model  # noqa: E402
from harness.strategy_compile import roster_of  # noqa: E402
from harness.transcript import lines  # noqa: E402
from policies import HeuristicPolicy  # noqa: E402
from policies.strategy import StrategyPolicy, StrategySpec, role_tags  # noqa: E402
from policies.strategy_compile import StrategyCompileError, compile_text  # noqa: E402

DEVSET = ROOT / "bench" / "strategy_devset.yaml"
ENCOUNTER = ROOT / "bench" / "devset" / "encounter.yaml"
SIDE = "players"
MATE = "norg"
CASSETTE15 = ROOT / "cassettes" / "strategy_devset_qwen15.json"


def load_devset(path: Path = DEVSET) -> list[dict[str, Any]]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def encounter() -> Encounter:
    loaded = load_encounter_file(ENCOUNTER)
    gmap = load_map(loaded.map_path)
    sides = [(n, [load_combatant(f) for f, _ in m]) for n, m in loaded.sides]
    return build_encounter(gmap, sides)


def _fold(text: str) -> str:
    bare = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in bare if not unicodedata.combining(ch))


class Watch:
    """Wraps our side's policy and measures what it does."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.c: Counter[str] = Counter()
        #: the sum over turns of the share of enemy shooters the actor has cover from
        self.covered = 0.0
        self.fights = 0
        self._fight: object = None

    def decide(self, obs: Any) -> Any:
        c = self.c
        if obs.fight_key != self._fight:
            self._fight = obs.fight_key
            self.fights += 1
            self.first = True
            self.focus: str | None = None
            self.last: dict[str, str] = {}
            self.contact = False
            self.tags = role_tags(obs.combatants, {})
        me = obs.actor
        enemies = obs.enemies()
        allies = [a for a in obs.allies() if a.active]
        if not self.contact and (
            any(obs.threatened_at(a.cell, a.space) for a in (*allies, me))
            or any(obs.distance_ft(e.id) <= 5 for e in enemies)
        ):
            self.contact = True
        if enemies:
            c["turns"] += 1
            c["dist_sum"] += min(obs.distance_ft(e.id) for e in enemies)
            c["col_sum"] += me.cell % obs.map.width
            shooters = [e.id for e in enemies if any(not a.is_melee for a in e.attacks)]
            if shooters:
                c["cover_n"] += 1
                self.covered += sum(obs.cover_from(me.cell, s) > 0 for s in shooters) / len(
                    shooters
                )
        plan = self.inner.decide(obs)
        cell = me.cell
        moved = False
        for a in plan.actions:
            kind = a.kind
            c[kind] += 1
            if kind in ("move", "5foot_step"):
                dest = getattr(a, "destination", None)
                if dest is not None:
                    cell = dest[0] * obs.map.width + dest[1]
                else:
                    moved = True
            if kind == "total_defense" and not self.contact:
                c["defense_before_contact"] += 1
            if kind in ("attack", "full_attack", "charge") and a.target_id is not None:
                tid = a.target_id
                target = obs.combatant(tid)
                if self.first:
                    self.first = False
                    c[f"first:{target.static.profile.spec.name}"] += 1
                    for tag in self.tags.get(tid, ()):
                        c[f"first:{tag}"] += 1
                c["attacks"] += 1
                focus = self.focus
                if focus is None or not obs.combatant(focus).active:
                    self.focus = tid
                else:
                    c["shared_n"] += 1
                    c["shared"] += focus == tid
                mate = self.last.get(MATE)
                if me.id != MATE and mate is not None and obs.combatant(mate).active:
                    c["mate_n"] += 1
                    c["mate"] += mate == tid
                self.last[me.id] = tid
                if kind != "charge" and not moved:
                    c["flank_n"] += 1
                    c["flanking"] += obs.flanking_from(cell, tid)
        return plan


def play(
    spec: StrategySpec | None, fights: int, enc: Encounter, side: str = SIDE
) -> dict[str, float]:
    watch = Watch(HeuristicPolicy() if spec is None else StrategyPolicy(spec))
    aoo = 0
    ours = {p.id for p in enc.placements if p.side == side}
    other = next(s for s in enc.sides if s != side)
    for seed in range(1, fights + 1):
        result = play_fight(enc, seed, {side: watch, other: HeuristicPolicy()},
                            round_cap=30, record=True)  # fmt: skip
        for _round, _actor, message, _rolls in lines(result.log or ()):
            if "attaque d'opportunité contre " in message:
                victim = message.split("attaque d'opportunité contre ", 1)[1].split(" ", 1)[0]
                aoo += victim in ours
    c = watch.c
    n = max(1, watch.fights)
    out: dict[str, float] = {
        "shared": c["shared"] / max(1, c["shared_n"]),
        "mate": c["mate"] / max(1, c["mate_n"]),
        "distance": c["dist_sum"] / max(1, c["turns"]),
        "aoo": aoo / n,
        "charges": c["charge"] / n,
        "withdraws": c["withdraw"] / n,
        "total_defense": c["total_defense"] / n,
        "moves": c["move"] / n,
        "flanking": c["flanking"] / max(1, c["flank_n"]),
        "cover": watch.covered / max(1, c["cover_n"]),
        "defense_before_contact": c["defense_before_contact"] / n,
        "col": c["col_sum"] / max(1, c["turns"]),
    }
    for key, value in c.items():
        if key.startswith("first:"):
            out[key] = value / n
    return out


def unasked(spec: StrategySpec, expected: dict[str, Any]) -> list[str]:
    data = json.loads(spec.model_dump_json(exclude_defaults=True, exclude={"name"}))
    return sorted(k for k in data if k not in expected)


def right(spec: StrategySpec, expected: dict[str, Any]) -> tuple[int, list[str]]:
    data = json.loads(spec.model_dump_json(exclude_defaults=True, exclude={"name"}))
    wrong = [k for k, v in expected.items() if data.get(k, getattr(StrategySpec(), k, None)) != v]
    return len(expected) - len(wrong), wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--set",
        default=str(DEVSET.relative_to(ROOT)),
        help="the texts and their expectations (YAML, as strategy_devset.yaml)",
    )
    parser.add_argument("--model", default="local")
    parser.add_argument("--fights", type=int, default=20)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--record", help="record the compilations into this cassette")
    parser.add_argument("--only", type=int, nargs="*", help="texts by number (1-based)")
    args = parser.parse_args()
    kw = {"threads": args.threads} if args.threads else {}
    model: Any = open_model(args.model, **kw)
    if args.record:
        chosen = "" if Path(args.set).resolve() == DEVSET else f" --set {args.set}"
        command = f"uv run python bench/bench_strategy_devset.py{chosen} --record {args.record}"
        model = RecordingModel(model, Path(args.record), command)
    rosters = {side: roster_of(str(ENCOUNTER), side) for side in ("players", "monsters")}
    enc = encounter()
    bases = {side: play(None, args.fights, enc, side) for side in rosters}
    items = load_devset(Path(args.set))
    print(
        f"jeu : {args.set} ; modèle : {model.model_id} ; {len(items)} textes ; "
        f"{args.fights} combats par stratégie"
    )
    print(
        "| # | texte | clés justes | clés non demandées | non compris signalés "
        "| comportement (stratégie contre heuristique) | juste |"
    )
    print("|---|---|---|---|---|---|---|")
    totals = Counter()
    for i, item in enumerate(items, 1):
        if args.only and i not in args.only:
            continue
        text = item["text"]
        expected = item.get("fields", {})
        wanted_nc = item.get("not_understood", [])
        side = item.get("side", SIDE)
        roster, base = rosters[side], bases[side]
        start = time.perf_counter()
        try:
            compiled = compile_text(text, model, roster)
            refused = None
        except StrategyCompileError as err:
            compiled, refused = None, str(err)
        if args.record:
            model.save()
        secs = time.perf_counter() - start
        if compiled is None:
            reports = _fold(refused or "")
            ok_fields = bool(item.get("refused"))
            n_right, wrong, extra = (0, ["refus inattendu"], []) if not ok_fields else (0, [], [])
            behaviour_ok, shown = True, "—"
        else:
            reports = _fold(" ".join(compiled.not_understood))
            n_right, wrong = right(compiled.spec, expected)
            extra = unasked(compiled.spec, expected)
            ok_fields = not wrong and not item.get("refused")
            metrics = play(compiled.spec, args.fights, enc, side) if item.get("behaviour") else {}
            parts, behaviour_ok = [], True
            for metric, way in item.get("behaviour", []):
                got, ref = metrics.get(metric, 0.0), base.get(metric, 0.0)
                good = got > ref if way == "more" else got < ref
                behaviour_ok &= good
                parts.append(f"{metric} {got:.3g} vs {ref:.3g}{'' if good else ' ✗'}")
            shown = "; ".join(parts) or "—"
        nc_found = sum(_fold(w) in reports for w in wanted_nc)
        ok = ok_fields and not extra and nc_found == len(wanted_nc) and behaviour_ok
        totals["ok"] += ok
        totals["n"] += 1
        totals["fields"] += n_right
        totals["asked"] += len(expected)
        totals["unasked"] += len(extra)
        totals["nc"] += nc_found
        totals["nc_wanted"] += len(wanted_nc)
        totals["behaviour"] += behaviour_ok and compiled is not None and bool(item.get("behaviour"))
        totals["behaviour_n"] += bool(item.get("behaviour"))
        fields = f"{n_right}/{len(expected)}" + (f" ({', '.join(wrong)})" if wrong else "")
        if refused:
            fields += " (refusé)"
        verdict = "oui" if ok else "NON"
        row = f"| {i} | {text} | {fields} | {', '.join(extra) or 0} | {nc_found}/{len(wanted_nc)}"
        print(f"{row} | {shown} | {verdict} |", flush=True)
        print(f"<!-- {secs:.0f} s -->", file=sys.stderr, flush=True)
    t = totals
    print(
        f"\ntextes justes : {t['ok']}/{t['n']} = {t['ok'] / max(1, t['n']):.0%} ; clés justes : "
        f"{t['fields']}/{t['asked']} ; clés non demandées : {t['unasked']} ; non compris "
        f"signalés : {t['nc']}/{t['nc_wanted']} ; comportements attendus : "
        f"{t['behaviour']}/{t['behaviour_n']}"
    )


if __name__ == "__main__":
    main()
