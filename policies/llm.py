"""LLM policy: a language model chooses one option of the legal-options menu.

The policy reaches a model only through the small :class:`ChatModel` protocol
defined here; the harness builds concrete models (embedded llama.cpp,
OpenAI-compatible HTTP, replay of a recorded session) and injects them.

Each turn the policy renders the prompt from Jinja2 templates in ``prompts/``
(the static rules first, identical for every combatant and turn, so a local
model can reuse its KV cache; then the combatant, the situation and the menu),
each option followed by the figures a player would weigh
(:mod:`policies.tactics`: chance to hit, expected damage, the target's hp left,
attacks of opportunity risked). How the model answers is the ``answer`` mode:

* ``"rating"`` (the default): the model sees the whole menu and rates each
  option in turn, one digit from 0 to 9 (one short question per option, the same
  prompt but its last line, so a local model reads the menu once); the
  best-rated option is played, and a tie goes to the figures (expected damage,
  then attacks of opportunity, then the stable id), never to a position. Measured
  with the tactics bench (README): the small models choose by position when they
  pick from a numbered list, not when they rate one option at a time;
* ``"number"``: the model picks one number of the menu, with fixed-width numbers
  (« 1 »…« 9 », or « 01 »…« 12 » in a menu of ten or more: no number is the
  start of another, so a grammar cannot extend one id into another), and writes
  a short rationale;
* ``"label"``: the same, but the model copies the option's text.

The answer is a JSON object constrained by a schema (an enum of the digits, the
numbers or the texts), validated with pydantic; the chosen option's actions are
played, and the transcript keeps the menu's stable ids. ``order_seed`` shows the
same options in another order (deterministic, seeded): the position-bias check
(:func:`position_bias`) asks again with it and compares the choices. Providers that
decode under a grammar also get the answer's forced start (``prefill``) and a
GBNF grammar of what follows; in the ``number`` and ``label`` modes they write the
short rationale as free text (see :class:`ChatRequest`).

An invalid or unusable answer gets one retry with the validation error in the
prompt; then the heuristic decides that turn and the fallback is counted with
its reason. After ``breaker_threshold`` fallbacks in
one fight the circuit breaker opens: the heuristic plays the rest of that fight
without calling the model. Nothing a model says can crash a fight or make an
illegal action reach the engine: every answer goes through
:mod:`policies.answers` (checked response, bounded JSON, cleaned rationale).

Identical requests (same model, messages and schema) are answered from a
decision cache without calling the model again.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import jinja2
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.content.actions import TurnPlan
from engine.state.conditions import CONDITIONS, TABLE_BITS
from engine.view.observation import Observation
from engine.view.snapshot import CombatantView
from policies.answers import AnswerError, clean_text, complete_checked, parse_json_answer
from policies.heuristic import HeuristicPolicy
from policies.tactics import Figures, dominated, option_figures, outclassed

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
#: longest rationale accepted, in characters
RATIONALE_MAX = 60
#: the forced start of every answer (see :data:`ChatRequest.prefill`)
PREFILL = '{"option_id": "'


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What is asked of a model. ``key()`` hashes only the semantic fields."""

    messages: tuple[ChatMessage, ...]
    json_schema: dict[str, Any] | None = None
    max_tokens: int = 96
    temperature: float = 0.0
    seed: int = 0
    #: For providers that decode under a grammar (llama.cpp), the same contract
    #: as ``json_schema`` in three parts: ``prefill``, the forced start of the
    #: answer, put in the prompt (read in one batch instead of generated token
    #: by token); ``grammar``, a GBNF grammar of what the model writes next;
    #: ``free_field``, ``(name, max_chars)`` of a trailing string field the
    #: model then writes without a grammar (checking a grammar against the whole
    #: vocabulary at every token doubles the cost of free text), which the
    #: provider escapes, truncates and closes into valid JSON.
    prefill: str = ""
    grammar: str | None = None
    free_field: tuple[str, int] | None = None
    #: strings that end the answer (not included in it), besides the end of turn
    stop: tuple[str, ...] = ()

    def key(self, model_id: str) -> str:
        payload: dict[str, Any] = {
            "model": model_id,
            "messages": [[m.role, m.content] for m in self.messages],
            "schema": self.json_schema,
            "prefill": self.prefill,
            "grammar": self.grammar,
            "free_field": self.free_field,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
        }
        if self.stop:  # only when set: the keys of older cassettes stay valid
            payload["stop"] = list(self.stop)
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class ChatResponse:
    """A model's answer. ``text`` is the whole answer, the prefill included."""

    text: str
    tokens_in: int
    tokens_out: int
    latency_s: float
    model: str
    #: prompt tokens the provider did not have to read again (KV prefix reuse)
    tokens_reused: int = 0
    #: the answer was cut by the token budget (None: not reported; then
    #: ``tokens_out >= max_tokens`` tells it)
    truncated: bool | None = None


