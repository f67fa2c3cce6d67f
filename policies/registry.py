"""Policy specifications: ``heuristic``, ``scripted:PATH``, ``strategy:PATH`` or
``llm[:MODEL]``, parsed and built.

A :class:`PolicySpec` is plain, picklable data (the script or strategy is already
loaded and validated), so worker processes can rebuild the same policies.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core.errors import DataError, suggestion
from policies.heuristic import HeuristicPolicy

if TYPE_CHECKING:
    # imported where they are used: a heuristic run never loads the LLM policy
    # (jinja2, pydantic models), the script or the strategy machinery
    from engine.turn.battle import Policy
    from policies.llm import ChatModel
    from policies.scripted import Script
    from policies.strategy import StrategySpec

KINDS = ("heuristic", "scripted", "strategy", "llm")


@dataclass(frozen=True, slots=True)
class PolicySpec:
    """Which policy plays, and with what script."""

    kind: str
    #: the file of a ``scripted`` or ``strategy`` policy
    script_path: str | None = None
    script: Script | None = None
    strategy: StrategySpec | None = None
    #: for ``llm``: the model string (``local``, ``gguf:PATH``, ``replay:PATH``…), or
    #: ``None`` for the run's default model
    model: str | None = None

    def __str__(self) -> str:
        if self.script_path is not None:
            return f"{self.kind}:{self.script_path}"
        if self.model is not None:
            return f"{self.kind}:{self.model}"
        return self.kind


HEURISTIC = PolicySpec("heuristic")


def parse_policy_spec(text: str, base_dir: Path | None = None) -> PolicySpec:
    """``heuristic``, ``scripted:PATH``, ``strategy:PATH`` or ``llm[:MODEL]`` (PATH
    relative to ``base_dir`` if given).

    :raises DataError: unknown policy, missing or invalid script or strategy.
    """
    kind, _, arg = text.strip().partition(":")
    if kind == "heuristic" and not arg:
        return HEURISTIC
    if kind == "scripted":
        if not arg:
            raise DataError("la politique « scripted » attend un fichier : scripted:CHEMIN.yaml")
        path = Path(arg)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        shown = os.path.normpath(path)
        from policies.scripted import load_script

        return PolicySpec("scripted", shown, load_script(shown))
    if kind == "strategy":
        if not arg:
            raise DataError("la politique « strategy » attend un fichier : strategy:CHEMIN.yaml")
        path = Path(arg)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        shown = os.path.normpath(path)
        from policies.strategy import load_strategy

        return PolicySpec("strategy", shown, strategy=load_strategy(shown))
    if kind == "llm":
        return PolicySpec("llm", model=arg or None)
    raise DataError(
        f"politique inconnue « {text} »{suggestion(kind, KINDS)} (choix : heuristic, "
        "scripted:CHEMIN, strategy:CHEMIN, llm, llm:MODELE)"
    )


def build_policy(
    spec: PolicySpec, model_factory: Callable[[str | None], ChatModel] | None = None
) -> Policy:
    """The policy object of a spec; ``llm`` needs the harness's ``model_factory``."""
    if spec.kind == "scripted":
        from policies.scripted import ScriptedPolicy

        assert spec.script is not None
        return ScriptedPolicy(spec.script)
    if spec.kind == "strategy":
        from policies.strategy import StrategyPolicy

        assert spec.strategy is not None
        return StrategyPolicy(spec.strategy)
    if spec.kind == "llm":
        if model_factory is None:
            raise DataError("la politique « llm » a besoin d'un modèle (--model)")
        from policies.llm import LLMPolicy

        return LLMPolicy(model_factory(spec.model))
    return HeuristicPolicy()
