"""Whatever a model answers, no exception escapes and nothing unclean reaches the user.

Model answers are thrown at every consumer through every provider path:

* random bytes (decoded with ``replace`` and with ``surrogateescape``, which
  leaves lone surrogates), random JSON values, decision-shaped objects with
  random fields, integers of thousands of digits, nesting a hundred thousand
  deep, terminal escapes (``\\x1b[31m``, the C1 CSI ``\\x9b``, OSC titles), BEL,
  CR, NUL, bidirectional overrides, lone surrogates, exceptions of any type;
* through the LLM policy playing real fights (a fake model, a replay cassette
  recorded from it, an OpenAI-compatible server faked at the HTTP transport):
  every action the engine receives is one of the legal options or the
  heuristic's, every fallback is counted, every transcript line is printable;
* through the strategy compiler and its command (exit 2, one French line, no
  file written), and the narrator (template fallback, clean lines).

The cassette loader is fuzzed like the map and combatant loaders
(``test_loader_properties.py``): a mutated cassette loads or is a
:class:`ModelSetupError`, and a loaded one answers or is a :class:`CassetteMissError`.
"""

from __future__ import annotations

import contextlib
import copy
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from builders import archer_vs_two as _encounter
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from harness.analysis import analyse
from harness.cli.main import main
from harness.models import (
    CASSETTE_SCHEMA,
    CassetteMissError,
    ModelSetupError,
    OpenAIModel,
    RecordingModel,
    ReplayModel,
)
from harness.narrative import PATH_LLM, PATH_TEMPLATE, narrate, render_narrative
from harness.report import render_transcript
from policies.answers import (
    MAX_RESPONSE_CHARS,
    AnswerError,
    clean_text,
    complete_checked,
    parse_json_answer,
)
from policies.heuristic import HeuristicPolicy
from policies.llm import PREFILL, ChatMessage, ChatRequest, ChatResponse, LLMPolicy, ModelError
from policies.strategy_compile import StrategyCompileError, compile_strategy

openai = pytest.importorskip("openai")
try:
    import httpx2 as httpx  # what openai 3 is built on
except ImportError:  # pragma: no cover - openai 1 and 2
    httpx = pytest.importorskip("httpx")
OPENAI_CLIENT = openai.OpenAI  # the real class, before a test replaces it

ROOT = Path(__file__).resolve().parent.parent
GOBLIN_CASSETTE = ROOT / "cassettes" / "goblin_vs_orcs_qwen05.json"
ECRASANT = json.loads((ROOT / "tests" / "reports" / "ecrasant.json").read_text(encoding="utf-8"))

PROPERTY = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --------------------------------------------------------------------------- answers

#: what a terminal would obey or choke on
NASTY = [
    "\x1b[31m", "\x1b[0m", "\x1b[2J", "\x9b2J", "\x07", "\r", "\x00", "\x08", "\x7f", "\x85",
    "\ud800", "\udcff", "\x1b]0;titre\x07", "\x1b]8;;http://x\x1b\\", "\x1bc", "\x90q\x9c",
    "\u202e", "\u2066", "\t", "\n", "\u2028", "\x1b",
]  # fmt: skip
NASTY_TEXT = st.lists(st.one_of(st.sampled_from(NASTY), st.text(max_size=6)), max_size=6).map(
    "".join
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    NASTY_TEXT,
    st.sampled_from(["1", "2", "3", "9", "10", "attendre", "", "is_combat_strategy"]),
)
KEYS = st.one_of(
    st.sampled_from(["option_id", "rationale", "note", "choices", "message"]), NASTY_TEXT
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=4)
    ),
    max_leaves=10,
)
DECISIONS = st.fixed_dictionaries(
    {"option_id": st.one_of(st.sampled_from([str(i) for i in range(12)]), JSON_VALUES)},
    optional={"rationale": st.one_of(NASTY_TEXT, JSON_VALUES)},
)
#: inputs that crashed the parsers or reached the terminal before issue 14
HUGE = [
    "1" * 10_000,
    "[" * 100_000,
    "{" * 50_000,
    '{"option_id": ' + "9" * 5000 + "}",
    '{"option_id": "1", "rationale": ' + "[" * 40 + "]" * 40 + "}",
    "-" + "1" * 4301,
    "1e999999",
    "NaN",
    '{"option_id": "1", "rationale": "\\u001b[31m\\ud800\\u0007"}',
    '{"option_id": "1", "rationale": "\\u009b2J\\r\\u202e"}',
    '{"option_id": "\\ud800", "rationale": "x"}',
    '{"\\ud800": 1}',
    '"' + "x" * 200_000 + '"',
    "\ufeff{}",
    "",
]


