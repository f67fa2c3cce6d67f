"""Compiling a natural-language strategy into a :class:`StrategySpec` with an LLM.

The text (French or English) is rendered into the prompt of
``prompts/strategy/`` (static part first), the model answers a JSON object
constrained by :func:`compile_schema`: first ``is_combat_strategy``, its verdict
on whether the text says anything about how to fight, then every field of the
side's tactics, each ``null`` when the text does not mention it (the default
applies; a null is cheaper to write than a guess, and an example copied from
the prompt then mostly copies nulls). Per-combatant ``roles`` are left to the
user, who can add them to the YAML. The answer is validated as a
:class:`StrategySpec`; an invalid answer gets one retry with the validation
error.

Three refusals, each a :class:`StrategyCompileError` (exit code 2 on the
command line):

1. before any model call, :func:`check_tactical`: a text without a single word
   of the fighting vocabulary (:data:`TACTICAL_WORDS`, French and English: to
   attack, shoot, target, enemy, charge, retreat, distance, hit points…) says
   nothing the spec can express. This deterministic test only lets texts
   through (a word is necessary, not sufficient), so it is broad: the small
   embedded model answers « a strategy » to nearly any text;
2. the model's verdict that the text is not a combat strategy;
3. an answer that sets no field away from its default (nothing the spec can
   express was recognised).

Named enemies (``focus``) must be written in the text: a name the model did not
copy from it (a target criterion such as ``most_dangerous``, an example of the
prompt) is dropped.

:func:`describe_strategy` renders a spec in plain French, so the user can check
the translation. :func:`cache_key` hashes (text, model, prompt) for the
harness's cache of compiled specs.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import Any

from pydantic import ValidationError

from engine.errors import Pf1eSimError
from policies.answers import MAX_ANSWER_CHARS, clean_text, complete_checked, parse_json_answer
from policies.llm import ChatMessage, ChatModel, ChatRequest, ModelError, prompt_environment
from policies.strategy import StrategySpec, Tactics

#: tokens of one answer (the full object is about 110 tokens)
MAX_TOKENS = 200


class StrategyCompileError(Pf1eSimError):
    """The text could not be turned into a strategy (French message)."""


#: the fighting vocabulary of :func:`check_tactical`: regular expressions matched at the
#: start of a word of the text, lowercased and without accents (French, then English)
TACTICAL_WORDS: tuple[str, ...] = (
    # French
    r"attaqu", r"frapp", r"tape[rz]?\b", r"cogn", r"tir(?:e|ez|er|s|eur|eurs)?\b",
    r"tu(?:e|ez|er)\b", r"abat", r"achev", r"cibl", r"vis(?:e|ez|er)\b", r"ennemi",
    r"adversaire", r"archer", r"arcs?\b", r"arbal", r"epee", r"armes?\b", r"melee",
    r"corps a corps", r"contact",
    r"charg", r"recul", r"retir", r"retraite", r"fui", r"fuy", r"repli", r"defen", r"proteg",
    r"distance", r"pieds?\b", r"metres?\b", r"cases?\b", r"menac", r"concentr", r"encercl",
    r"flanc", r"tenaille", r"position", r"ligne", r"avanc", r"approch", r"points? de vie",
    r"pv\b", r"bless", r"dangereu", r"proche", r"faible", r"combat", r"bataille", r"guerr",
    r"ten(?:ez|ir)\b", r"gard", r"engag", r"fonce",
    # English
    r"attack", r"hit\b", r"hits\b", r"strik", r"shoot", r"fire\b", r"kill", r"target",
    r"focus", r"enem", r"foe", r"opponent", r"bows?\b", r"sword", r"weapon", r"ranged?\b",
    r"retreat", r"withdraw", r"flee", r"fall back", r"back off", r"guard", r"protect",
    r"feet\b", r"foot\b", r"ft\b", r"squares?\b", r"threat", r"flank", r"gang", r"surround",
    r"hold", r"advanc", r"health", r"hit points?", r"hp\b", r"wound", r"weak",
    r"strong", r"danger", r"nearest", r"closest", r"fight", r"battle", r"ambush",
)  # fmt: skip
_TACTICAL = re.compile(r"\b(?:" + "|".join(TACTICAL_WORDS) + ")")


def _plain(text: str) -> str:
    """Lowercase, without accents, words separated by single spaces."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[^\w]+", " ", bare).split())


