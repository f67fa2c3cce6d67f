"""Faithfulness bench of the narrator: varied report objects, path, time, checker verdicts.

    uv sync --extra llm --extra qwen-1.5b
    uv run python bench/bench_narrative.py [--model local] [--threads N] [--only NAME]

For each report object of ``bench/report_samples.py`` (balanced, lopsided, many
draws, one-sided attrition, 3 and 4 sides, few runs…) it prints the path that
produced the text (``llm`` or ``gabarit``), the lines regenerated, the checker's
rejections with their reasons, the time spent in the model and the words of the
narrative. Then an independent audit of what reaches the user: every number in
the final text must be a value of the report object as the analysis formats it
(or the ``3`` of « 3σ »), every line must start with its fact's fixed sentence,
and the checker must accept every line again. Summary: path rates, rejection
reasons, median time and words.

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
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from report_samples import SAMPLES, build  # noqa: E402

from harness.analysis import analyse, fill  # noqa: E402
from harness.models import open_model  # noqa: E402
from harness.narrative import PATH_LLM, Checker, narrate, template_narrative  # noqa: E402

NUMBER = re.compile(r"\d+(?:\.\d+)?%?")


def audit(report: dict, story) -> list[str]:
    """What is wrong with the narrative that reached the user (empty: nothing)."""
    a = analyse(report)
    problems: list[str] = []
    allowed = {"3"}  # « 3σ » in the fixed sentences
    for value in a.values.values():
        allowed.update(NUMBER.findall(value))
    for fact in a.facts:  # combatant ids such as goblin-2 carry digits of their own
        for name in fact.subjects:
            allowed.update(NUMBER.findall(name))
    ids = {c["id"] for c in report["combatants"]}
    for line in story.lines:
        bare = line
        for name in sorted(ids, key=len, reverse=True):
            bare = bare.replace(name, " ")
        for n in NUMBER.findall(bare):
            if n not in allowed:
                problems.append(f"nombre inconnu {n!r} : {line}")
    if len(story.lines) != len(a.facts):
        problems.append("nombre de lignes différent du nombre de faits")
    checker = Checker(a, report)
    template = template_narrative(a)
    for line, fact, fixed in zip(story.lines, a.facts, template, strict=False):
        if story.path != PATH_LLM:
            if line != fixed:
                problems.append(f"ligne de gabarit altérée : {line}")
            continue
        head = fill(fact.head, a.values)
        if not line.startswith(head):
            problems.append(f"début imposé absent : {line}")
            continue
        # the model's words, numbers put back as placeholders for the checker
        end = line[len(head) :].rstrip(".")
        for name, value in sorted(a.values.items(), key=lambda kv: -len(kv[1])):
            if name in fact.placeholders:
                end = end.replace(value, "{" + name + "}")
        reason = checker.check(fact, end)
        if reason is not None:
            problems.append(f"refusé par le vérificateur ({reason}) : {line}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--only", default=None)
    args = parser.parse_args()
    start = time.perf_counter()
    model = open_model(args.model, threads=args.threads)
    print(f"modèle {model.model_id} chargé en {time.perf_counter() - start:.1f} s")
    rows = []
    reasons: Counter[str] = Counter()
    for sample in SAMPLES:
        if args.only and sample.name != args.only:
            continue
        report = build(sample)
        # each report starts from an empty KV cache, as in a new `pf1e-sim` process
        # (the system prompt's state comes from the file an earlier run saved)
        reset = getattr(model, "reset", None)
        if reset is not None:
            reset()
        story = narrate(report, model)
        problems = audit(report, story)
        for r in story.rejections:
            reasons[r.reason.split(" « ")[0].split(" : ")[0]] += 1
        rows.append((sample.name, story, problems))
        print(
            f"{sample.name:28} {story.path:8} régénérées {story.regenerated} "
            f"rejets {len(story.rejections)} appels {story.model_calls:2} "
            f"{story.seconds:6.1f} s {story.words:4} mots  audit "
            f"{'OK' if not problems else 'ÉCHEC'}",
            flush=True,
        )
        for r in story.rejections:
            print(f"    rejet [{r.fact}] {r.reason} |{r.text}")
        for p in problems:
            print(f"    AUDIT : {p}")
    n = len(rows)
    llm = [s for _n, s, _p in rows if s.path == PATH_LLM]
    first_try = [s for s in llm if s.regenerated == 0]
    lines_total = sum(len(s.lines) for _n, s, _p in rows)
    rejected_lines = sum(len(s.rejections) for _n, s, _p in rows)
    print()
    print(f"rapports : {n}")
    print(f"chemin LLM : {len(llm)}/{n} ({100 * len(llm) / n:.0f} %), dont {len(first_try)} sans")
    print(f"  régénération ; gabarit : {n - len(llm)}/{n}")
    print(f"réponses rejetées par le vérificateur : {rejected_lines} (sur {lines_total} lignes)")
    for reason, count in reasons.most_common():
        print(f"  {count:3}  {reason}")
    bad = sum(1 for _n, _s, p in rows if p)
    print(f"audit des textes livrés : {n - bad}/{n} sans affirmation non vérifiée")
    seconds = [s.seconds for _n, s, _p in rows]
    print(
        f"temps par analyse : médiane {statistics.median(seconds):.1f} s, max {max(seconds):.1f} s"
    )
    print(
        f"mots par analyse : médiane {statistics.median(s.words for _n, s, _p in rows):.0f} "
        f"(LLM : {statistics.median(s.words for s in llm) if llm else 0:.0f})"
    )


if __name__ == "__main__":
    main()