def _encode(text: str) -> bytes:
    """UTF-8, lone surrogates included (a server may send bytes that are not UTF-8)."""
    return text.encode("utf-8", "surrogatepass")


def _dumps(value: Any, ascii_only: bool) -> str:
    return json.dumps(value, ensure_ascii=ascii_only)


TEXT_ANSWERS = st.one_of(
    st.binary(max_size=120).map(lambda b: b.decode("utf-8", "replace")),
    st.binary(max_size=120).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.builds(_dumps, JSON_VALUES, st.booleans()),
    st.builds(_dumps, DECISIONS, st.booleans()),
    st.integers(0, len(HUGE) - 1).map(HUGE.__getitem__),  # (a short repr)
    NASTY_TEXT,
    # the prefill a grammar provider forces, then anything
    NASTY_TEXT.map(lambda t: PREFILL + t),
)

#: answers every provider passes on (longer ones are a ModelError, never recorded)
SHORT_ANSWERS = TEXT_ANSWERS.filter(lambda t: len(t) <= MAX_RESPONSE_CHARS)


class _NotAResponse:
    """What a broken provider might hand back instead of a ChatResponse."""


#: provider failures: exceptions of any type, objects of the wrong type, bad counts
FAILURES = st.sampled_from(
    [
        ModelError("délai dépassé \x1b[31m"),
        ValueError("boom"),
        KeyError("choices"),
        RecursionError(),
        AttributeError("content"),
        _NotAResponse(),
        None,
        ChatResponse(None, 1, 1, 0.0, "fake"),  # type: ignore[arg-type]
        ChatResponse("{}", -1, 1, 0.0, "fake"),
        ChatResponse("{}", True, 1, 0.0, "fake"),  # type: ignore[arg-type]
        ChatResponse("{}", 1, "9", 0.0, "fake"),  # type: ignore[arg-type]
    ]
)
REPLIES = st.one_of(TEXT_ANSWERS, TEXT_ANSWERS, FAILURES)


class FakeModel:
    """Answers the scripted replies in turn (a text, a response, or an exception raised)."""

    model_id = "fake:fuzz"

    def __init__(self, replies: list[Any], *, prefill: bool = False) -> None:
        self.replies = replies
        self.prefill = prefill
        self.calls = 0

    def complete(self, request: ChatRequest) -> Any:
        reply = self.replies[self.calls % len(self.replies)]
        self.calls += 1
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, str):
            return ChatResponse(
                (request.prefill if self.prefill else "") + reply, 10, 5, 0.0, self.model_id
            )
        return reply


def _clean(text: str) -> bool:
    """No control character (newlines aside), terminal escape or lone surrogate."""
    return clean_text(text, newlines=True) == text


def _line(text: str) -> bool:
    """One clean line."""
    return clean_text(text) == text


# --------------------------------------------------------------------------- the parser


@PROPERTY
@given(TEXT_ANSWERS)
@example("[" * 100_000)
@example("1" * 10_000)
def test_parse_json_answer_returns_a_value_or_a_french_answer_error(text):
    try:
        parse_json_answer(text)
    except AnswerError as err:
        assert str(err) and _clean(str(err))


def test_parse_json_answer_bounds_size_depth_and_numbers():
    assert parse_json_answer('{"a": [1, {"b": null}]}') == {"a": [1, {"b": None}]}
    assert parse_json_answer('"[[[[ not nesting"') == "[[[[ not nesting"
    for text, reason in [
        ("[" * 100_000, "trop longue"),
        ("[" * 10_000, "imbriqué"),
        ("[" * 33 + "]" * 33, "imbriqué"),
        ("1" * 10_000, "nombre trop grand"),
        ("{not json", "pas du JSON"),
        ("x" * 20_000, "trop longue"),
    ]:
        with pytest.raises(AnswerError, match=reason):
            parse_json_answer(text)
    assert parse_json_answer("[" * 32 + "]" * 32) is not None


@PROPERTY
@given(st.text(st.characters(codec=None), max_size=40) | NASTY_TEXT)
def test_clean_text_leaves_only_printable_text_and_keeps_ordinary_text(text):
    clean = clean_text(text)
    assert _line(clean)
    clean.encode("utf-8")
    assert clean_text(clean) == clean
    with_lines = clean_text(text, newlines=True)
    assert _clean(with_lines) and with_lines.count("\n") == text.count("\n")
    if text.isprintable():
        assert clean == text


