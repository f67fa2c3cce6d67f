"""``harness.cli.config``: run settings merged from the encounter file and the flags,
and the encounter file read once per command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import harness.encounter_file
from harness.cli.config import RunConfig, load_setup
from harness.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def test_a_flag_given_wins_and_a_flag_left_out_keeps_the_files_value() -> None:
    file = RunConfig(runs=200, seed=7, round_cap=30, simple_monster_death=False)
    assert file.merge() == file
    assert file.merge(runs=5, seed=0, round_cap=1) == RunConfig(5, 0, 1, False)
    assert file.merge(simple_monster_death=True).simple_monster_death
    # a switch left off cannot turn off the file's « simple_monster_death: true »
    assert RunConfig(simple_monster_death=True).merge().simple_monster_death


def test_without_an_encounter_file_the_defaults_apply() -> None:
    goblin, orc = "data/monsters/goblin.json", "data/monsters/orc.json"
    sides = [f"players\x1f{goblin}", f"monsters\x1f{orc}"]
    setup = load_setup("data/maps/sample_arena.yaml", sides, None, None)
    assert setup.config == RunConfig(1000, 1, 100, False) and setup.file is None


def test_the_files_settings_reach_the_report_under_the_flags(tmp_path: Path) -> None:
    enc = tmp_path / "enc.yaml"
    text = (ROOT / "data" / "encounters" / "quickstart.yaml").read_text(encoding="utf-8")
    text = text.replace("../", f"{ROOT}/data/").replace("seed: 1", "seed: 9")
    enc.write_text(text.replace("round_cap: 100", "round_cap: 7"), encoding="utf-8")
    out = tmp_path / "r.json"
    assert (
        main(["--encounter", str(enc), "--runs", "3", "--round-cap", "5", "--json", str(out)]) == 0
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    assert (report["runs"], report["seed"], report["round_cap"]) == (3, 9, 5)


@pytest.mark.parametrize(
    "args",
    [
        ["--encounter", "data/encounters/quickstart.yaml", "--runs", "2"],
        ["experiment", "--encounter", "data/encounters/experiment_archers.yaml", "--runs", "2"],
        ["sweep", "--encounter", "data/encounters/sweep_archers.yaml", "--runs", "1"],
    ],
    ids=["simulate", "experiment", "sweep"],
)
def test_each_command_reads_its_encounter_file_once(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = harness.encounter_file.load_encounter_file
    read: list[object] = []

    def counted(path: object) -> object:
        read.append(path)
        return real(path)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(harness.encounter_file, "load_encounter_file", counted)
    assert main(args) == 0
    capsys.readouterr()
    assert len(read) == 1
