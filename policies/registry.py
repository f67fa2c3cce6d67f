"""Policy specifications: ``heuristic`` or ``scripted:PATH``, parsed and built.

A :class:`PolicySpec` is plain, picklable data (the script is already loaded and
validated), so worker processes can rebuild the same policies.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.battle import Policy
from engine.errors import DataError, suggestion
from policies.heuristic import HeuristicPolicy
from policies.scripted import Script, ScriptedPolicy, load_script

KINDS = ("heuristic", "scripted")


@dataclass(frozen=True, slots=True)
class PolicySpec:
    """Which policy plays, and with what script."""

    kind: str
    script_path: str | None = None
    script: Script | None = None

    def __str__(self) -> str:
        return self.kind if self.script_path is None else f"{self.kind}:{self.script_path}"


HEURISTIC = PolicySpec("heuristic")


def parse_policy_spec(text: str, base_dir: Path | None = None) -> PolicySpec:
    """``heuristic`` or ``scripted:PATH`` (PATH relative to ``base_dir`` if given).

    :raises DataError: unknown policy, missing or invalid script.
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
        return PolicySpec("scripted", shown, load_script(shown))
    if kind == "llm":
        raise DataError(
            "la politique « llm » n'est pas encore disponible (choix : heuristic, scripted:CHEMIN)"
        )
    raise DataError(
        f"politique inconnue « {text} »{suggestion(kind, KINDS)} (choix : heuristic, "
        "scripted:CHEMIN)"
    )


def build_policy(spec: PolicySpec) -> Policy:
    if spec.kind == "scripted":
        assert spec.script is not None
        return ScriptedPolicy(spec.script)
    return HeuristicPolicy()