def test_clean_text_strips_escapes_whole():
    assert clean_text("\x1b[1;31mrouge\x1b[0m") == "rouge"
    assert clean_text("\x9b2Jeffacé") == "effacé"
    assert clean_text("\x1b]0;titre\x07texte") == "texte"
    assert clean_text("\x1b]8;;http://x\x1b\\lien\x1b]8;;\x1b\\") == "lien"
    assert clean_text("à\tla\u2028ligne\r\x00\u202e!") == "à la ligne!"
    assert clean_text("Attaquez l'orc « blessé » — vite…") == "Attaquez l'orc « blessé » — vite…"


@PROPERTY
@given(REPLIES)
def test_complete_checked_gives_a_response_or_a_model_error(reply):
    try:
        response = complete_checked(FakeModel([reply]), ChatRequest(()))
    except ModelError as err:
        assert str(err)
        return
    assert isinstance(response, ChatResponse) and isinstance(response.text, str)
    assert len(response.text) <= MAX_RESPONSE_CHARS
    response.text.encode("utf-8")  # lone surrogates replaced
    assert all(type(n) is int and n >= 0 for n in (response.tokens_in, response.tokens_out))


def test_complete_checked_lets_user_errors_through():
    with pytest.raises(CassetteMissError):
        complete_checked(FakeModel([CassetteMissError("absente")]), ChatRequest(()))


# --------------------------------------------------------------------------- the LLM policy


ENCOUNTER = _encounter()


class LegalSpy:
    """Plays the LLM policy and checks every plan before the engine receives it."""

    explain = True

    def __init__(self, policy: LLMPolicy) -> None:
        self.policy = policy
        self.plans: list[Any] = []

    def decide(self, obs):
        plan = self.policy.decide(obs)
        self.plans.append(plan)
        assert plan.rationale is not None and _line(plan.rationale)
        if plan.rationale.startswith("repli heuristique ("):
            assert plan.actions == HeuristicPolicy().decide(obs).actions
        else:
            chosen = [o for o in obs.legal_options if plan.rationale.startswith(f"{o.id} — ")]
            assert chosen and plan.actions == chosen[0].actions
        return plan


def _play(model, seed: int = 3, round_cap: int = 3, answer: str = "number"):
    policy = LLMPolicy(model, answer=answer)
    spy = LegalSpy(policy)
    result = play_fight(
        ENCOUNTER, seed, {"west": spy, "east": HeuristicPolicy()}, round_cap=round_cap, record=True
    )
    tel = policy.telemetry
    assert tel.decisions == len(spy.plans) >= 1
    fallbacks = sum(p.rationale.startswith("repli heuristique (") for p in spy.plans)
    assert sum(tel.fallbacks.values()) == fallbacks
    assert tel.retries <= tel.decisions
    text = render_transcript(result.log)
    text.encode("utf-8")
    assert _clean(text)
    assert "action refusée" not in text and "action sans effet" not in text
    return policy, text


@PROPERTY
@given(st.lists(REPLIES, min_size=1, max_size=6), st.integers(0, 3))
@example(["[" * 100_000], 0)
@example(["1" * 10_000], 0)
@example([ValueError("boom")], 0)
def test_the_llm_policy_plays_legal_actions_whatever_the_model_answers(replies, seed):
    _play(FakeModel(replies), seed)


@PROPERTY
@given(st.lists(REPLIES, min_size=1, max_size=6), st.integers(0, 3))
@example(['{"note": "7"}', '{"note": 7}', '{"note": "10"}'], 0)
def test_the_rating_policy_plays_legal_actions_whatever_the_model_answers(replies, seed):
    """``answer="rating"``: one question per option, any answer to any of them."""
    _play(FakeModel(replies), seed, answer="rating")


@PROPERTY
@given(st.lists(NASTY_TEXT, min_size=1, max_size=4))
def test_grammar_providers_answers_are_handled_too(ends):
    """Answers that continue the forced start, as llama.cpp's are."""
    _play(FakeModel(ends, prefill=True))


def test_a_rationale_with_escapes_reaches_the_transcript_cleaned():
    answer = '{"option_id": "1", "rationale": "\\u001b[31mrouge\\u0007\\r vif\\u009b2J"}'
    policy, text = _play(FakeModel([answer]), round_cap=1)
    assert policy.telemetry.fallbacks == {}
    assert " — rouge vif" in text and "\x1b" not in text


