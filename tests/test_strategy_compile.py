"""Strategy compilation: the pipeline with a scripted model, the French summary, the
cache and the CLI; the recorded cassette of the embedded model (see the end)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from policies.llm import ChatResponse
from policies.strategy import load_strategy, parse_strategy
from policies.strategy_compile import (
    StrategyCompileError,
    cache_key,
    compile_schema,
    compile_strategy,
    describe_strategy,
)

ROOT = Path(__file__).resolve().parent.parent
CASSETTE = ROOT / "cassettes" / "strategy_compile_qwen05.json"

GOOD = {
    "targets": ["most_dangerous", "nearest"], "focus": ["archer"], "focus_fire": True,
    "engagement": "ranged", "keep_distance_ft": 15, "positioning": "advance",
    "avoid_threatened": False, "charge": False, "retreat_below_hp_pct": 25,
    "total_defense_below_hp_pct": 0,
}  # fmt: skip
DEFAULTS = {**GOOD, "targets": ["nearest", "weakest"], "focus": [], "focus_fire": False,
            "engagement": "any", "keep_distance_ft": 0, "charge": True,
            "retreat_below_hp_pct": 0}  # fmt: skip


class Scripted:
    """A model that answers the given texts in order and keeps the requests."""

    model_id = "scripted"

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def complete(self, request):
        self.requests.append(request)
        if not self.answers:
            raise AssertionError("no answer left")
        return ChatResponse(self.answers.pop(0), 0, 0, 0.0, self.model_id)


def test_a_valid_answer_becomes_the_spec():
    model = Scripted(json.dumps(GOOD))
    spec = compile_strategy("Focus the archer", model)
    assert spec.focus == ["archer"] and spec.engagement == "ranged" and not spec.charge
    assert spec.name == "Focus the archer"
    request = model.requests[0]
    assert request.json_schema == compile_schema()
    assert request.messages[-1].content == 'Strategy: "Focus the archer"\n'


def test_an_invalid_answer_is_retried_with_the_error():
    bad = json.dumps({**GOOD, "engagement": "sword"})
    model = Scripted("{not json", bad, json.dumps(GOOD))
    with pytest.raises(StrategyCompileError, match="n'a pas produit de stratégie valide"):
        compile_strategy("x", Scripted("{not json", bad))
    spec = compile_strategy("x", Scripted(bad, json.dumps(GOOD)))
    assert spec.engagement == "ranged"
    compile_strategy("x", model, retries=2)
    retry = model.requests[1].messages
    assert retry[-2].role == "assistant" and retry[-2].content == "{not json"
    assert retry[-1].content.startswith("Invalid answer (")


def test_nothing_understood_and_empty_text_are_french_errors():
    with pytest.raises(StrategyCompileError, match="texte non compris"):
        compile_strategy("Le gâteau est bon.", Scripted(json.dumps(DEFAULTS)))
    with pytest.raises(StrategyCompileError, match="vide"):
        compile_strategy("  ", Scripted())


def test_schema_decodes_every_tactics_field():
    schema = compile_schema()
    assert schema["required"] == list(schema["properties"])
    assert "roles" not in schema["properties"] and "name" not in schema["properties"]
    assert schema["properties"]["engagement"]["enum"] == ["any", "melee", "ranged"]


def test_cache_key_depends_on_text_and_model():
    a = cache_key("Focus the archer", "local:qwen-0.5b")
    assert a == cache_key("  Focus the archer ", "local:qwen-0.5b")
    assert a != cache_key("Focus the orc", "local:qwen-0.5b")
    assert a != cache_key("Focus the archer", "local:qwen-1.5b")


def test_french_summary_says_every_field_that_is_set():
    spec = load_strategy(ROOT / "data/strategies/cautious_archers.yaml")
    text = describe_strategy(spec)
    assert text.startswith("Stratégie « Archers prudents » :\n")
    for needle in [
        "cibles par priorité : celui qui a le moins de points de vie, puis le plus proche",
        "engagement : à distance d'abord, sans charger",
        "se retire si un ennemi est à moins de 15 pieds",
        "ne s'arrête pas dans une case menacée sans attaquer",
        "se retire sous 34 % de ses points de vie",
        "rôle de goblin : engagement : au contact seulement; ne garde pas de distance",
    ]:
        assert needle in text
    plain = describe_strategy(parse_strategy("charge: false\nfocus: [orc]\nfocus_fire: true\n"))
    assert "vise d'abord : « orc »" in plain and "ne charge jamais" in plain
    assert "tir concentré sur une cible commune" in plain


# -- CLI and cache -----------------------------------------------------------------------


def _fake_cassette(tmp_path, text, answer):
    """A replay cassette for one text (the harness's own format), to test the command
    without a model; the cassette of the real model is tested below."""
    from harness.models import CASSETTE_SCHEMA
    from policies.llm import ChatRequest
    from policies.strategy_compile import MAX_TOKENS, messages

    request = ChatRequest(messages(text), json_schema=compile_schema(), max_tokens=MAX_TOKENS)
    data = {
        "schema": CASSETTE_SCHEMA, "model": "fake", "record_command": "",
        "interactions": {request.key("fake"): {"text": answer, "tokens_in": 1, "tokens_out": 1}},
    }  # fmt: skip
    path = tmp_path / "fake.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_compile_command_writes_yaml_and_caches(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PF1E_SIM_CACHE", str(tmp_path / "cache"))
    cassette = _fake_cassette(tmp_path, "Focus the archer", json.dumps(GOOD))
    out = tmp_path / "s.yaml"
    args = ["strategy", "compile", "Focus the archer", "-o", str(out), "--model",
            f"replay:{cassette}"]  # fmt: skip
    assert main(args) == 0
    shown = capsys.readouterr()[0]
    assert "vise d'abord : « archer »" in shown and f"({'replay:' + str(cassette)})" in shown
    assert load_strategy(out).focus == ["archer"]
    assert len(list((tmp_path / "cache" / "strategies").glob("*.yaml"))) == 1
    # a second compilation comes from the cache: the cassette is not read again
    cassette.write_text(json.dumps(json.loads(cassette.read_text()) | {"interactions": {}}))
    assert main(args) == 0
    assert "(cache)" in capsys.readouterr()[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["strategy", "compile", "x", "-o", "s.yaml", "--model", "replay:nope.json"],
         "cassette introuvable"),
        (["strategy", "compile", "x", "-o", "s.yaml", "--model", "bogus"], "modèle inconnu"),
        (["strategy", "compile", "x"], "--output"),
        (["strategy"], "sous-commande manquante"),
        (["strategy", "nope"], "sous-commande inconnue : nope"),
    ],
)  # fmt: skip
def test_compile_command_errors(capsys, tmp_path, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PF1E_SIM_CACHE", str(tmp_path / "cache"))
    assert main(args) == 2
    err = capsys.readouterr()[1]
    assert needle in err and "Traceback" not in err


# -- the recorded cassette of the embedded model -----------------------------------------


def _replayed(text):
    from harness.models import ReplayModel

    return compile_strategy(text, ReplayModel(CASSETTE))


def test_readme_example_is_the_recorded_compilation():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split('$ uv run pf1e-sim strategy compile "', 1)[1].split("```", 1)[0]
    text = block.split('"', 1)[0]
    shown = block.split("\n", 1)[1].rsplit("Écrit dans", 1)[0]
    assert describe_strategy(_replayed(text)) == shown


#: what the embedded 0.5B model made of each text (the cassette), fields other than the
#: defaults; its mistakes are kept as recorded (bench/bench_strategy_fidelity.py measures them)
RECORDED = {
    "Concentrez tous les tirs sur l'archer ennemi, ne chargez jamais.": {
        "targets": ["weakest", "nearest"], "focus": ["archer"], "focus_fire": True,
        "engagement": "ranged", "charge": False,
    },
    "Everyone attacks the most dangerous enemy together until it drops.": {
        "targets": ["most_dangerous", "nearest"], "focus": ["most_dangerous"],
        "focus_fire": True, "avoid_threatened": True, "charge": False,
    },
    "Restez à distance : tirez à l'arc et reculez si un ennemi s'approche à moins de 15 "
    "pieds.": {
        "targets": ["weakest", "nearest"], "focus_fire": True, "engagement": "ranged",
        "charge": False, "retreat_below_hp_pct": 15,
    },
    "Hold the line: stay in place and let them come to us.": {
        "targets": ["weakest", "nearest"], "focus_fire": True, "positioning": "hold",
        "charge": False,
    },
    "Chargez le plus proche, au corps à corps uniquement.": {"targets": ["weakest", "nearest"]},
    "Retreat when below a third of your hit points; finish off wounded enemies first.": {
        "targets": ["weakest", "nearest"], "focus_fire": True, "charge": False,
        "retreat_below_hp_pct": 30,
    },
    "Frappez d'abord les ennemis qui ont des armes à distance, et défendez-vous totalement "
    "sous 20 % de vos points de vie.": {
        "targets": ["most_dangerous", "nearest"], "focus": ["weakest", "nearest"],
        "engagement": "ranged", "avoid_threatened": True, "charge": False,
        "retreat_below_hp_pct": 20,
    },
    "Gang up on enemies already fighting our allies; never stop in a threatened square.": {
        "targets": ["weakest", "nearest"], "avoid_threatened": True, "charge": False,
    },
    "Le gâteau au chocolat est délicieux.": {
        "targets": ["most_dangerous", "nearest"], "focus": ["chocolat"], "charge": False,
    },
}  # fmt: skip


def test_cassette_holds_the_recorded_texts():
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from record_strategy_cassettes import TEXTS

    assert list(RECORDED) == list(TEXTS)
    assert sum(any(ch in t for ch in "éàè") for t in TEXTS) >= 4  # French and English
    assert len(TEXTS) >= 8


@pytest.mark.parametrize("text", list(RECORDED))
def test_recorded_compilations(text):
    spec = _replayed(text)
    changed = json.loads(spec.model_dump_json(exclude_defaults=True, exclude={"name"}))
    assert changed == RECORDED[text]
    assert spec.name is not None and len(spec.name) <= 80
    # the summary states each field the model set
    summary = describe_strategy(spec)
    if not spec.charge:
        assert "ne charge jamais" in summary
    if spec.positioning == "hold":
        assert "tient sa position" in summary


def test_a_recorded_compilation_plays_as_it_reads():
    """« ne chargez jamais » compiled, then played by a brawler 35 feet from its foe: it
    never charges, where the heuristic charges on the same seeds."""
    from builders import make_map, make_profile

    from engine.encounter import build_encounter
    from engine.runner import play_fight
    from policies.heuristic import HeuristicPolicy
    from policies.strategy import StrategyPolicy

    spec = _replayed("Concentrez tous les tirs sur l'archer ennemi, ne chargez jamais.")
    gmap = make_map(["........"], zones=["A......B"], deployment={"west": "A", "east": "B"})
    p = make_profile(name="Brawler", hp_max=30)
    enc = build_encounter(gmap, [("west", [p]), ("east", [p])])
    base = HeuristicPolicy()
    charges = {}
    for name, policy in (("strategy", StrategyPolicy(spec)), ("heuristic", base)):
        kinds = []

        class Watch:
            def decide(self, obs, policy=policy, kinds=kinds):
                plan = policy.decide(obs)
                kinds.extend(a.kind for a in plan.actions)
                return plan

        for seed in range(1, 21):
            play_fight(enc, seed, {"west": Watch(), "east": base}, round_cap=5)
        charges[name] = kinds.count("charge")
    assert charges["strategy"] == 0 < charges["heuristic"]
