"""Strategy compilation: the pipeline with a scripted model, the French summary, the
cache and the CLI; the recorded cassette of the embedded model (see the end)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from policies.llm import ChatResponse
from policies.strategy import StrategySpec, Tactics, load_strategy, parse_strategy
from policies.strategy_compile import (
    StrategyCompileError,
    cache_key,
    check_tactical,
    compile_schema,
    compile_strategy,
    describe_strategy,
)

ROOT = Path(__file__).resolve().parent.parent
CASSETTE = ROOT / "cassettes" / "strategy_compile_qwen05.json"
CASSETTE15 = ROOT / "cassettes" / "strategy_compile_qwen15.json"

GOOD = {
    "is_combat_strategy": True,
    "targets": ["most_dangerous", "nearest"], "focus": ["archer"], "focus_fire": True,
    "engagement": "ranged", "keep_distance_ft": 15, "positioning": "advance",
    "avoid_threatened": False, "charge": False, "retreat_below_hp_pct": 25,
    "total_defense_below_hp_pct": 0,
}  # fmt: skip
DEFAULTS = {**GOOD, "targets": ["nearest", "weakest"], "focus": [], "focus_fire": False,
            "engagement": "any", "keep_distance_ft": 0, "charge": True,
            "retreat_below_hp_pct": 0}  # fmt: skip
#: nothing said: every field null
SILENT = dict.fromkeys(GOOD) | {"is_combat_strategy": True}


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
    assert request.messages[-1].content == 'Text: "Focus the archer"\n'


def test_null_fields_keep_their_defaults():
    spec = compile_strategy("Ne chargez pas.", Scripted(json.dumps(SILENT | {"charge": False})))
    assert spec.charge is False
    assert spec.model_dump(exclude={"name", "charge"}) == StrategySpec().model_dump(
        exclude={"name", "charge"}
    )


def test_the_models_verdict_refuses_a_text_that_is_no_strategy():
    """« not a combat strategy » is a refusal at once (no retry), whatever the fields say."""
    model = Scripted(json.dumps(GOOD | {"is_combat_strategy": False}), json.dumps(GOOD))
    with pytest.raises(StrategyCompileError, match="n'est pas une stratégie de combat"):
        compile_strategy("Le combat de coqs est interdit ici.", model)
    assert len(model.requests) == 1
    # a verdict is required: an answer without it is invalid and retried
    no_verdict = {k: v for k, v in GOOD.items() if k != "is_combat_strategy"}
    model = Scripted(json.dumps(no_verdict), json.dumps(GOOD))
    assert compile_strategy("Focus the archer", model).focus == ["archer"]
    assert "is_combat_strategy" in model.requests[1].messages[-1].content


def test_an_invalid_answer_is_retried_with_the_error():
    bad = json.dumps({**GOOD, "engagement": "sword"})
    model = Scripted("{not json", bad, json.dumps(GOOD))
    with pytest.raises(StrategyCompileError, match="n'a pas produit de stratégie valide"):
        compile_strategy("Attaquez", Scripted("{not json", bad))
    spec = compile_strategy("Attaquez", Scripted(bad, json.dumps(GOOD)))
    assert spec.engagement == "ranged"
    compile_strategy("Attaquez", model, retries=2)
    retry = model.requests[1].messages
    assert retry[-2].role == "assistant" and retry[-2].content == "{not json"
    assert retry[-1].content.startswith("Invalid answer (")


def test_nothing_understood_and_empty_text_are_french_errors():
    with pytest.raises(StrategyCompileError, match="texte non compris"):
        compile_strategy("Attaquez bien.", Scripted(json.dumps(DEFAULTS)))
    with pytest.raises(StrategyCompileError, match="texte non compris"):
        compile_strategy("Attaquez bien.", Scripted(json.dumps(SILENT)))
    with pytest.raises(StrategyCompileError, match="vide"):
        compile_strategy("  ", Scripted())


@pytest.mark.parametrize(
    "text",
    [
        "Le gâteau au chocolat est délicieux.",
        "Bonjour !",
        "Mélangez 200 g de farine et trois œufs, puis faites cuire 30 minutes au four.",
        "What is the capital of France?",
        "Il pleut depuis trois jours sur la ville.",
    ],
)
def test_a_text_without_a_word_of_combat_is_refused_before_any_model_call(text):
    model = Scripted()  # no answer: a model call would fail the test
    with pytest.raises(StrategyCompileError, match="aucun mot de combat reconnu"):
        compile_strategy(text, model)
    assert model.requests == []


@pytest.mark.parametrize(
    "text",
    [
        "Tuez d'abord le chaman.",
        "Visez les plus blessés, restez à 30 pieds.",
        "Les gobelins foncent au corps à corps.",
        "Repliez-vous sous la moitié de vos PV.",
        "Protégez le mage et tenez la ligne.",
        "Focus the shaman, then the weakest.",
        "Keep your distance and shoot from range.",
        "Fall back at half health; never stop in a threatened square.",
        "Surround them and strike from the flanks.",
    ],
)
def test_strategies_pass_the_vocabulary_check(text):
    check_tactical(text)  # raises on a refusal


def test_named_enemies_must_be_written_in_the_text():
    """A ``focus`` name the text does not contain is dropped (accents, case and a
    plural « s » aside)."""
    answer = SILENT | {"focus": ["most_dangerous", "Chaman", "archers", "orc"]}
    spec = compile_strategy(
        "Abattez d'abord les chamans et l'archer ennemi.", Scripted(json.dumps(answer))
    )
    assert spec.focus == ["Chaman", "archers"]
    with pytest.raises(StrategyCompileError, match="texte non compris"):
        compile_strategy("Visez l'ennemi.", Scripted(json.dumps(SILENT | {"focus": ["orc"]})))


def test_schema_decodes_the_verdict_then_every_tactics_field_or_null():
    schema = compile_schema()
    props = schema["properties"]
    assert schema["required"] == list(props)
    assert next(iter(props)) == "is_combat_strategy"
    assert props["is_combat_strategy"] == {"type": "boolean"}
    assert list(props)[1:] == list(Tactics.model_fields)
    assert "roles" not in props and "name" not in props
    engagement, null = props["engagement"]["anyOf"]
    assert engagement["enum"] == ["any", "melee", "ranged"] and null == {"type": "null"}


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


def test_compile_command_refuses_a_text_that_is_no_strategy(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PF1E_SIM_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "s.yaml"
    # no word of combat: refused before the model is opened (the cassette does not exist)
    args = ["strategy", "compile", "Bonjour", "-o", str(out), "--model", "replay:nope.json"]
    assert main(args) == 2
    err = capsys.readouterr()[1]
    assert "aucun mot de combat reconnu" in err and "Traceback" not in err
    # the model's verdict
    text = "Le combat de coqs est interdit ici."
    refusal = json.dumps(SILENT | {"is_combat_strategy": False})
    cassette = _fake_cassette(tmp_path, text, refusal)
    args = ["strategy", "compile", text, "-o", str(out), "--model", f"replay:{cassette}"]
    assert main(args) == 2
    err = capsys.readouterr()[1]
    assert "n'est pas une stratégie de combat (verdict du modèle)" in err
    assert "Traceback" not in err
    assert not out.exists() and not (tmp_path / "cache" / "strategies").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["strategy", "compile", "Attaquez", "-o", "s.yaml", "--model", "replay:nope.json"],
         "cassette introuvable"),
        (["strategy", "compile", "Attaquez", "-o", "s.yaml", "--model", "bogus"],
         "modèle inconnu"),
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


# -- the recorded cassettes of the embedded models --------------------------------------


def _replayed(text, cassette=CASSETTE15):
    from harness.models import ReplayModel

    return compile_strategy(text, ReplayModel(cassette))


def test_readme_example_is_the_recorded_compilation():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split('$ uv run pf1e-sim strategy compile "', 1)[1].split("```", 1)[0]
    text = block.split('"', 1)[0]
    assert "--model" not in block.split("\n", 1)[0]  # the default model: local, the 1.5B
    shown = block.split("\n", 1)[1].rsplit("Écrit dans", 1)[0]
    assert describe_strategy(_replayed(text)) == shown


NO_WORD = "aucun mot de combat reconnu"
VERDICT = "verdict du modèle"

#: what each embedded model made of each text (its cassette): the fields other than the
#: defaults, or the refusal; mistakes are kept as recorded (bench/bench_strategy_fidelity.py
#: measures them). The 0.5B answers « a strategy » to every text and copies the prompt's
#: examples (strongest, 30 feet, 25 %); the 1.5B refuses the texts that are no strategy.
RECORDED = {
    "Concentrez tous les tirs sur l'archer ennemi, ne chargez jamais.": (
        {"targets": ["engaged"], "engagement": "ranged"},
        {"targets": ["strongest"], "focus": ["archer"], "focus_fire": True,
         "engagement": "ranged", "avoid_threatened": True, "charge": False},
    ),
    "Everyone attacks the most dangerous enemy together until it drops.": (
        {"targets": ["strongest"], "positioning": "hold"},
        {"targets": ["most_dangerous"]},
    ),
    "Restez à distance : tirez à l'arc et reculez si un ennemi s'approche à moins de 15 "
    "pieds.": (
        {"keep_distance_ft": 30, "positioning": "hold", "charge": False,
         "retreat_below_hp_pct": 25},
        {"targets": ["nearest"], "engagement": "ranged", "keep_distance_ft": 15,
         "avoid_threatened": True},
    ),
    "Hold the line: stay in place and let them come to us.": (
        {"targets": ["strongest"], "engagement": "melee", "positioning": "hold"},
        {"engagement": "melee", "positioning": "hold", "avoid_threatened": True},
    ),
    "Chargez le plus proche, au corps à corps uniquement.": (
        {"targets": ["strongest"]},
        {"engagement": "melee"},
    ),
    "Retreat when below a third of your hit points; finish off wounded enemies first.": (
        {"targets": ["weakest"], "retreat_below_hp_pct": 30},
        {"targets": ["weakest"], "retreat_below_hp_pct": 33},
    ),
    "Frappez d'abord les ennemis qui ont des armes à distance, et défendez-vous totalement "
    "sous 20 % de vos points de vie.": (
        {"targets": ["engaged"], "focus": ["ennemis"], "keep_distance_ft": 30, "charge": False,
         "retreat_below_hp_pct": 25, "total_defense_below_hp_pct": 20},
        {"targets": ["ranged_first"], "engagement": "ranged", "retreat_below_hp_pct": 20},
    ),
    "Gang up on enemies already fighting our allies; never stop in a threatened square.": (
        {"targets": ["engaged"], "positioning": "hold"},
        {"targets": ["engaged"], "engagement": "melee", "avoid_threatened": True},
    ),
    "Le gâteau au chocolat est délicieux.": (NO_WORD, NO_WORD),
    "Bonjour !": (NO_WORD, NO_WORD),
    "Mélangez 200 g de farine et trois œufs, puis faites cuire 30 minutes au four.": (
        NO_WORD, NO_WORD,
    ),
    "What is the capital of France?": (NO_WORD, NO_WORD),
    "La bataille de Waterloo a eu lieu en 1815.": (
        {"targets": ["nearest"], "engagement": "melee", "positioning": "hold"},
        VERDICT,
    ),
    "My brother won his boxing fight last night.": (
        {"targets": ["strongest"], "positioning": "hold"},
        VERDICT,
    ),
}  # fmt: skip


def test_cassettes_hold_the_recorded_texts():
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from record_strategy_cassettes import CASSETTES, TEXTS

    assert list(RECORDED) == list(TEXTS)
    assert sum(any(ch in t for ch in "éàè") for t in TEXTS) >= 4  # French and English
    assert len(TEXTS) >= 14
    assert CASSETTES == {"qwen-0.5b": CASSETTE, "qwen-1.5b": CASSETTE15}


@pytest.mark.parametrize("model", ["qwen-0.5b", "qwen-1.5b"])
@pytest.mark.parametrize("text", list(RECORDED))
def test_recorded_compilations(model, text):
    cassette, expected = (
        (CASSETTE, RECORDED[text][0]) if model == "qwen-0.5b" else (CASSETTE15, RECORDED[text][1])
    )
    if isinstance(expected, str):  # a refusal
        with pytest.raises(StrategyCompileError, match=expected):
            _replayed(text, cassette)
        return
    spec = _replayed(text, cassette)
    changed = json.loads(spec.model_dump_json(exclude_defaults=True, exclude={"name"}))
    assert changed == expected
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