def test_huge_and_deep_answers_are_retried_then_counted_as_fallbacks():
    policy, _ = _play(FakeModel(["[" * 100_000, "1" * 10_000]), round_cap=1)
    assert policy.telemetry.fallbacks == {"invalid_output": 1}
    assert policy.telemetry.retries == 1
    policy, _ = _play(FakeModel([KeyError("choices")]), round_cap=1)
    assert policy.telemetry.fallbacks == {"model_error": 1}


# --------------------------------------------------------------------------- replay cassettes


@PROPERTY
@given(st.lists(SHORT_ANSWERS, min_size=1, max_size=4))
def test_a_cassette_of_odd_answers_records_and_replays_the_same_fight(texts):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "odd.json"
        recorder = RecordingModel(FakeModel(texts), path, "uv run pf1e-sim \x1b[31m…")
        _, recorded = _play(recorder)
        recorder.save()
        replayed = ReplayModel(path)
        assert _line(replayed.command)
        _, text = _play(replayed)
    assert text == recorded


def _mutate(data: st.DataObject, doc: Any) -> Any:
    """One random structural change of a cassette document."""
    interactions = doc.get("interactions") if isinstance(doc, dict) else None
    targets: list[tuple[Any, Any]] = [(None, None)]
    if isinstance(doc, dict):
        targets += [(doc, k) for k in doc]
    if isinstance(interactions, dict):
        for key, hit in interactions.items():
            targets.append((interactions, key))
            if isinstance(hit, dict):
                targets += [(hit, k) for k in hit]
    parent, key = data.draw(st.sampled_from(targets), label="where")
    op = data.draw(st.sampled_from(["delete", "replace", "bool", "insert"]), label="op")
    value = data.draw(JSON_VALUES, label="value")
    if parent is None:
        return value if op == "replace" else [doc]
    if op == "delete":
        del parent[key]
    elif op == "replace":
        parent[key] = value
    elif op == "bool":
        parent[key] = data.draw(st.booleans())
    else:
        parent[data.draw(KEYS, label="key")] = value
    return doc


GOBLIN: dict[str, Any] = json.loads(GOBLIN_CASSETTE.read_text(encoding="utf-8"))
GOBLIN_FIGHT = build_encounter(
    load_map(ROOT / "data/maps/sample_arena.yaml"),
    [
        ("players", [load_combatant(ROOT / "data/monsters/goblin.json")]),
        ("monsters", [load_combatant(ROOT / "data/monsters/orc.json")] * 2),
    ],
)


def _check_cassette(path: Path) -> None:
    try:
        model = ReplayModel(path)
    except ModelSetupError as err:
        message = str(err)
        assert message.startswith(str(path)) and _line(message)
        return
    policy = LLMPolicy(model)
    try:
        play_fight(GOBLIN_FIGHT, 1, {"players": policy, "monsters": HeuristicPolicy()}, round_cap=4)
    except CassetteMissError as err:
        assert _line(str(err))


@settings(PROPERTY, max_examples=100)
@given(st.data())
def test_mutated_cassettes_load_or_are_a_french_setup_error(data):
    doc = copy.deepcopy(GOBLIN)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        doc = _mutate(data, doc)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.json"
        text = json.dumps(doc, ensure_ascii=data.draw(st.booleans()))
        path.write_bytes(_encode(text))
        _check_cassette(path)


@PROPERTY
@given(st.one_of(st.binary(max_size=200), st.integers(0, 6).map(lambda i: HUGE[i].encode())))
def test_cassette_files_of_any_bytes_are_a_french_setup_error(raw):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.json"
        path.write_bytes(raw)
        _check_cassette(path)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"interactions": []}, "interactions"),
        ({"interactions": {"k": "texte"}}, "objet attendu"),
        ({"interactions": {"k": {"text": 3, "tokens_in": 1, "tokens_out": 1}}}, "text"),
        ({"interactions": {"k": {"text": "x", "tokens_in": True, "tokens_out": 1}}}, "tokens_in"),
        ({"interactions": {"k": {"text": "x", "tokens_in": 1, "tokens_out": "2"}}}, "tokens_out"),
        ({"interactions": {"k": {"text": "x", "tokens_in": 1, "tokens_out": -2}}}, "tokens_out"),
        (
            {
                "interactions": {
                    "k": {"text": "x", "tokens_in": 1, "tokens_out": 1, "tokens_reused": 1.5}
                }
            },
            "tokens_reused",
        ),
        ({"model": 3}, "model"),
        ({"model": "\x1b[31mrouge"}, "model"),
        ({"record_command": ["uv"]}, "record_command"),
    ],
)
def test_a_cassette_of_a_wrong_structure_is_refused_when_opened(tmp_path, change, field):
    path = tmp_path / "c.json"
    doc = {"schema": CASSETTE_SCHEMA, "model": "fake", "interactions": {}} | change
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ModelSetupError, match=field):
        ReplayModel(path)
    for raw in (b"[]", b"\xff\xfe", b"[" * 100_000, b'{"schema": ' + b"1" * 5000 + b"}"):
        path.write_bytes(raw)
        with pytest.raises(ModelSetupError, match="cassette"):
            ReplayModel(path)


