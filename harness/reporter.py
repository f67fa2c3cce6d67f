"""Reading a saved report object and opening the narrator's model.

``pf1e-sim report stats.json`` reads a ``pf1e-sim/report@1`` file written by
``--json``; a file that is not one is the user's mistake (French message, exit 2).
"""

from __future__ import annotations

from typing import Any, cast

from engine.content.validation import load_json, read_text, validate
from engine.core.errors import DataError
from engine.run.schemas import ReportModel
from harness.models import EMBEDDED, ModelSetupError, open_model
from policies.llm import ChatModel

MODEL_KINDS = ("local", "gguf", "openai", "replay")


def load_report(path: str) -> dict[str, Any]:
    """The report object in ``path``, checked against its schema.

    :raises DataError: unreadable file, not JSON, not a ``pf1e-sim/report@1`` object
        (strictly: types, ranges), or counts that do not fit together (see
        :class:`engine.run.schemas.ReportModel`).
    """
    text, source = read_text(path)
    return parse_report(text, source)


def parse_report(text: str, source: str | None = None) -> dict[str, Any]:
    """The report object in the JSON ``text`` (see :func:`load_report`)."""
    data = load_json(text, source)
    if not isinstance(data, dict) or data.get("schema") != "pf1e-sim/report@1":  # pyright: ignore[reportUnknownMemberType]
        raise DataError(
            "ce n'est pas un objet statistique pf1e-sim/report@1 (écrit par --json)",
            source=source,
        )
    report = cast(dict[str, Any], data)
    mirror = dict(report)
    mirror["schema_"] = mirror.pop("schema")
    # strict: every field the renderings read has its type, and the counts fit together
    validate(ReportModel, mirror, source)
    return report


def check_model_spec(spec: str) -> str:
    """The kind of a model string (``local``, ``gguf``…).

    :raises ModelSetupError: a string of no known form.
    """
    kind, _, arg = spec.partition(":")
    if kind not in MODEL_KINDS or (kind != "local" and not arg):
        raise ModelSetupError(
            f"modèle inconnu « {spec} » (formes : local, local:qwen-0.5b, gguf:CHEMIN, "
            "openai:MODELE, replay:CHEMIN)"
        )
    if kind == "local" and arg and arg not in EMBEDDED:
        raise ModelSetupError(f"modèle embarqué inconnu « {arg} » (choix : {', '.join(EMBEDDED)})")
    return kind


def open_narrator(spec: str) -> tuple[ChatModel | None, str | None]:
    """The narrator's model, or None and the French reason it is unavailable.

    A model string of an unknown form, or a cassette that cannot be read, is a
    user mistake (:class:`ModelSetupError`, exit 2). A model whose package or
    file is missing (the default install has no LLM extra) is not: the report
    then gets the template narrative, and says why.
    """
    kind = check_model_spec(spec)
    if kind == "replay":
        return open_model(spec), None
    try:
        return open_model(spec), None
    except ModelSetupError as err:
        return None, f"modèle {spec} indisponible : {err}"
