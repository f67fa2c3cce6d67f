"""``pf1e-sim strategy compile``: a text → a strategy YAML, through the cache.

Compiled specs are cached as YAML under ``<cache>/strategies/<hash>.yaml``, the
hash of (text, model id, prompt and schema): the same text compiled again with
the same model and prompt costs no model call (the model is not even loaded).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.errors import DataError
from engine.validation import read_text
from harness.models import DEFAULT_EMBEDDED, ReplayModel, cache_dir, open_model
from harness.output import write_atomic
from policies.strategy import StrategySpec, dump_strategy, parse_strategy
from policies.strategy_compile import cache_key, check_tactical, compile_strategy


def model_id_of(spec: str) -> str:
    """The id a model string's model will report, without loading the model."""
    kind, _, arg = spec.partition(":")
    if kind == "local":
        return f"local:{arg or DEFAULT_EMBEDDED}"
    if kind == "gguf" and arg:
        return f"gguf:{Path(arg).name}"
    if kind == "replay" and arg:
        return ReplayModel(Path(arg)).model_id
    if kind == "openai" and arg:
        return f"openai:{arg}"
    return str(open_model(spec).model_id)  # raises the French error of an unknown form


def compile_cached(
    text: str, model: str, *, threads: int | None = None
) -> tuple[StrategySpec, bool]:
    """``(spec, from_cache)`` for ``text`` compiled by ``model`` (a model string).

    A text without a word of combat is refused before the model is even loaded.
    """
    check_tactical(text)
    key = cache_key(text, model_id_of(model))
    path = cache_dir() / "strategies" / f"{key}.yaml"
    if path.is_file():
        try:
            return parse_strategy(*read_text(path)), True
        except Exception:
            pass
    chat: Any = open_model(model)
    spec = compile_strategy(text, chat)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, dump_strategy(spec))
    except (OSError, DataError):
        pass  # the cache is an optimisation: a read-only cache costs a recompilation only
    return spec, False