# --------------------------------------------------------------------------- openai: transport


STATUS = st.sampled_from([200, 200, 200, 200, 400, 404, 429, 500])
CONTENT = st.one_of(TEXT_ANSWERS, JSON_VALUES)
COMPLETIONS = st.fixed_dictionaries(
    {},
    optional={
        "choices": st.one_of(
            st.just([]),
            JSON_VALUES,
            st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "message": st.one_of(
                            JSON_VALUES,
                            st.fixed_dictionaries({}, optional={"content": CONTENT}),
                        ),
                        "finish_reason": JSON_VALUES,
                    },
                ),
                max_size=2,
            ),
        ),
        "usage": st.one_of(
            JSON_VALUES,
            st.fixed_dictionaries(
                {}, optional={"prompt_tokens": SCALARS, "completion_tokens": SCALARS}
            ),
        ),
    },
)
BODIES = st.one_of(
    st.binary(max_size=120),
    st.builds(_dumps, JSON_VALUES, st.booleans()).map(_encode),
    st.builds(_dumps, COMPLETIONS, st.booleans()).map(_encode),
    st.integers(0, len(HUGE) - 1).map(lambda i: _encode(HUGE[i])),
    st.sampled_from(
        [
            b'{"choices": []}',
            b'{"choices": null}',
            b'{"choices": [{}]}',
            b'{"choices": [{"message": null}]}',
            b"not json",
        ]
    ),
)
RESPONSES = st.tuples(STATUS, BODIES, st.sampled_from(["application/json", "text/plain"]))


def _server(responses: list[tuple[int, bytes, str]]):
    """An openai client whose HTTP transport answers the scripted responses in turn."""
    calls = [0]

    def handler(_request):
        status, body, kind = responses[calls[0] % len(responses)]
        calls[0] += 1
        return httpx.Response(status, content=body, headers={"content-type": kind})

    def client(**kwargs):
        kwargs["http_client"] = httpx.Client(transport=httpx.MockTransport(handler))
        return OPENAI_CLIENT(**kwargs)

    return client


def _openai_model(monkeypatch, responses) -> OpenAIModel:
    monkeypatch.setattr(openai, "OpenAI", _server(responses))
    return OpenAIModel("fuzz", base_url="http://serveur.invalid/v1", attempts=1)


@PROPERTY
@given(RESPONSES)
@example((200, b"not json at all", "text/plain"))
@example((200, b"not json at all", "application/json"))
@example((200, b'{"choices": []}', "application/json"))
@example((200, b"[" * 100_000, "application/json"))
def test_openai_model_gives_a_response_or_a_model_error(response):
    with pytest.MonkeyPatch.context() as mp:
        model = _openai_model(mp, [response])
        request = ChatRequest((ChatMessage("user", "?"),), {"type": "object"})
        try:
            answer = model.complete(request)
        except ModelError as err:
            assert _line(str(err))
            return
    assert isinstance(answer.text, str) and isinstance(answer.truncated, bool)
    if len(answer.text) <= MAX_RESPONSE_CHARS:  # else refused by every caller
        assert complete_checked(FakeModel([answer]), request) is not None


@PROPERTY
@given(st.lists(RESPONSES, min_size=1, max_size=4))
def test_the_llm_policy_over_a_garbage_server_plays_legal_actions(responses):
    with pytest.MonkeyPatch.context() as mp:
        _play(_openai_model(mp, responses), round_cap=2)


@PROPERTY
@given(st.lists(RESPONSES, min_size=1, max_size=3))
def test_the_narrator_over_a_garbage_server_falls_back_to_the_template(responses):
    with pytest.MonkeyPatch.context() as mp:
        _check_story(narrate(ECRASANT, _openai_model(mp, responses)))


