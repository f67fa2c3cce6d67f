"""The « Analyse » section: a French narrative of a report that cannot state a false clause.

How a false statement is kept out:

1. :func:`harness.analysis.analyse` decides every fact deterministically (verdict
   from the Wilson intervals, draws, length, attrition, anomalies, levers), each
   a fixed French sentence whose numbers are placeholders filled from the report
   object, with a *clause type* (its kind and direction: ``verdict:nette``,
   ``nuls:plafond``, ``porteur:perdant``…).
2. :mod:`harness.clauses` holds, for each clause type, vetted French
   continuations that are true whenever the analysis emits a fact of that type.
   Each fact is offered only the clauses of its type (:func:`harness.clauses.offers`:
   facts of one type share its clauses out, so no two lines end alike).
3. The model writes no text: it answers ONE JSON object for the whole report,
   ``{"choix": [id, id, …]}``, one clause id per fact in the facts' order. The
   answer is constrained: a GBNF grammar for llama.cpp, a JSON Schema with one
   enum per position for OpenAI-compatible servers. Each line is then the fact's
   sentence, « , ce qui » and the chosen clause.
4. An answer that is not such an object (a server without a grammar, a cut
   answer) is asked for once more (sampled, fixed seed); a second invalid answer,
   or a model error, gives the deterministic template narrative (the facts'
   own sentences). The report says which path produced the text, with which model.

Everything is deterministic given the model's outputs: temperature 0 then a fixed
seed, and cassettes replay exactly.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from harness.analysis import Analysis, Fact, analyse, fill
from harness.clauses import BY_ID, offers
from policies.answers import clean_text, complete_checked
from policies.llm import ChatMessage, ChatModel, ChatRequest, ModelError, prompt_environment

#: how many times the answer is asked for: greedy first, then sampled with a fixed seed
ATTEMPTS = 2
#: sampling of the second request after an invalid answer (fixed seed: deterministic)
RETRY_TEMPERATURE = 0.7
#: tokens of the answer per fact (an id, its quotes and the comma), and of its frame
TOKENS_PER_FACT = 6
FRAME_TOKENS = 12
#: the key of the answer's list
KEY = "choix"
#: the forced start of the answer (llama.cpp reads it with the prompt, in one batch)
PREFILL = '{"choix": ["'

PATH_LLM = "llm"
PATH_TEMPLATE = "gabarit"


@dataclass(frozen=True, slots=True)
class Rejection:
    """An answer the narrator refused: why (French), and the model's words."""

    fact: str
    reason: str
    text: str


@dataclass(slots=True)
class Narrative:
    """The narrative and how it was produced."""

    #: the final text, placeholders filled, one paragraph per fact
    lines: list[str]
    #: ``llm`` (the model chose every line's clause) or ``gabarit``
    path: str
    #: the model asked (None when none was available or asked)
    model: str | None
    #: why the template was used (None on the LLM path)
    reason: str | None = None
    #: answers asked for a second time after an invalid one
    regenerated: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    model_calls: int = 0
    #: wall-clock seconds spent in the model (measured; never printed in the report)
    seconds: float = 0.0
    #: the clause id chosen for each line (LLM path; empty for the template)
    choices: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    @property
    def words(self) -> int:
        return len(" ".join(self.lines).split())

    def provenance(self) -> str:
        """The French line that says which path and which model produced the text."""
        if self.path == PATH_LLM:
            extra = ", après une réponse invalide redemandée" if self.regenerated else ""
            how = "suites choisies parmi des phrases vérifiées"
            return f"Rédaction : modèle {self.model}, {how}{extra}."
        return f"Rédaction : gabarit déterministe ({self.reason})."

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "model": self.model,
            "reason": self.reason,
            "regenerated": self.regenerated,
            "choices": list(self.choices),
            "rejections": [
                {"fact": r.fact, "reason": r.reason, "text": r.text} for r in self.rejections
            ],
            "text": self.text,
        }


# -- the constrained answer ---------------------------------------------------------------
def options(analysis: Analysis) -> list[tuple[tuple[str, str], ...]]:
    """The ``(id, text)`` clauses offered to each fact of ``analysis``, in order."""
    return offers([f.clause for f in analysis.facts])


def answer_grammar(offered: list[tuple[tuple[str, str], ...]]) -> str:
    """GBNF of the answer after :data:`PREFILL` (llama.cpp): one offered id per position.

    >>> print(answer_grammar([(("VE1", "…"), ("VE2", "…")), (("NR1", "…"),)]))
    root ::= p0 "\\", \\"" p1 "\\"]}"
    p0 ::= "VE1" | "VE2"
    p1 ::= "NR1"
    <BLANKLINE>
    """
    positions = ' "\\", \\"" '.join(f"p{i}" for i in range(len(offered)))
    lines = [f'root ::= {positions} "\\"]}}"']
    for i, opts in enumerate(offered):
        lines.append(f"p{i} ::= " + " | ".join(f'"{cid}"' for cid, _ in opts))
    return "\n".join(lines) + "\n"


