"""Determinism of ``pf1e-sim``: same inputs ⇒ same bytes, whatever the workers or hash seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
MAP = "data/maps/sample_arena.yaml"
GOBLIN = "data/monsters/goblin.json"
ORC = "data/monsters/orc.json"
QUICK = ["--map", MAP, "--side", "players", GOBLIN, GOBLIN, GOBLIN, "--side", "monsters", ORC, ORC]
COUNTERS = ("hits", "crits", "damage_dealt", "damage_taken", "healing_given", "down", "dead")


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    rc = main(args)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert captured.err == ""
    return captured.out


def run_json(capsys: pytest.CaptureFixture[str], args: list[str], path: Path) -> dict[str, Any]:
    run(capsys, [*args, "--json", str(path)])
    return json.loads(path.read_text(encoding="utf-8"))


def test_same_command_twice_is_byte_identical(capsys: pytest.CaptureFixture[str]) -> None:
    args = [*QUICK, "--runs", "100", "--seed", "7", "--transcript"]
    first = run(capsys, args)
    second = run(capsys, args)
    assert first == second
    assert first.startswith("=== Déroulé du premier combat ===")


def test_workers_do_not_change_the_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = [*QUICK, "--runs", "300", "--seed", "1"]
    one, two = tmp_path / "w1.json", tmp_path / "w2.json"
    out1 = run(capsys, [*args, "--workers", "1", "--json", str(one)])
    out2 = run(capsys, [*args, "--workers", "2", "--json", str(two)])
    assert out1 == out2
    assert one.read_bytes() == two.read_bytes()


@pytest.mark.parametrize("runs", ["1", "2", "7"])
def test_workers_small_run_counts(capsys: pytest.CaptureFixture[str], runs: str) -> None:
    args = [*QUICK, "--runs", runs, "--seed", "11", "--transcript"]
    assert run(capsys, [*args, "--workers", "1"]) == run(capsys, [*args, "--workers", "2"])


def test_different_seeds_differ(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = [*QUICK, "--runs", "100"]
    a = run_json(capsys, [*args, "--seed", "1"], tmp_path / "a.json")
    b = run_json(capsys, [*args, "--seed", "2"], tmp_path / "b.json")
    assert (a["seed"], b["seed"]) == (1, 2)
    numbers_a = {k: v for k, v in a.items() if k != "seed"}
    numbers_b = {k: v for k, v in b.items() if k != "seed"}
    assert numbers_a != numbers_b
    assert a["combatants"] != b["combatants"] or a["rounds"] != b["rounds"]


def test_run_i_uses_seed_plus_i(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Totals are additive over run ranges: runs 0‥9 of seed 1 = runs of seed 1 (4) + seed 5 (6)."""
    whole = run_json(capsys, [*QUICK, "--runs", "10", "--seed", "1"], tmp_path / "w.json")
    head = run_json(capsys, [*QUICK, "--runs", "4", "--seed", "1"], tmp_path / "h.json")
    tail = run_json(capsys, [*QUICK, "--runs", "6", "--seed", "5"], tmp_path / "t.json")
    for w, h, t in zip(whole["combatants"], head["combatants"], tail["combatants"], strict=True):
        for key in COUNTERS:
            assert w[f"{key}_total"] == h[f"{key}_total"] + t[f"{key}_total"], (w["id"], key)
    for i in range(2):
        assert whole["sides"][i]["wins"] == head["sides"][i]["wins"] + tail["sides"][i]["wins"]
    assert whole["draws"]["count"] == head["draws"]["count"] + tail["draws"]["count"]
    merged: dict[str, int] = {}
    for part in (head, tail):
        for k, v in part["rounds"]["distribution"].items():
            merged[k] = merged.get(k, 0) + v
    assert whole["rounds"]["distribution"] == dict(
        sorted(merged.items(), key=lambda kv: int(kv[0]))
    )


def test_transcript_is_the_first_fight(capsys: pytest.CaptureFixture[str]) -> None:
    """The transcript shows run 0 (seed itself): it does not depend on --runs."""
    short = run(capsys, [*QUICK, "--runs", "1", "--seed", "4", "--transcript"])
    long = run(capsys, [*QUICK, "--runs", "50", "--seed", "4", "--transcript"])
    marker = "=== Rapport d'équilibrage ==="
    assert short.split(marker)[0] == long.split(marker)[0]


def _subprocess(hashseed: str, json_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONIOENCODING": "utf-8"}
    cmd = [sys.executable, "-m", "harness.cli", *QUICK, "--runs", "60", "--seed", "3"]
    cmd += ["--transcript", "--workers", "2", "--json", str(json_path)]
    return subprocess.run(
        cmd,
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def test_hash_seed_does_not_change_output(tmp_path: Path) -> None:
    a = _subprocess("0", tmp_path / "a.json")
    b = _subprocess("4242", tmp_path / "b.json")
    assert a.returncode == 0, a.stderr
    assert b.returncode == 0, b.stderr
    assert a.stdout == b.stdout
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