def test_compile_command_over_a_garbage_server_is_a_french_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(openai, "OpenAI", _server([(200, b"not json", "text/plain")]))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://serveur.invalid/v1")
    out = tmp_path / "s.yaml"
    args = ["strategy", "compile", "Attaquez l'archer", "-o", str(out), "--model", "openai:fuzz"]
    assert main(args) == 2
    err = capsys.readouterr()[1]
    assert err.startswith("pf1e-sim: erreur : le modèle n'a pas répondu")
    assert err.count("\n") == 1 and "Traceback" not in err and not out.exists()


# --------------------------------------------------------------------------- the strategy compiler


@PROPERTY
@given(st.lists(REPLIES, min_size=1, max_size=3))
@example(["[" * 100_000])
@example(["1" * 10_000])
@example([json.dumps({"answer": ["role:ranged"], "name": "\x1b[31m"})])
@example([json.dumps({"answer": ["role:ranged"]})])
def test_compile_strategy_gives_a_spec_or_a_french_error(replies):
    try:
        spec = compile_strategy("Attaquez l'archer", FakeModel(replies))
    except StrategyCompileError as err:
        assert _line(str(err))
        return
    assert spec.target_roles == ["ranged"]  # the only value the text lets the model set
    assert spec.name == "Attaquez l'archer" and spec.roles == {} and not spec.focus


def test_names_and_reports_shown_to_the_user_are_cleaned():
    """Names never come from the model's text; a text with control characters and
    escapes gives a clean name and clean « non compris » reports."""
    from policies.strategy_compile import compile_text

    answer = {"answer": ["role:ranged"]}
    compiled = compile_text(
        "Visez l'archer\x07, dansez\x1b[31m la gigue", FakeModel([json.dumps(answer)])
    )
    assert compiled.spec.target_roles == ["ranged"] and not compiled.spec.focus
    assert _line(compiled.spec.name or "")
    assert compiled.not_understood and all(_line(n) for n in compiled.not_understood)


@settings(PROPERTY, max_examples=25)
@given(st.lists(SHORT_ANSWERS, min_size=2, max_size=2))
def test_compile_command_over_a_cassette_of_odd_answers(texts):
    text = "Attaquez l'archer"
    with tempfile.TemporaryDirectory() as tmp:
        cassette = Path(tmp) / "odd.json"
        recorder = RecordingModel(FakeModel(texts), cassette, "")
        with contextlib.suppress(StrategyCompileError):
            compile_strategy(text, recorder)
        recorder.save()
        out = Path(tmp) / "s.yaml"
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("PF1E_SIM_CACHE", str(Path(tmp) / "cache"))
            args = ["strategy", "compile", text, "-o", str(out), "--model", f"replay:{cassette}"]
            code, stdout, stderr = _run(args)
        assert code in (0, 2) and "Traceback" not in stderr
        if code == 2:
            assert stderr.startswith("pf1e-sim: erreur : ") and stderr.count("\n") == 1
            assert _line(stderr[:-1])
            assert not out.exists()
        else:
            assert out.exists() and _clean(stdout)


def _run(args: list[str]) -> tuple[int, str, str]:
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- the narrator


def _check_story(story) -> None:
    assert story.path in (PATH_LLM, PATH_TEMPLATE)
    shown = render_narrative(story)
    shown.encode("utf-8")
    assert _clean(shown)
    json.dumps(story.to_dict(), ensure_ascii=False).encode("utf-8")
    assert all(_line(r.text) and _line(r.reason) for r in story.rejections)


@PROPERTY
@given(st.lists(REPLIES, min_size=1, max_size=6), st.booleans())
def test_the_narrator_delivers_only_checked_clean_lines(replies, prefill):
    _check_story(narrate(ECRASANT, FakeModel(replies, prefill=prefill)))


def test_an_answer_with_escapes_is_invalid_and_its_rejection_is_clean():
    from harness.narrative import options

    ids = [opts[0][0] for opts in options(analyse(ECRASANT))]
    good = json.dumps({"choix": ids})
    bad = good.replace(ids[0], ids[0] + "\x1b[31m", 1)
    story = narrate(ECRASANT, FakeModel([bad, good]))
    _check_story(story)
    assert story.path == PATH_LLM and story.regenerated == 1, story.reason
    assert "\x1b" not in story.rejections[0].text


def test_a_model_error_with_escapes_gives_a_clean_template_reason():
    story = narrate(ECRASANT, FakeModel([ModelError("délai\x1b]0;pwned\x07 dépassé")]))
    assert story.path == PATH_TEMPLATE and "délai dépassé" in (story.reason or "")
    _check_story(story)