def check_tactical(text: str) -> None:
    """Refuse a text without one word of the fighting vocabulary (see module docstring).

    :raises StrategyCompileError: empty text, or no word of :data:`TACTICAL_WORDS`.
    """
    if not text.strip():
        raise StrategyCompileError("texte de stratégie vide")
    if _TACTICAL.search(_plain(text)) is None:
        raise StrategyCompileError(
            "ce texte n'est pas une stratégie de combat : aucun mot de combat reconnu (viser, "
            "attaquer, tirer, ennemi, charger, reculer, distance, points de vie…) ; décrivez "
            "comment votre camp doit se battre"
        )


def _written(name: str, plain_text: str) -> bool:
    """Whether a named enemy is written in the text (accents, case and a plural « s » aside)."""
    plain = _plain(name)
    return bool(plain) and (plain in plain_text or plain.removesuffix("s") in plain_text)


#: the answer's first field: the model's verdict that the text is about fighting
VERDICT = "is_combat_strategy"


def compile_schema() -> dict[str, Any]:
    """JSON Schema the model's answer is decoded under: the verdict, then the
    tactics fields, each also ``null``, all required, lists bounded, no roles
    (see module docstring)."""
    props = Tactics.model_json_schema()["properties"]
    out: dict[str, Any] = {VERDICT: {"type": "boolean"}}
    for name, prop in props.items():
        p = {k: v for k, v in prop.items() if k not in ("default", "title", "description")}
        if p.get("type") == "array":
            p["maxItems"] = 4
            if name == "focus":
                p["items"] = {"type": "string", "minLength": 1, "maxLength": 30}
        out[name] = {"anyOf": [p, {"type": "null"}]}
    return {
        "type": "object",
        "properties": out,
        "required": list(out),
        "additionalProperties": False,
    }


def messages(text: str) -> tuple[ChatMessage, ...]:
    env = prompt_environment()
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

    :raises StrategyCompileError: empty text, no word of combat in it
        (:func:`check_tactical`), no valid answer after the retries, not a combat
        strategy (the model's verdict), or nothing the spec can express.
    """
    check_tactical(text)
    base = messages(text)
    msgs = base
    schema = compile_schema()
    error = ""
    for _attempt in range(retries + 1):
        request = ChatRequest(msgs, json_schema=schema, max_tokens=MAX_TOKENS)
        try:
            answer = complete_checked(model, request).text
        except ModelError as err:
            raise StrategyCompileError(
                f"le modèle n'a pas répondu ({clean_text(str(err))}) ; réessayez ou essayez un "
                "autre modèle (--model)"
            ) from None
        try:
            data = parse_json_answer(answer)
            if not isinstance(data, dict) or not isinstance(data.get(VERDICT), bool):
                raise ValueError(f"not an object with a boolean {VERDICT}")
            unknown = sorted(k for k in data if k not in schema["properties"])
            if unknown:  # « name », « roles »: the user's, never the model's
                raise ValueError(f"unexpected field {clean_text(unknown[0])[:40]!r}")
            if not data[VERDICT]:
                raise StrategyCompileError(
                    "ce texte n'est pas une stratégie de combat (verdict du modèle) : décrivez "
                    "comment votre camp doit se battre (qui viser, à quelle distance, quand "
                    "charger, reculer ou se défendre…)"
                )
            said = {k: v for k, v in data.items() if k != VERDICT and v is not None}
            if isinstance(said.get("focus"), list):
                plain_text = _plain(text)
                said["focus"] = [  # shown to the user: cleaned (non-strings fail below)
                    clean_text(f) if isinstance(f, str) else f
                    for f in said["focus"]
                    if _written(str(f), plain_text)
                ]
            spec = StrategySpec.model_validate({"name": _title(text), **said})
        except (ValueError, ValidationError) as err:
            error = str(err).splitlines()[0]
            msgs = (
                *base,
                ChatMessage("assistant", answer[:MAX_ANSWER_CHARS]),
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
