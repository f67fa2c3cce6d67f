"""Replays of real embedded-model sessions (cassettes): no model, no network.

The cassettes were recorded from Qwen2.5-Coder-0.5B-Instruct by
``scripts/record_cassettes.py``; these tests check what the engine does with
those recorded answers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from harness.cli.main import main
from harness.models import CassetteMissError, ReplayModel
from harness.transcript import lines
from policies.heuristic import HeuristicPolicy
from policies.llm import LLMPolicy

ROOT = Path(__file__).resolve().parent.parent
FOCUS = ROOT / "cassettes" / "goblin_vs_orcs_qwen05.json"
TRUNCATED = ROOT / "cassettes" / "goblin_truncated_qwen05.json"


def encounter():
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    goblin = load_combatant(ROOT / "data/monsters/goblin.json")
    orc = load_combatant(ROOT / "data/monsters/orc.json")
    return build_encounter(gmap, [("players", [goblin]), ("monsters", [orc, orc])])


def replay_fights(path, seeds, round_cap, max_tokens=48):
    policy = LLMPolicy(ReplayModel(path), max_tokens=max_tokens)
    logs = [
        play_fight(
            encounter(), s, {"players": policy, "monsters": HeuristicPolicy()},
            round_cap=round_cap, record=True,
        ).log
        for s in seeds
    ]  # fmt: skip
    return policy, [lines(log or ()) for log in logs]


def test_replayed_decisions_drive_the_goblin_and_telemetry_matches_the_cassette():
    policy, logs = replay_fights(FOCUS, range(1, 4), 4)
    recorded = json.loads(FOCUS.read_text(encoding="utf-8"))["interactions"].values()
    tel = policy.telemetry
    # rating (the default answer mode): one question per option of a menu of two or more
    assert tel.model_calls == len(recorded) >= tel.decisions
    assert tel.fallbacks == {} and tel.retries == 0
    assert tel.tokens_in == sum(r["tokens_in"] for r in recorded)
    assert tel.tokens_out == sum(r["tokens_out"] for r in recorded)
    chosen = 0
    for log in logs:
        goblin = [m for _r, actor, m, _x in log if actor == "goblin"]
        for i, line in enumerate(goblin):
            match = re.match(r"raisonnement : (\w+):?([\w-]*)", line)
            if not match:
                continue
            chosen += 1
            kind, target = match.groups()
            follow = goblin[i + 1] if i + 1 < len(goblin) else ""
            if kind in ("full_attack", "attack"):
                assert f" vs {target} " in follow  # the recorded choice is what happens
            if kind in ("move", "move_attack"):
                assert follow.startswith("déplacement")
            if kind == "withdraw":
                assert follow.startswith("retraite")
    assert chosen == tel.decisions


def test_no_action_chosen_by_the_model_is_rejected():
    _policy, logs = replay_fights(FOCUS, range(1, 4), 4)
    for log in logs:
        assert not any(
            actor == "goblin" and ("action sans effet" in m or "action refusée" in m)
            for _r, actor, m, _x in log
        )


def test_a_recorded_invalid_answer_is_retried_then_replaced_by_the_heuristic():
    policy, logs = replay_fights(TRUNCATED, [1], 1, max_tokens=1)
    texts = [r["text"] for r in json.loads(TRUNCATED.read_text())["interactions"].values()]
    # really truncated outputs: the one-token budget ends the answer after the
    # rating's digit, before its closing quote, so the assembled text is not JSON
    assert texts and all(re.fullmatch(r'\{"note": "\d', t) for t in texts)
    assert policy.telemetry.retries == 1
    assert policy.telemetry.fallbacks == {"invalid_output": 1}
    assert any(
        "raisonnement : repli heuristique (invalid_output)" in m for _r, _a, m, _x in logs[0]
    )


def test_the_cli_replays_a_recorded_encounter_exactly(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    args = [
        "--map", "data/maps/sample_arena.yaml",
        "--side", "players", "data/monsters/goblin.json",
        "--side", "monsters", "data/monsters/orc.json", "data/monsters/orc.json",
        "--runs", "3", "--seed", "1", "--round-cap", "4",
        "--policy", "players=llm", "--model", f"replay:{FOCUS.relative_to(ROOT)}", "--transcript",
    ]  # fmt: skip
    assert main(args) == 0
    first, _ = capsys.readouterr()
    assert main(args) == 0
    second, _ = capsys.readouterr()
    assert first == second
    assert "raisonnement :" in first and "=== Télémétrie LLM (replay:" in first
    assert "replis : aucun" in first


def test_a_request_missing_from_the_cassette_names_the_record_command(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(CassetteMissError, match=r"scripts/record_cassettes\.py"):
        replay_fights(FOCUS, [9], 4)
    code = main([
        "--map", "data/maps/sample_arena.yaml",
        "--side", "players", "data/monsters/goblin.json",
        "--side", "monsters", "data/monsters/orc.json", "data/monsters/orc.json",
        "--runs", "1", "--seed", "50", "--policy", "players=llm",
        "--model", f"replay:{FOCUS.relative_to(ROOT)}",
    ])  # fmt: skip
    _, err = capsys.readouterr()
    assert code == 2 and "réenregistrez-la : uv run python scripts/record_cassettes.py" in err


def test_every_replayed_choice_is_the_option_played_with_its_figures():
    """Each recorded answer rates an option of the menu; the plan played is the
    best-rated option's actions, the menu the model read carried each option's
    figures, and no recorded choice shot a target at 0 hp or below."""
    from policies.tactics import option_figures

    policy = LLMPolicy(ReplayModel(FOCUS), max_tokens=48)
    seen = []

    class Spy:
        explain = True

        def decide(self, obs):
            shown = policy.options(obs)
            plan = policy.decide(obs)
            chosen = next(o for o in shown if o.id == plan.rationale.split(" — ")[0])
            assert plan.actions == chosen.actions
            prompt = policy.messages(obs, None, shown)[1].content
            for option in shown:
                assert f"\n- {option.label} : " in prompt
            assert "AO " in prompt
            seen.append((obs, chosen))
            return plan

    for seed in range(1, 4):
        play_fight(encounter(), seed, {"players": Spy(), "monsters": HeuristicPolicy()},
                   round_cap=4)  # fmt: skip
    assert len(seen) == policy.telemetry.decisions and policy.telemetry.fallbacks == {}
    targets = [(obs, option_figures(obs, chosen)) for obs, chosen in seen]
    assert any(fig.target for _obs, fig in targets)
    assert not any(fig.target and fig.target_hp <= 0 for _obs, fig in targets)
