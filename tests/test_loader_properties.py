"""Property-based tests: malformed maps, combatants and dice never crash the loaders.

Every input either loads or raises :class:`DataError` — never another exception
type. Inputs are random mutations of the shipped, valid samples (keys deleted,
values replaced by random JSON values of the wrong type, layers rewritten,
random nesting, random text spliced in) plus plain random text.

Known loader bugs that these properties would otherwise trip over are kept out of
the generated inputs and pinned by explicit ``xfail(strict=True)`` tests in
``test_maps.py`` / ``test_creatures.py``:

* integer literals of more than 4300 digits (ValueError from yaml/json/int());
* deeply nested documents (RecursionError);
* explicit YAML tags such as ``!!int abc`` (ValueError from PyYAML constructors);
* characters that ``str.isdigit()`` accepts but ``int()`` rejects (``²``) in the
  elevation layer.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from engine.content.creatures import CombatantProfile, parse_combatant
from engine.content.maps import GameMap, parse_map
from engine.core.dice import compile_dice
from engine.core.errors import DataError

REPO = Path(__file__).resolve().parents[1]
ARENA_TEXT = (REPO / "data" / "maps" / "sample_arena.yaml").read_text(encoding="utf-8")
ARENA: dict[str, Any] = yaml.safe_load(ARENA_TEXT)
GOBLIN_TEXT = (REPO / "data" / "monsters" / "goblin.json").read_text(encoding="utf-8")
GOBLIN: dict[str, Any] = json.loads(GOBLIN_TEXT)

#: C dumper when PyYAML has libyaml (10× faster); the loader under test is unchanged.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _dump(doc: object) -> str:
    return yaml.dump(doc, Dumper=_DUMPER, allow_unicode=True)


PROPERTY = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


#: Any character except category "No" (other numbers: "²", "①"…), whose members
#: pass ``str.isdigit()`` but not ``int()`` — a known bug, see the module docstring.
CHARS = st.characters(codec="utf-8", exclude_categories=["No"])
#: Characters that matter to the map layers (plus a few awkward ones: CR, NBSP, BOM,
#: NUL, a non-ASCII decimal digit), drawn more often than random Unicode.
LAYER_CHARS = st.one_of(st.sampled_from("#.TC~W0123456789ABZaz \t\n\r-*é٣\u00a0\ufeff\x00"), CHARS)
TEXT = st.text(CHARS, max_size=30)
KEYS = st.one_of(
    st.sampled_from(
        [
            "name",
            "terrain",
            "legend",
            "zones",
            "elevation",
            "markers",
            "deployment",
            "move_cost",
            "cover_bonus",
            "attacks",
            "damage",
            "formula",
            "range_increment_ft",
            "splash",
            "kind",
            "abilities",
            "con_score",
            "creature_type",
            "pc",
            "source",
        ]
    ),
    TEXT,
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
    st.sampled_from(["", "1d6", "0d0", "-", "A", "#", "ranged", "touch", "undead", "Large"]),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(KEYS, children, max_size=4),
    ),
    max_leaves=12,
)


# --------------------------------------------------------------------------- mutation helpers


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(_paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.extend(_paths(value, (*prefix, i)))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


def _mutate_once(data: st.DataObject, doc: Any) -> Any:
    """Apply one random structural mutation to ``doc`` (in place when possible)."""
    paths = _paths(doc)
    path = data.draw(st.sampled_from(paths), label="path")
    op = data.draw(
        st.sampled_from(["delete", "replace", "insert", "nest", "text", "chars"]), label="op"
    )
    if not path:  # the root itself
        if op in ("replace", "nest"):
            return data.draw(JSON_VALUES) if op == "replace" else [doc]
        if op == "insert" and isinstance(doc, dict):
            doc[data.draw(KEYS)] = data.draw(JSON_VALUES)
        return doc
    parent = _get(doc, path[:-1])
    key = path[-1]
    value = parent[key]
    if op == "delete":
        del parent[key]
    elif op == "replace":
        parent[key] = data.draw(JSON_VALUES, label="value")
    elif op == "insert":
        if isinstance(value, dict):
            value[data.draw(KEYS, label="key")] = data.draw(JSON_VALUES, label="value")
        elif isinstance(value, list):
            value.insert(data.draw(st.integers(0, len(value))), data.draw(JSON_VALUES))
        else:
            parent[key] = data.draw(JSON_VALUES, label="value")
    elif op == "nest":
        parent[key] = data.draw(st.sampled_from([[value], {"x": value}, [value, value]]))
    elif op == "text":
        parent[key] = data.draw(st.text(LAYER_CHARS, max_size=60), label="text")
    elif isinstance(value, str) and value:  # "chars": edit characters of a string in place
        pos = data.draw(st.integers(0, len(value) - 1), label="pos")
        new = data.draw(st.text(LAYER_CHARS, min_size=0, max_size=3), label="new")
        cut = data.draw(st.integers(0, 3), label="cut")
        parent[key] = value[:pos] + new + value[pos + cut :]
    return doc


def _mutated(data: st.DataObject, sample: dict[str, Any]) -> Any:
    doc: Any = copy.deepcopy(sample)
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        doc = _mutate_once(data, doc)
    return doc


def _splice(data: st.DataObject, text: str) -> str:
    """Random text-level edit: delete a slice and insert random characters."""
    start = data.draw(st.integers(0, len(text)), label="start")
    length = data.draw(st.integers(0, 40), label="length")
    insert = data.draw(st.text(LAYER_CHARS, max_size=20), label="insert")
    return text[:start] + insert + text[start + length :]


def _outcome(err: DataError) -> str:
    return f"DataError at {(err.location or '-').split('.')[0].split('[')[0]}"


def _check_map(text: str) -> None:
    try:
        result = parse_map(text, "fuzz.yaml")
    except DataError as err:
        assert str(err)
        event(_outcome(err))
        return
    event("loaded")
    assert isinstance(result, GameMap)
    assert len(result.move_cost) == result.height * result.width


def _check_combatant(text: str) -> None:
    try:
        result = parse_combatant(text, "fuzz.json")
    except DataError as err:
        assert str(err)
        event(_outcome(err))
        return
    event("loaded")
    assert isinstance(result, CombatantProfile)
    assert len(result.attacks) == len(result.spec.attacks)


# --------------------------------------------------------------------------- maps

_ARENA_WITHOUT = {
    layer: _dump({k: v for k, v in ARENA.items() if k != layer})
    for layer in ("terrain", "elevation", "zones")
}


def test_samples_are_valid() -> None:
    parse_map(ARENA_TEXT)
    parse_map(_dump(ARENA))
    parse_combatant(GOBLIN_TEXT)


@PROPERTY
@given(st.data())
def test_mutated_map_documents(data: st.DataObject) -> None:
    doc = _mutated(data, ARENA)
    _check_map(_dump(doc))


#: Per layer, the characters it normally holds; cells are drawn mostly from these
#: so that the cross-layer rules (impassable zone cells, undeployed letters) are hit.
_LAYER_ALPHABET = {"terrain": "#.TC~W", "elevation": ".0123456789", "zones": "....ABCab"}


@st.composite
def _layer_rows(draw: st.DrawFn, layer: str) -> list[str]:
    cell = st.one_of(st.sampled_from(_LAYER_ALPHABET[layer]), LAYER_CHARS)
    if draw(st.booleans(), label="shaped"):  # the arena's 8 × 20 shape
        row = st.text(st.sampled_from(_LAYER_ALPHABET[layer]), min_size=20, max_size=20)
        rows = draw(st.lists(row, min_size=8, max_size=8))
        # a few stray characters anywhere
        for _ in range(draw(st.integers(0, 2), label="strays")):
            r = draw(st.integers(0, 7))
            c = draw(st.integers(0, 19))
            rows[r] = rows[r][:c] + draw(cell) + rows[r][c + 1 :]
        return rows
    return draw(st.lists(st.text(cell, max_size=22), max_size=10))


@PROPERTY
@given(st.data())
def test_random_map_layers(data: st.DataObject) -> None:
    layer = data.draw(st.sampled_from(["terrain", "elevation", "zones"]), label="layer")
    rows = data.draw(_layer_rows(layer), label="rows")
    rest = _ARENA_WITHOUT[layer]
    _check_map(rest + _dump({layer: "\n".join(rows)}))


@PROPERTY
@given(st.data())
def test_spliced_map_text(data: st.DataObject) -> None:
    _check_map(_splice(data, ARENA_TEXT))


@PROPERTY
@given(st.text(CHARS, max_size=200))
def test_random_text_as_map(text: str) -> None:
    _check_map(text)


# --------------------------------------------------------------------------- combatants


@PROPERTY
@given(st.data())
def test_mutated_combatant_documents(data: st.DataObject) -> None:
    doc = _mutated(data, GOBLIN)
    _check_combatant(json.dumps(doc))


@PROPERTY
@given(st.data())
def test_spliced_combatant_text(data: st.DataObject) -> None:
    _check_combatant(_splice(data, GOBLIN_TEXT))


@PROPERTY
@given(st.text(CHARS, max_size=200))
def test_random_text_as_combatant(text: str) -> None:
    _check_combatant(text)


# --------------------------------------------------------------------------- dice

_DICE_TERM = st.one_of(
    st.builds(
        "{}{}{}".format,
        st.sampled_from(["", "0", "1", "2", "10", "100", "101"]),
        st.sampled_from(["d", "D", " d "]),
        st.integers(0, 1001),
    ),
    st.integers(0, 10_000).map(str),
)


@st.composite
def _dice_like(draw: st.DrawFn) -> str:
    """Dice-looking text: terms joined by signs, sometimes with a missing operator."""
    terms = draw(st.lists(_DICE_TERM, min_size=1, max_size=5))
    ops = st.sampled_from(["", "+", "-", " + ", " - ", " ", "+-"])
    return "".join(draw(ops) + term for term in terms)


DICE_TEXT = st.one_of(
    st.text(CHARS, max_size=30),
    st.text(st.sampled_from("0123456789dD+- "), max_size=30),
    _dice_like(),
)


@PROPERTY
@given(DICE_TEXT)
@example("500000+500000")  # found by hypothesis: a flat total of 7 digits
def test_compile_dice_on_arbitrary_text(text: str) -> None:
    try:
        expr = compile_dice(text)
    except DataError as err:
        assert "formule de dés" in str(err)
        return
    assert expr.minimum <= expr.mean <= expr.maximum
    # The canonical form compiles back to the same expression.
    again = compile_dice(str(expr))
    assert (again.minimum, again.mean, again.maximum) == (expr.minimum, expr.mean, expr.maximum)
    assert again == expr


# --------------------------------------------------------------------------- reports

REPORT_TEXT = (REPO / "tests" / "reports" / "trois_camps_outsider.json").read_text(encoding="utf-8")
REPORT: dict[str, Any] = json.loads(REPORT_TEXT)
#: a report with LLM telemetry and options, so that those branches are mutated too
REPORT_LLM: dict[str, Any] = {
    **REPORT,
    "options": {"policies": {"goblin": "llm", "orc": "heuristic"}, "simple_monster_death": False},
    "llm": {"model": "replay:x", "decisions": 4, "model_calls": 3, "retries": 1, "cache_hits": 1,
            "fallbacks": {"invalid": 1}, "tokens_in": 10, "tokens_out": 5, "tokens_reused": 2,
            "latency_p50_s": 0.5, "latency_p95_s": 0.9},
}  # fmt: skip


def _mutate_typed(data: st.DataObject, doc: Any) -> Any:
    """One mutation of the kinds that break reports and checkpoints: a boolean or a
    float for an integer, a number shifted by one, a deep nest, or a generic one."""
    op = data.draw(st.sampled_from(["generic", "bool", "float", "shift", "deep"]), label="kind")
    paths = [p for p in _paths(doc) if p and isinstance(_get(doc, p), (int, float))]
    if op == "generic" or not paths:
        return _mutate_once(data, doc)
    path = data.draw(st.sampled_from(paths), label="number")
    parent, key = _get(doc, path[:-1]), path[-1]
    value = parent[key]
    if op == "bool":
        parent[key] = bool(value)
    elif op == "float":
        parent[key] = float(value)
    elif op == "shift":
        parent[key] = value + data.draw(st.sampled_from([-1, 1, -(10**9), 10**9]))
    else:
        for _ in range(data.draw(st.integers(1, 200), label="depth")):
            value = [value]
        parent[key] = value
    return doc


def _mutated_typed(data: st.DataObject, sample: dict[str, Any]) -> Any:
    doc: Any = copy.deepcopy(sample)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        doc = _mutate_typed(data, doc)
    return doc


def _check_report(text: str) -> str:
    """A report either is refused (DataError) or renders: terminal, HTML, narrative."""
    from harness.analysis import analyse
    from harness.html import render_html
    from harness.narrative import narrate, render_narrative
    from harness.report import render_report
    from harness.reporter import parse_report

    try:
        report = parse_report(text, "fuzz.json")
    except DataError as err:
        assert str(err) and len(str(err)) < 400
        return _outcome(err)
    assert render_report(report)
    analyse(report)
    story = narrate(report, None)
    assert render_narrative(story)
    assert render_html(report, story).endswith("</html>\n")
    return "loaded"


@PROPERTY
@given(st.data())
def test_mutated_reports(data: st.DataObject) -> None:
    sample = data.draw(st.sampled_from([REPORT, REPORT_LLM]), label="sample")
    event(_check_report(json.dumps(_mutated_typed(data, sample))))


@PROPERTY
@given(st.data())
def test_spliced_report_text(data: st.DataObject) -> None:
    event(_check_report(_splice(data, REPORT_TEXT)))


def test_report_samples_render() -> None:
    assert _check_report(REPORT_TEXT) == "loaded"
    assert _check_report(json.dumps(REPORT_LLM)) == "loaded"


# --------------------------------------------------------------------------- checkpoints

CHECKPOINTS: dict[str, dict[str, Any]] = {
    "sweep": {
        "schema": "pf1e-sim/checkpoint@1", "kind": "sweep", "fingerprint": "f",
        "done": [
            {"key": [0, 0], "variant": "a", "strategy": "h",
             "counts": {"runs": 20, "wins": 12, "draws": 2, "rounds": 130}},
            {"key": [1, 2], "variant": "b", "strategy": "s",
             "counts": {"runs": 20, "wins": 0, "draws": 20, "rounds": 400}},
        ],
    },
    "experiment": {
        "schema": "pf1e-sim/checkpoint@1", "kind": "experiment", "fingerprint": "f",
        "done": [
            {"key": [0, 10], "counts": {"arms": 3, "runs": 10, "wins": [6, 7, 2],
                                        "draws": [1, 0, 0], "only_arm": [0, 2, 0],
                                        "only_base": [0, 1, 4]}},
            {"key": [10, 15], "counts": {"arms": 3, "runs": 5, "wins": [5, 0, 5],
                                         "draws": [0, 5, 0], "only_arm": [0, 0, 0],
                                         "only_base": [0, 5, 0]}},
        ],
    },
}  # fmt: skip


def _check_checkpoint(kind: str, text: str) -> str:
    """A checkpoint either is refused (DataError) or every entry it kept gives the
    counts the sweep or the experiment read from it."""
    import tempfile

    from harness.checkpoint import Checkpoint
    from harness.experiment import Counts
    from harness.sweep import CellCounts

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ck.json"
        path.write_text(text, encoding="utf-8")
        try:
            book = Checkpoint(path, kind, "f")
        except DataError as err:
            assert str(err) and len(str(err)) < 400
            return _outcome(err)
    for key, entry in book.done.items():
        assert all(type(k) is int and k >= 0 for k in key)
        if kind == "sweep":
            counts = CellCounts.from_dict(entry["counts"])
            assert counts.wins + counts.draws <= counts.runs
            assert not any(isinstance(v, bool) for v in entry["counts"].values())
        else:
            a, b = key
            arms = entry["counts"]["arms"]
            c = Counts.from_dict(entry["counts"], arms, b - a)
            for k in range(arms):
                assert c.wins[k] + c.draws[k] <= c.runs
                assert c.wins[k] - c.only_arm[k] == c.wins[0] - c.only_base[k]
    return "loaded"


@PROPERTY
@given(st.data())
def test_mutated_checkpoints(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(sorted(CHECKPOINTS)), label="kind")
    event(_check_checkpoint(kind, json.dumps(_mutated_typed(data, CHECKPOINTS[kind]))))


@PROPERTY
@given(st.data())
def test_spliced_checkpoint_text(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(sorted(CHECKPOINTS)), label="kind")
    event(_check_checkpoint(kind, _splice(data, json.dumps(CHECKPOINTS[kind], indent=1))))


def test_checkpoint_samples_load() -> None:
    for kind, body in CHECKPOINTS.items():
        assert _check_checkpoint(kind, json.dumps(body)) == "loaded"