def answer_schema(offered: list[tuple[tuple[str, str], ...]]) -> dict[str, Any]:
    """JSON Schema of the answer (OpenAI-compatible servers): one enum per position."""
    n = len(offered)
    return {
        "type": "object",
        "properties": {
            KEY: {
                "type": "array",
                "prefixItems": [
                    {"type": "string", "enum": [cid for cid, _ in opts]} for opts in offered
                ],
                "minItems": n,
                "maxItems": n,
            }
        },
        "required": [KEY],
        "additionalProperties": False,
    }


def parse_answer(text: str, offered: list[tuple[tuple[str, str], ...]]) -> list[str] | str:
    """The chosen ids of an answer, or why it is invalid (French)."""
    try:
        data = json.loads(text)
    except ValueError:
        return "réponse qui n'est pas du JSON"
    if not isinstance(data, dict) or not isinstance(data.get(KEY), list):
        return f"réponse sans liste « {KEY} »"
    chosen = data[KEY]
    if len(chosen) != len(offered):
        return f"{len(chosen)} choix pour {len(offered)} faits"
    for i, (cid, opts) in enumerate(zip(chosen, offered, strict=True)):
        if not isinstance(cid, str) or cid not in {c for c, _ in opts}:
            return f"choix {i + 1} hors des suites proposées pour ce fait"
    # (facts of one type are offered disjoint clauses: the ids cannot repeat)
    ids: list[str] = chosen
    return ids


# -- the narrator -----------------------------------------------------------------------------
def template_narrative(analysis: Analysis) -> list[str]:
    """The deterministic French narrative: each fact's template sentence, filled."""
    return [fill(f.template, analysis.values) for f in analysis.facts]


def line(fact: Fact, clause_id: str) -> str:
    """The line of ``fact`` ended by the clause ``clause_id`` (placeholders unfilled)."""
    return f"{fact.head} {BY_ID[clause_id][1]}."


def messages(
    report: dict[str, Any], analysis: Analysis, offered: list[tuple[tuple[str, str], ...]]
) -> tuple[ChatMessage, ...]:
    """The narrator's prompt (``prompts/narrative/``): static rules first, then the facts."""
    env = prompt_environment()
    system = env.get_template("narrative/system.j2").render()
    user = env.get_template("narrative/facts.j2").render(
        map=report["map"],
        favoured=analysis.favoured,
        facts=[
            {"sentence": fill(f.opening, analysis.values), "options": opts}
            for f, opts in zip(analysis.facts, offered, strict=True)
        ],
    )
    return (ChatMessage("system", system), ChatMessage("user", user))


def narrate(
    report: dict[str, Any],
    model: ChatModel | None,
    *,
    seed: int = 0,
    unavailable: str | None = None,
    analysis: Analysis | None = None,
) -> Narrative:
    """The narrative of ``report``, its clauses chosen by ``model``, or the template.

    ``model`` None: the template, with ``unavailable`` (French) as the reason.
    A model error (after the provider's own retries) or two invalid answers also
    fall back to the template, with the reason.
    """
    a = analysis or analyse(report)
    if model is None:
        return Narrative(template_narrative(a), PATH_TEMPLATE, None, unavailable or "sans modèle")
    offered = options(a)
    chat = messages(report, a, offered)
    grammar = answer_grammar(offered)
    schema = answer_schema(offered)
    max_tokens = FRAME_TOKENS + TOKENS_PER_FACT * len(offered)
    narrative = Narrative([], PATH_LLM, model.model_id)
    start = time.perf_counter()
    for attempt in range(ATTEMPTS):
        request = ChatRequest(
            chat,
            schema,
            max_tokens,
            0.0 if attempt == 0 else RETRY_TEMPERATURE,
            seed + attempt,
            prefill=PREFILL,
            grammar=grammar,
        )
        try:
            response = complete_checked(model, request)
        except ModelError as err:
            narrative.seconds = time.perf_counter() - start
            why = clean_text(str(err))
            return _fallback(a, narrative, f"erreur du modèle {model.model_id} : {why}")
        narrative.model_calls += 1
        # llama.cpp answers after the prefill, and gives it back; a server, the whole object
        text = response.text
        if not text.lstrip().startswith("{"):
            text = PREFILL + text
        chosen = parse_answer(text, offered)
        if isinstance(chosen, list):
            narrative.seconds = time.perf_counter() - start
            narrative.choices = chosen
            narrative.lines = [
                fill(line(f, cid), a.values) for f, cid in zip(a.facts, chosen, strict=True)
            ]
            return narrative
        shown = clean_text(response.text)[:200]
        narrative.rejections.append(Rejection("réponse", chosen, shown))
        if attempt == 0:
            narrative.regenerated += 1
    narrative.seconds = time.perf_counter() - start
    last = narrative.rejections[-1]
    return _fallback(
        a,
        narrative,
        f"réponse du modèle {model.model_id} invalide {ATTEMPTS} fois : {last.reason}",
    )


def _fallback(a: Analysis, narrative: Narrative, reason: str) -> Narrative:
    narrative.lines = template_narrative(a)
    narrative.path = PATH_TEMPLATE
    narrative.reason = reason
    narrative.choices = []
    return narrative


def render_narrative(narrative: Narrative) -> str:
    """The « Analyse » section of the terminal report."""
    return "\n".join(["=== Analyse ===", *narrative.lines, "", narrative.provenance()]) + "\n"