class ChatModel(Protocol):
    """Anything that completes a chat request."""

    model_id: str

    def complete(self, request: ChatRequest) -> ChatResponse: ...


class ModelError(Exception):
    """A model could not answer (after the provider's own retries)."""


class Decision(BaseModel):
    """The JSON object the model must answer with."""

    model_config = ConfigDict(extra="forbid")

    option_id: str
    rationale: str | None = Field(default=None, max_length=RATIONALE_MAX)


@dataclass(slots=True)
class Telemetry:
    """Counters of LLM decisions; mergeable across processes.

    ``latencies`` are wall-clock measurements: they vary from run to run, unlike
    every other figure here.
    """

    decisions: int = 0
    model_calls: int = 0
    retries: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_reused: int = 0
    fallbacks: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def fallback(self, reason: str) -> None:
        self.fallbacks[reason] = self.fallbacks.get(reason, 0) + 1

    def merge(self, other: Telemetry) -> None:
        self.decisions += other.decisions
        self.model_calls += other.model_calls
        self.retries += other.retries
        self.cache_hits += other.cache_hits
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.tokens_reused += other.tokens_reused
        for k, v in other.fallbacks.items():
            self.fallbacks[k] = self.fallbacks.get(k, 0) + v
        self.latencies += other.latencies

    def to_dict(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else None
        return {
            "decisions": self.decisions,
            "model_calls": self.model_calls,
            "retries": self.retries,
            "cache_hits": self.cache_hits,
            "fallbacks": dict(sorted(self.fallbacks.items())),
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "tokens_reused": self.tokens_reused,
            "latency_p50_s": statistics.median(lat) if lat else None,
            "latency_p95_s": p95,
        }


def prompt_environment() -> jinja2.Environment:
    """The Jinja2 environment of every prompt template (``prompts/``)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPTS)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def decision_schema(option_ids: list[str]) -> dict[str, Any]:
    """JSON Schema of the answer: an option id from the menu, an optional rationale."""
    return {
        "type": "object",
        "properties": {
            "option_id": {"type": "string", "enum": option_ids},
            "rationale": {"type": "string", "maxLength": RATIONALE_MAX},
        },
        "required": ["option_id"],
        "additionalProperties": False,
    }


def decision_grammar(option_ids: list[str]) -> str:
    """GBNF of what follows :data:`PREFILL`: one id of the menu and its closing quote.

    With the free ``rationale`` field written after it (see
    :attr:`ChatRequest.free_field`), the answer is a JSON object valid under
    :func:`decision_schema`.
    """
    ids = " | ".join(json.dumps(i, ensure_ascii=False) for i in option_ids)
    return f'root ::= id "\\""\nid ::= {ids}\n'


#: options not shown to the model by default. Measured with the embedded 1.5B
#: model on the quick start (one fight, 3 rounds): offered them, it delayed,
#: took total defense or waited on 15 decisions out of 15, and still 9 out of 9
#: with only total defense offered; without them it shoots from round 2. Scripted
#: policies and the Observation keep the whole menu; ``hidden_kinds=frozenset()``
#: shows everything to a stronger model. ``repair_weapon`` (a misfired firearm),
#: ``hide`` and ``tumble`` (Stealth and Acrobatics) are niche tactical options
#: hidden the same way, which also keeps the prompts of the recorded cassettes
#: unchanged. So are ``ready`` and ``aid_another`` (readied attacks, aiding an
#: ally): niche options the small model would pick instead of attacking. The
#: ``coup_de_grace`` is shown: it is offered only next to a helpless enemy, where
#: it is the decisive option (its figures: a sure hit, the critical damage).
HIDDEN_KINDS = frozenset(
    {
        "delay",
        "drop_prone",
        "defensive_full_attack",
        "total_defense",
        "repair_weapon",
        "hide",
        "tumble",
        "ready",
        "aid_another",
    }
)


def conditions_text(view: CombatantView) -> str:
    """A combatant's conditions in French for the prompt (« secoué 2 rounds,
    à terre »; empty without any, which leaves the prompt as it was)."""
    if not view.effects.cond & TABLE_BITS:
        return ""
    parts: list[str] = []
    for state in view.condition_states():
        label = CONDITIONS[state["name"]].label
        left = state["rounds_left"]
        parts.append(label if left is None else f"{label} {left} round{'s' if left > 1 else ''}")
    return ", ".join(parts)


def shown_options(
    obs: Observation, hidden: frozenset[str], order_seed: int | None = None
) -> tuple[Any, ...]:
    """The menu as the model sees it: ``obs.legal_options`` minus ``hidden`` kinds
    and minus the options another one does better (:func:`policies.tactics.dominated`,
    then :func:`policies.tactics.outclassed` on the figures), best first
    (:func:`best_first`), or shuffled by ``order_seed`` (:func:`reorder`)."""
    kept = tuple(o for o in obs.legal_options if o.id.split(":")[0] not in hidden)
    worse = dominated(kept)
    kept = tuple(o for o in kept if o.id not in worse)
    figures = {o.id: option_figures(obs, o) for o in kept}
    worse = outclassed(obs, kept, figures)
    kept = tuple(o for o in kept if o.id not in worse)
    if order_seed is not None:
        return reorder(kept, obs, order_seed)
    return best_first(obs, kept, [figures[o.id] for o in kept])


def _worth(f: Figures) -> tuple[float, int]:
    """Sort key of an option by its figures, best first: more expected damage,
    then fewer attacks of opportunity risked."""
    return -round(f.damage, 9), len(f.provokes)


def best_first(
    obs: Observation, options: tuple[Any, ...], figures: list[Figures] | None = None
) -> tuple[Any, ...]:
    """The attacking options by expected damage, highest first (fewer attacks of
    opportunity risked first on a tie), then the others in the menu's order.

    A model that reads the figures has the best shot first; one that plays a
    position is caught by the position-bias check, which shuffles this order.
    ``figures``: the options' figures, in their order, when the caller has them.
    """
    if figures is None:
        figures = [option_figures(obs, o) for o in options]
    ranked = sorted(
        (i for i, f in enumerate(figures) if f.target is not None),
        key=lambda i: (*_worth(figures[i]), i),
    )
    rest = [i for i, f in enumerate(figures) if f.target is None]
    return tuple(options[i] for i in (*ranked, *rest))


def reorder(options: tuple[Any, ...], obs: Observation, seed: int) -> tuple[Any, ...]:
    """``options`` in another order, the same for the same situation and seed
    (never the menu's own order when there are two options or more)."""
    if len(options) < 2:
        return options
    key = f"{seed}|{obs.fight_key}|{obs.round}|{obs.acting_id}|{[o.id for o in options]}"
    rng = random.Random(hashlib.sha256(key.encode("utf-8")).hexdigest())
    shuffled = list(options)
    while shuffled == list(options):
        rng.shuffle(shuffled)
    return tuple(shuffled)


#: how the model answers (see the module docstring): it rates every option
#: (``rating``), or names the one it chooses by the menu's number (``number``) or
#: by copying its text (``label``; :func:`answer_keys`)
ANSWER_MODES = ("number", "label", "rating")
#: the forced start of a rating answer (``answer="rating"``)
RATING_PREFILL = '{"note": "'
#: a rating is one digit: 0 (the worst) to 9 (the best)
RATINGS = tuple(str(d) for d in range(10))


def rating_schema() -> dict[str, Any]:
    """JSON Schema of a rating answer: ``{"note": "0"…"9"}``."""
    return {
        "type": "object",
        "properties": {"note": {"type": "string", "enum": list(RATINGS)}},
        "required": ["note"],
        "additionalProperties": False,
    }


#: GBNF of what follows :data:`RATING_PREFILL`: a digit and the end of the object
RATING_GRAMMAR = 'root ::= [0-9] "\\"}"\n'


def _parse_rating(text: str) -> int | str:
    """The rating of an answer, or a French description of what is wrong."""
    try:
        data = parse_json_answer(text)
    except AnswerError as err:
        return str(err)
    note = data.get("note") if isinstance(data, dict) and len(data) == 1 else None  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    if not isinstance(note, str) or note not in RATINGS:
        return 'la réponse doit être {"note": "<un chiffre de 0 à 9>"}'
    return int(note)


def answer_keys(options: tuple[Any, ...], mode: str) -> list[str]:
    """What the model writes to choose each option: its number in the menu
    (:func:`option_ids`), or its text (``label``), made unique by a rank in
    brackets when two options read the same.

    >>> from engine.content.actions import Option
    >>> answer_keys((Option("a", "attendre", ()), Option("b", "attendre", ())), "label")
    ['attendre', 'attendre [2]']
    """
    if mode == "number":
        return option_ids(len(options))
    keys: list[str] = []
    for o in options:
        key, rank = o.label, 1
        while key in keys:
            rank += 1
            key = f"{o.label} [{rank}]"
        keys.append(key)
    return keys


def option_ids(count: int) -> list[str]:
    """The numbers the model sees: fixed width, so that no id is the start of another.

    >>> option_ids(3), option_ids(11)[:2], option_ids(11)[-1]
    (['1', '2', '3'], ['01', '02'], '11')
    """
    width = len(str(count))
    return [f"{i:0{width}d}" for i in range(1, count + 1)]


class LLMPolicy:
    """Chooses among the legal options with a :class:`ChatModel`."""

    name = "llm"
    #: the rationale of each decision is written in the transcript
    explain = True

    def __init__(
        self,
        model: ChatModel,
        *,
        retries: int = 1,
        breaker_threshold: int = 3,
        max_tokens: int = 48,
        seed: int = 0,
        hidden_kinds: frozenset[str] = HIDDEN_KINDS,
        order_seed: int | None = None,
        answer: str = "rating",
    ) -> None:
        if answer not in ANSWER_MODES:
            raise ValueError(f"answer: {answer!r} not in {ANSWER_MODES}")
        self.model = model
        #: ``rating`` (every option rated), ``number`` or ``label`` (one named)
        self.answer = answer
        #: shows the options in a seeded order (the position-bias check)
        self.order_seed = order_seed
        self.retries = retries
        self.breaker_threshold = breaker_threshold
        self.max_tokens = max_tokens
        self.seed = seed
        self.hidden_kinds = hidden_kinds
        self.telemetry = Telemetry()
        self._fallback = HeuristicPolicy()
        self._cache: dict[str, Any] = {}
        self._env = prompt_environment()
        self._system: str | None = None
        self._fight: object = None
        self._fight_fallbacks = 0

    # -- prompt -----------------------------------------------------------------
    def messages(
        self,
        obs: Observation,
        error: str | None = None,
        options: tuple[Any, ...] | None = None,
        rate: Any = None,
        figures: list[Figures] | None = None,
    ) -> tuple[ChatMessage, ...]:
        """The prompt of one decision over ``options`` (default: :meth:`options`);
        with ``rate`` (``answer="rating"``), the question that rates that option.
        ``figures``: the options' figures, in their order, when the caller has them."""
        if options is None:
            options = self.options(obs)
        me = obs.actor
        profile = {
            "id": me.id,
            "name": me.name,
            "side": me.side,
            "hp_max": me.hp_max,
            "ac": me.ac.total,
            "speed": me.speed_effective_ft,
            "attacks": [
                {
                    "id": a.id,
                    "name": a.name,
                    "bonus": a.attack_bonus,
                    "damage": " + ".join(d.formula for d in a.spec.damage),
                    "range": a.range_increment_ft,
                    "reach": a.reach_ft,
                }
                for a in me.attacks
            ],
        }
        # The system message is the same for every combatant and every turn, so a
        # local model reuses its KV cache for it across calls.
        system = self._system or self._env.get_template("tactics/system.j2").render(
            answer=self.answer
        )
        self._system = system

        def brief(c: Any) -> dict[str, Any]:
            pair = obs.pair(c.id)
            return {
                "id": c.id,
                "hp": c.hp,
                "hp_max": c.hp_max,
                "ac": c.ac.total,
                "distance": pair.distance_ft,
                "threatens": pair.target_threatens_me,
                "conditions": conditions_text(c),
            }

        keys = answer_keys(options, self.answer)
        if figures is None:
            figures = [option_figures(obs, o) for o in options]
        user = self._env.get_template("tactics/turn.j2").render(
            round=obs.round,
            me={**profile, "hp": me.hp, "pos": me.pos, "conditions": conditions_text(me)},
            last_results=[r.to_dict() for r in obs.last_turn_results],
            allies=[brief(c) for c in obs.allies()],
            enemies=[brief(c) for c in obs.enemies()],
            # the model sees the options by number (one or two tokens to write);
            # the transcript keeps the menu's own stable ids
            options=[
                {"id": i, "label": o.label, "figures": f.text()}
                for i, o, f in zip(keys, options, figures, strict=True)
            ],
            answer=self.answer,
            rate=next((k for k, o in zip(keys, options, strict=True) if o is rate), None),
            error=error,
        )
        return (ChatMessage("system", system), ChatMessage("user", user))

    def options(self, obs: Observation) -> tuple[Any, ...]:
        """The options shown to the model, in the order it sees them."""
        return shown_options(obs, self.hidden_kinds, self.order_seed)

    # -- decision ---------------------------------------------------------------
    def _heuristic(self, obs: Observation, reason: str) -> TurnPlan:
        self.telemetry.fallback(reason)
        self._fight_fallbacks += 1
        plan = self._fallback.decide(obs)
        return TurnPlan(plan.actions, f"repli heuristique ({reason}) : {plan.rationale}")

    def decide(self, obs: Observation) -> TurnPlan:
        if obs.fight_key != self._fight:
            self._fight, self._fight_fallbacks = obs.fight_key, 0
        self.telemetry.decisions += 1
        if self._fight_fallbacks >= self.breaker_threshold:
            return self._heuristic(obs, "circuit_breaker")
        chosen = self.choose(obs)
        if isinstance(chosen, str):
            return self._heuristic(obs, chosen)
        option, rationale = chosen
        # the plan played is the chosen option's, action for action
        return TurnPlan(option.actions, f"{option.id} — {rationale or option.label}")

    def choose(self, obs: Observation) -> tuple[Any, str | None] | str:
        """The option the model chooses and its rationale, or why there is none
        (``model_error``, ``invalid_output``): one call, and the retries (with
        ``answer="rating"``, one call per option, :meth:`_choose_by_rating`)."""
        options = self.options(obs)
        if self.answer == "rating":
            return self._choose_by_rating(obs, options)
        ids = answer_keys(options, self.answer)
        schema = decision_schema(ids)
        grammar = decision_grammar(ids)

        def request(error: str | None) -> ChatRequest:
            return ChatRequest(
                self.messages(obs, error, options),
                schema,
                self.max_tokens,
                0.0,
                self.seed,
                prefill=PREFILL,
                grammar=grammar,
                free_field=("rationale", RATIONALE_MAX),
            )

        got = self._call(request, lambda text: _parse(text, ids))
        if isinstance(got, str):
            return got
        option_id, rationale = got[0]
        return options[ids.index(option_id)], rationale

    def _choose_by_rating(
        self, obs: Observation, options: tuple[Any, ...]
    ) -> tuple[Any, str | None] | str:
        """The best-rated option: the model sees the whole menu and rates each
        option in turn, one digit from 0 to 9 (the same prompt but its last line,
        so a local model reads the menu once); the highest rating wins, and a tie
        goes to the most expected damage, then the fewest attacks of opportunity,
        then the stable id — never to a position in the menu. A menu of a single
        option is played without asking."""
        if len(options) == 1:
            return options[0], None
        figures = [option_figures(obs, o) for o in options]
        ratings: list[int] = []
        for option in options:

            def request(error: str | None, option: Any = option) -> ChatRequest:
                return ChatRequest(
                    self.messages(obs, error, options, rate=option, figures=figures),
                    rating_schema(),
                    self.max_tokens,
                    0.0,
                    self.seed,
                    prefill=RATING_PREFILL,
                    grammar=RATING_GRAMMAR,
                )

            got = self._call(request, _parse_rating)
            if isinstance(got, str):
                return got
            ratings.append(got[0])
        best = min(
            range(len(options)),
            key=lambda i: (-ratings[i], *_worth(figures[i]), options[i].id),
        )
        others = ", ".join(str(r) for i, r in enumerate(ratings) if i != best)
        return options[best], f"note {ratings[best]}/9 (autres : {others})"

    def _call(
        self, request: Callable[[str | None], ChatRequest], parse: Callable[[str], Any]
    ) -> tuple[Any] | str:
        """``(value,)``, the parsed answer to ``request(error)``, or why there is none
        (``model_error``, ``invalid_output``). ``parse`` returns the value or, as a
        string, what is wrong with the answer: the next try gets it as ``error``,
        up to :attr:`retries` times. Parsed answers are cached by request key."""
        error: str | None = None
        for attempt in range(self.retries + 1):
            req = request(error)
            key = req.key(self.model.model_id)
            if key in self._cache:
                self.telemetry.cache_hits += 1
                return (self._cache[key],)
            try:
                response = complete_checked(self.model, req)
            except ModelError:
                return "model_error"
            self.telemetry.model_calls += 1
            self.telemetry.tokens_in += response.tokens_in
            self.telemetry.tokens_out += response.tokens_out
            self.telemetry.tokens_reused += response.tokens_reused
            self.telemetry.latencies.append(response.latency_s)
            parsed = parse(response.text)
            if isinstance(parsed, str):
                error = parsed
                if attempt < self.retries:
                    self.telemetry.retries += 1
                continue
            self._cache[key] = parsed
            return (parsed,)
        return "invalid_output"


@dataclass(frozen=True, slots=True)
class BiasCheck:
    """The same situations asked in the menu's order and in a shuffled one."""

    #: per situation, the stable id chosen in each order (None: no valid answer)
    choices: tuple[tuple[str | None, str | None], ...]

    @property
    def compared(self) -> int:
        """Situations where both orders got a valid answer."""
        return sum(1 for a, b in self.choices if a is not None and b is not None)

    @property
    def agreements(self) -> int:
        return sum(1 for a, b in self.choices if a is not None and a == b)

    @property
    def rate(self) -> float | None:
        return self.agreements / self.compared if self.compared else None


def position_bias(
    model: ChatModel,
    observations: list[Observation],
    *,
    seed: int = 1,
    known: list[str | None] | None = None,
    **policy: Any,
) -> BiasCheck:
    """Ask ``model`` about each situation twice, with the options in the menu's
    order and shuffled (:func:`reorder` with ``seed``), and compare the stable ids
    chosen: a model that reads the options chooses the same one. ``known``: the
    choices already made in the menu's order (a fight's decisions), not asked
    again. ``policy``: the other :class:`LLMPolicy` settings (``max_tokens``…).

    A situation whose menu shows a single option cannot be reordered: it is left
    out (neither asked nor compared), so that it cannot count as an agreement."""

    def ask(p: LLMPolicy, obs: Observation) -> str | None:
        got = p.choose(obs)
        return None if isinstance(got, str) else got[0].id

    plain = LLMPolicy(model, **policy)
    shuffled = LLMPolicy(model, order_seed=seed, **policy)
    if known is None:
        known = [ask(plain, obs) if len(plain.options(obs)) > 1 else None for obs in observations]
    return BiasCheck(
        tuple(
            (a, ask(shuffled, obs)) if len(plain.options(obs)) > 1 else (None, None)
            for a, obs in zip(known, observations, strict=True)
        )
    )


def _parse(text: str, ids: list[str]) -> tuple[str, str | None] | str:
    """``(option_id, rationale)`` or a French description of what is wrong.

    The answer is read within bounds (:func:`~policies.answers.parse_json_answer`)
    and the rationale, shown in the transcript, is cleaned of control characters
    and terminal escapes (:func:`~policies.answers.clean_text`).
    """
    try:
        data = parse_json_answer(text)
    except AnswerError as err:
        return str(err)
    try:
        decision = Decision.model_validate(data)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(x) for x in first.get("loc", ())) or "réponse"
        return f"champ « {_quote(where)} » invalide ({first.get('type')})"
    if decision.option_id not in ids:
        return f"« {_quote(decision.option_id)} » n'est pas un identifiant du menu"
    rationale = clean_text(decision.rationale).strip() if decision.rationale else None
    return decision.option_id, rationale or None


def _quote(text: str, limit: int = 60) -> str:
    """Model text quoted in the retry prompt: cleaned, and cut when long."""
    text = clean_text(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"
