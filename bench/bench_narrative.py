"""Faithfulness bench of the narrator: varied report objects, path, time, audit.

    uv sync --extra llm --extra qwen-1.5b
    uv run python bench/bench_narrative.py [--model local] [--threads N] [--only NAME]

For each report object of ``bench/report_samples.py`` (balanced, lopsided, many
draws, one-sided attrition, 3 and 4 sides, few runs, many facts…) it prints the
path that produced the text (``llm`` or ``gabarit``), the clauses the model chose,
the invalid answers, the time spent in the model and the words of the narrative.
Then an independent audit of what reaches the user (:func:`audit`):

* every number of the text is a value of the report object as the analysis
  formats it;
* every line is its fact's fixed sentence (template), or that sentence, « , ce
  qui » and a clause of the catalogue whose type the audit derives again from the
  report object itself (verdict and degree from the Wilson intervals, draws and
  their cause, length, the carrier's side against the favoured one…), not from
  the label the analysis gave the fact; no clause twice in a report;
* every word is a French word of the lexicon (``bench/lexicon.py``:
  pyspellchecker's French dictionary) or a name from the report.

Summary: path rates, invalid answers, audit, median and max time, words.

Time: each report starts from an empty KV cache, as a new ``pf1e-sim`` process
does; the system prompt's KV state is read from the file that the first run on
the machine saved (see ``LlamaCppModel._prime``), and the model's loading is
printed apart.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from lexicon import non_words, report_names  # noqa: E402
from report_samples import SAMPLES, build  # noqa: E402

from engine.run.stats import wilson_band  # noqa: E402
from harness.analysis import DEFAULT_THRESHOLDS, Analysis, Fact, analyse, fill  # noqa: E402
from harness.clauses import CLAUSES  # noqa: E402
from harness.models import open_model  # noqa: E402
from harness.narrative import PATH_LLM, narrate, template_narrative  # noqa: E402

NUMBER = re.compile(r"\d+(?:\.\d+)?%?")


def expected_type(fact: Fact, report: dict[str, Any]) -> str:
    """The clause type of ``fact``, derived again from the report object (not from the
    analysis' label): what the clause must be true of."""
    t = DEFAULT_THRESHOLDS
    runs = report["runs"]
    sides = report["sides"]
    band = {s["name"]: tuple(s.get("wilson_3sigma") or wilson_band(s["wins"], runs)) for s in sides}
    ranked = sorted(sides, key=lambda s: -s["rate"])
    top, rest = ranked[0], ranked[1:]
    favoured = (
        top["name"]
        if rest and all(band[top["name"]][0] > band[o["name"]][1] for o in rest)
        else None
    )
    draws = report["draws"]
    kind = fact.kind
    if kind == "verdict":
        if favoured is None:
            apart = any(
                band[a["name"]][0] > band[b["name"]][1] for a in sides for b in sides if a is not b
            )
            wide = any((hi - lo) / 2 > t.wide_band for lo, hi in band.values())
            return "verdict:indecis" if apart or wide else "verdict:equilibre"
        gap = top["rate"] - rest[0]["rate"]
        return "verdict:" + (
            "ecrasante"
            if gap >= t.crushing_margin
            else "nette"
            if gap >= t.clear_margin
            else "legere"
        )
    if kind == "draws":
        if draws["count"] == 0:
            return "nuls:aucun"
        if draws["rate"] < t.draws_frequent:
            return "nuls:rares"
        return "nuls:plafond" if draws["round_cap"] >= draws["mutual_knockout"] else "nuls:ko"
    if kind == "length":
        capped = draws["round_cap"]
        if capped / runs >= t.capped_length:
            return "duree:plafonnes"
        decided = runs - capped
        mean = (report["rounds"]["mean"] * runs - capped * report["round_cap"]) / decided
        return "duree:" + (
            "courts" if mean <= t.short_rounds else "longs" if mean >= t.long_rounds else "moyens"
        )
    if kind == "carry":
        if favoured is None:
            return "porteur:equilibre"
        return "porteur:favori" if fact.subjects[1] == favoured else "porteur:perdant"
    if kind == "melee":
        side = fact.subjects[0]
        never = all(c["melee_total"] == 0 for c in report["combatants"] if c["side"] == side)
        return "contact:jamais" if never else "contact:presque_jamais"
    if kind == "lever":
        return fact.id  # « levier:effectif »…: the lever's own id is its type
    return {
        "outsider": "outsider",
        "precision": "precision",
        "exposed": "expose",
        "one_sided": "sens_unique",
        "inactive": "inactif",
    }[kind]


def audit(report: dict[str, Any], story: Any) -> list[str]:
    """What is wrong with the narrative that reached the user (empty: nothing)."""
    a: Analysis = analyse(report)
    problems: list[str] = []
    allowed: set[str] = set()
    for value in a.values.values():
        allowed.update(NUMBER.findall(value))
    ids = {c["id"] for c in report["combatants"]}
    names = report_names(report)
    for line in story.lines:
        bare = line
        for name in sorted(ids, key=len, reverse=True):
            bare = bare.replace(name, " ")
        for n in NUMBER.findall(bare):
            if n not in allowed:
                problems.append(f"nombre inconnu {n!r} : {line}")
        for word in non_words(line, names):
            problems.append(f"mot hors lexique « {word} » : {line}")
    if len(story.lines) != len(a.facts):
        problems.append("nombre de lignes différent du nombre de faits")
    template = template_narrative(a)
    used: list[str] = []
    for line, fact, fixed in zip(story.lines, a.facts, template, strict=False):
        if story.path != PATH_LLM:
            if line != fixed:
                problems.append(f"ligne de gabarit altérée : {line}")
            continue
        head = fill(fact.head, a.values) + " "
        if not line.startswith(head) or not line.endswith("."):
            problems.append(f"début imposé absent : {line}")
            continue
        clause = line[len(head) : -1]
        kind = expected_type(fact, report)
        if clause not in {text for _id, text in CLAUSES[kind]}:
            problems.append(f"suite hors du catalogue de « {kind} » : {line}")
        used.append(clause)
    if len(set(used)) != len(used):
        problems.append("une même suite sur deux lignes")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", default="local")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--only", default=None, help="échantillons, séparés par des virgules")
    args = parser.parse_args()
    start = time.perf_counter()
    model = open_model(args.model, threads=args.threads)
    print(f"modèle {model.model_id} chargé en {time.perf_counter() - start:.1f} s")
    rows = []
    for sample in SAMPLES:
        if args.only and sample.name not in args.only.split(","):
            continue
        report = build(sample)
        # each report starts from an empty KV cache, as in a new `pf1e-sim` process
        # (the system prompt's state comes from the file an earlier run saved)
        reset = getattr(model, "reset", None)
        if reset is not None:
            reset()
        story = narrate(report, model)
        problems = audit(report, story)
        rows.append((sample.name, story, problems))
        print(
            f"{sample.name:28} {story.path:8} faits {len(story.lines):2} "
            f"appels {story.model_calls} {story.seconds:6.1f} s {story.words:4} mots  "
            f"audit {'OK' if not problems else 'ÉCHEC'}  {' '.join(story.choices)}",
            flush=True,
        )
        for r in story.rejections:
            print(f"    réponse invalide : {r.reason} |{r.text}")
        for p in problems:
            print(f"    AUDIT : {p}")
    n = len(rows)
    llm = [s for _n, s, _p in rows if s.path == PATH_LLM]
    invalid = sum(len(s.rejections) for _n, s, _p in rows)
    calls = sum(s.model_calls for _n, s, _p in rows)
    lines = sum(len(s.lines) for _n, s, _p in rows)
    print()
    print(f"rapports : {n} ({lines} lignes)")
    print(
        f"chemin LLM : {len(llm)}/{n} ({100 * len(llm) / n:.0f} %) ; gabarit : {n - len(llm)}/{n}"
    )
    print(f"réponses invalides : {invalid} sur {calls} appels")
    bad = sum(1 for _n, _s, p in rows if p)
    print(f"audit des textes livrés : {n - bad}/{n} sans défaut")
    print(f"  (nombres, suites du catalogue du bon type, mots du lexique : {lines} lignes)")
    seconds = [s.seconds for _n, s, _p in rows]
    print(
        f"temps par analyse : médiane {statistics.median(seconds):.1f} s, max {max(seconds):.1f} s"
    )
    print(f"mots par analyse : médiane {statistics.median(s.words for _n, s, _p in rows):.0f}")


if __name__ == "__main__":
    main()
