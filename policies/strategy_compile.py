"""Compiling a natural-language strategy into a :class:`StrategySpec` with an LLM.

The text (French or English) is rendered into the prompt of
``prompts/strategy/`` (static part first), the model answers a JSON object
constrained by :func:`compile_schema` (every field of the side's tactics, so the
grammar is short and the answer complete; per-combatant ``roles`` are left to
the user, who can add them to the YAML), the answer is validated as a
:class:`StrategySpec`. An invalid answer gets one retry with the validation
error; a spec equal to the defaults means the text said nothing the spec can
express, which is an error for the user (:class:`StrategyCompileError`).

:func:`describe_strategy` renders a spec in plain French, so the user can check
the translation. :func:`cache_key` hashes (text, model, prompt) for the
harness's cache of compiled specs.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import jinja2
from pydantic import ValidationError

from engine.errors import Pf1eSimError
from policies.llm import PROMPTS, ChatMessage, ChatModel, ChatRequest
from policies.strategy import StrategySpec, Tactics

#: tokens of one answer (the full object is about 110 tokens)
MAX_TOKENS = 200


class StrategyCompileError(Pf1eSimError):
    """The text could not be turned into a strategy (French message)."""


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPTS)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def compile_schema() -> dict[str, Any]:
    """JSON Schema the model's answer is decoded under: the tactics fields, all
    required, lists bounded, no roles (see module docstring)."""
    props = Tactics.model_json_schema()["properties"]
    out: dict[str, Any] = {}
    for name, prop in props.items():
        p = {k: v for k, v in prop.items() if k not in ("default", "title", "description")}
        if p.get("type") == "array":
            p["maxItems"] = 4
            if name == "focus":
                p["items"] = {"type": "string", "minLength": 1, "maxLength": 30}
        out[name] = p
    return {
        "type": "object",
        "properties": out,
        "required": list(out),
        "additionalProperties": False,
    }


def messages(text: str) -> tuple[ChatMessage, ...]:
    env = _env()
    system = env.get_template("strategy/system.j2").render()
    user = env.get_template("strategy/text.j2").render(text=text.strip())
    return (ChatMessage("system", system), ChatMessage("user", user))


def cache_key(text: str, model_id: str) -> str:
    """Hash of the text, the model and the whole prompt (template and schema)."""
    payload = {
        "text": text.strip(),
        "model": model_id,
        "messages": [[m.role, m.content] for m in messages(text)],
        "schema": compile_schema(),
    }
    data = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def compile_strategy(text: str, model: ChatModel, *, retries: int = 1) -> StrategySpec:
    """The spec the model reads in ``text``.

    :raises StrategyCompileError: empty text, no valid answer after the retries,
        or nothing the spec can express.
    """
    if not text.strip():
        raise StrategyCompileError("texte de stratégie vide")
    base = messages(text)
    msgs = base
    error = ""
    for _attempt in range(retries + 1):
        request = ChatRequest(msgs, json_schema=compile_schema(), max_tokens=MAX_TOKENS)
        answer = model.complete(request).text
        try:
            data = json.loads(answer)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            spec = StrategySpec.model_validate({"name": _title(text), **data})
        except (ValueError, ValidationError) as err:
            error = str(err).splitlines()[0]
            msgs = (
                *base,
                ChatMessage("assistant", answer),
                ChatMessage("user", f"Invalid answer ({error}). Answer again with valid JSON."),
            )
            continue
        if spec.model_dump(exclude={"name"}) == StrategySpec().model_dump(exclude={"name"}):
            raise StrategyCompileError(
                "texte non compris : aucune consigne de stratégie reconnue (cibles, distance, "
                "charge, retraite…) ; reformulez plus explicitement"
            )
        return spec
    raise StrategyCompileError(
        f"le modèle n'a pas produit de stratégie valide ({error}) ; reformulez le texte ou "
        "essayez un autre modèle (--model)"
    )


def _title(text: str) -> str:
    """The spec's name: the text on one line, cut at 80 characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= 80 else flat[:79].rstrip() + "…"


_TARGETS = {
    "nearest": "le plus proche",
    "weakest": "celui qui a le moins de points de vie",
    "most_wounded": "le plus blessé (en proportion)",
    "strongest": "celui qui a le plus de points de vie",
    "most_dangerous": "le plus dangereux",
    "ranged_first": "ceux qui attaquent à distance",
    "engaged": "ceux déjà au contact d'un allié",
}
_ENGAGEMENT = {
    "any": "toutes les armes, comme l'heuristique",
    "melee": "au contact seulement",
    "ranged": "à distance d'abord, sans charger",
}


def _tactics_fr(fields: dict[str, Any]) -> list[str]:
    """French phrases for the given tactics fields (absent or ``None``: not said)."""
    out: list[str] = []
    focus = fields.get("focus")
    if focus:
        out.append("vise d'abord : " + ", ".join(f"« {f} »" for f in focus))
    targets = fields.get("targets")
    if targets is not None:
        out.append("cibles par priorité : " + ", puis ".join(_TARGETS[c] for c in targets))
    if fields.get("focus_fire") is not None:
        out.append(
            "tir concentré sur une cible commune" if fields["focus_fire"] else "chacun sa cible"
        )
    engagement = fields.get("engagement")
    if engagement is not None:
        out.append(f"engagement : {_ENGAGEMENT[engagement]}")
    keep = fields.get("keep_distance_ft")
    if keep is not None:
        out.append(f"se retire si un ennemi est à moins de {keep} pieds" if keep else
                   "ne garde pas de distance")  # fmt: skip
    positioning = fields.get("positioning")
    if positioning is not None:
        out.append("tient sa position" if positioning == "hold" else "avance vers la cible")
    if fields.get("avoid_threatened"):
        out.append("ne s'arrête pas dans une case menacée sans attaquer")
    if fields.get("charge") is not None:
        out.append("charge autorisée" if fields["charge"] else "ne charge jamais")
    for key, what in (("retreat_below_hp_pct", "se retire"),
                      ("total_defense_below_hp_pct", "défense totale")):  # fmt: skip
        value = fields.get(key)
        if value:
            out.append(f"{what} sous {value} % de ses points de vie")
    return out


def describe_strategy(spec: StrategySpec) -> str:
    """The spec in plain French, one point per line (the user checks the translation)."""
    lines = [f"Stratégie « {spec.name} » :" if spec.name else "Stratégie :"]
    lines += [f"- {s}" for s in _tactics_fr(spec.model_dump(include=set(Tactics.model_fields)))]
    for ident, role in spec.roles.items():
        fields = {k: v for k, v in role.model_dump().items() if v is not None}
        lines.append(f"- rôle de {ident} : " + "; ".join(_tactics_fr(fields)))
    return "\n".join(lines) + "\n"
