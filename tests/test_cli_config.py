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


def test_the_experiment_settings_merge_like_the_others() -> None:
    from policies.registry import HEURISTIC, PolicySpec

    llm = PolicySpec("llm")
    file = RunConfig(side="players", arms=(("h", HEURISTIC), ("m", llm)), level=0.05,
                     target_width=0.1, max_runs=500)  # fmt: skip
    assert file.merge() == file
    flags = file.merge(side="monsters", arms=[("a", llm), ("b", HEURISTIC)], level=0.01,
                       target_width=0.2, max_runs=90)  # fmt: skip
    assert (flags.side, flags.arms, flags.level, flags.target_width, flags.max_runs) == (
        "monsters", (("a", llm), ("b", HEURISTIC)), 0.01, 0.2, 90,
    )  # fmt: skip
    # flags left out keep the file's values, each on its own
    assert file.merge(level=0.01).target_width == 0.1
    assert file.merge(max_runs=90).arms == file.arms


def test_the_files_experiment_section_is_part_of_its_settings() -> None:
    setup = load_setup(None, None, "data/encounters/experiment_archers.yaml", None)
    config = setup.config
    assert (config.runs, config.side, config.level) == (1000, "players", 0.05)
    assert [name for name, _ in config.arms] == ["heuristique", "feu concentré", "archers prudents"]
    assert (config.target_width, config.max_runs) == (None, None)
    # without a section: nothing to compare yet
    plain = load_setup(None, None, "data/encounters/quickstart.yaml", None).config
    assert (plain.side, plain.arms, plain.target_width) == (None, (), None)


def _experiment_file(tmp_path: Path) -> Path:
    enc = tmp_path / "exp.yaml"
    text = (ROOT / "data" / "encounters" / "experiment_archers.yaml").read_text(encoding="utf-8")
    text = text.replace("../", f"{ROOT}/data/").replace(
        "  level: 0.05", "  level: 0.2\n  target_width: 1.9\n  max_runs: 30"
    )
    enc.write_text(text, encoding="utf-8")
    return enc


def _experiment(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    out = tmp_path / "e.json"
    assert main(["experiment", *args, "--runs", "10", "--json", str(out)]) == 0
    capsys.readouterr()
    return json.loads(out.read_text(encoding="utf-8"))


def test_experiment_flags_win_over_the_files_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    enc = str(_experiment_file(tmp_path))
    data = _experiment(["--encounter", enc], tmp_path, capsys)
    assert (data["side"], data["level"]) == ("players", 0.2)
    assert data["adaptive"]["target_width"] == 1.9 and data["adaptive"]["max_runs"] == 30
    assert [a["name"] for a in data["arms"]] == ["heuristique", "feu concentré", "archers prudents"]
    data = _experiment(
        ["--encounter", enc, "--for-side", "monsters", "--level", "0.01", "--target-width",
         "0.5", "--max-runs", "20", "--arm", "a=heuristic", "--arm", "b=heuristic"],
        tmp_path, capsys,
    )  # fmt: skip
    assert (data["side"], data["level"]) == ("monsters", 0.01)
    assert data["adaptive"]["target_width"] == 0.5 and data["adaptive"]["max_runs"] == 20
    assert [a["name"] for a in data["arms"]] == ["a", "b"]
    # a flag left out keeps the file's value, whichever others are given
    data = _experiment(["--encounter", enc, "--level", "0.01"], tmp_path, capsys)
    assert data["adaptive"]["max_runs"] == 30 and data["side"] == "players"


def test_the_side_is_checked_before_the_arms_files_are_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["experiment", "--encounter", "data/encounters/quickstart.yaml",
            "--arm", "x=strategy:nope.yaml", "--arm", "heuristic"]  # fmt: skip
    assert main(args) == 2
    assert "donnez le camp comparé (--for-side)" in capsys.readouterr().err
    assert main([*args, "--for-side", "elves"]) == 2
    assert "camp inconnu « elves »" in capsys.readouterr().err
