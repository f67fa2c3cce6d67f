"""Experiments: closed-form comparison statistics, common random numbers, workers, CLI."""

from __future__ import annotations

import copy
import itertools
import json
import math
from pathlib import Path

import pytest

from engine.run.stats import (
    PairedDifference,
    normal_cdf,
    normal_quantile,
    two_proportion_test,
    wilson_band,
    wilson_interval,
)
from harness.cli.config import load_setup
from harness.cli.main import main
from harness.experiment import Arm, Counts, ExperimentResult, render_experiment, run_experiment
from harness.parallel import simulate
from harness.report import band
from policies.registry import HEURISTIC, parse_policy_spec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "data/encounters/experiment_archers.yaml"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


# -- statistics (values computed by hand from the textbook formulas) ------------------


def test_normal_functions():
    assert normal_cdf(0) == 0.5
    assert math.isclose(normal_quantile(0.975), 1.959964, abs_tol=1e-6)
    assert math.isclose(normal_quantile(0.995), 2.575829, abs_tol=1e-6)
    for p in (0.01, 0.3, 0.5, 0.9):
        assert math.isclose(normal_cdf(normal_quantile(p)), p, abs_tol=1e-12)


def test_two_proportion_test_matches_the_pooled_formula():
    # 45/100 vs 30/100: pooled 0.375, se = sqrt(0.375 * 0.625 * 0.02) = 0.0684653
    z, p = two_proportion_test(45, 100, 30, 100)
    assert math.isclose(z, 0.15 / math.sqrt(0.375 * 0.625 * 0.02), rel_tol=1e-12)
    assert math.isclose(z, 2.19089, abs_tol=1e-5)
    assert math.isclose(p, 0.028459, abs_tol=1e-5)
    assert two_proportion_test(0, 50, 0, 50) == (0.0, 1.0)


def test_wilson_interval():
    lo, hi = wilson_interval(8, 10, 1.959964)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson_interval(0, 0, 1.96) == (0.0, 1.0)


def test_paired_difference():
    # 100 fights, A alone won 15, B alone won 5: d = 0.10; McNemar z = 10 / sqrt(20)
    d = PairedDifference(100, 15, 5, 0.05)
    assert math.isclose(d.diff, 0.10)
    assert math.isclose(d.z, 10 / math.sqrt(20))
    assert math.isclose(d.p_value, 2 * (1 - normal_cdf(10 / math.sqrt(20))))
    assert math.isclose(d.p_value, 0.025347, abs_tol=1e-5)
    assert d.significant
    # Agresti-Min: cells + 0.5, n' = 102, b' = 15.5, c' = 5.5, d' = 10/102,
    # se' = sqrt(21 - 100/102) / 102
    lo, hi = d.interval
    se = math.sqrt(21 - 100 / 102) / 102
    assert math.isclose(lo, 10 / 102 - 1.959964 * se, abs_tol=1e-6)
    assert math.isclose(hi, 10 / 102 + 1.959964 * se, abs_tol=1e-6)
    same = PairedDifference(100, 0, 0, 0.05)
    assert (same.diff, same.p_value, same.significant) == (0.0, 1.0, False)
    lo, hi = same.interval
    assert lo < 0 < hi  # no discordant fight: still an interval of positive width


# -- the experiment runner ---------------------------------------------------------


def _example():
    setup = load_setup(None, None, EXAMPLE, None)
    arms = [
        Arm("h", HEURISTIC),
        Arm("f", parse_policy_spec("strategy:data/strategies/focus_dangerous.yaml")),
    ]
    return setup, arms


def test_each_arm_matches_a_plain_simulation_of_that_policy():
    setup, arms = _example()
    res = run_experiment(setup.encounter, setup.policies, "players", arms, runs=60, seed=7,
                         round_cap=100)  # fmt: skip
    for k, arm in enumerate(arms):
        specs = tuple(
            arm.policy if p.side == "players" else s
            for p, s in zip(setup.encounter.placements, setup.policies, strict=True)
        )
        alone = simulate(setup.encounter, runs=60, seed=7, round_cap=100, policies=specs)
        assert res.counts.wins[k] == alone.tally.wins[0]
        assert res.counts.draws[k] == alone.tally.draws


def test_identical_arms_never_differ():
    setup, _ = _example()
    arms = [Arm("a", HEURISTIC), Arm("b", HEURISTIC)]
    res = run_experiment(setup.encounter, setup.policies, "players", arms, runs=40, seed=1,
                         round_cap=100)  # fmt: skip
    c = res.to_dict()["comparisons"][0]
    assert (c["only_arm_won"], c["only_baseline_won"], c["difference"]) == (0, 0, 0.0)
    assert c["paired_p_value"] == 1.0 and not c["significant"]


def test_workers_give_identical_results_and_adaptive_stopping():
    setup, arms = _example()
    kw = {"runs": 30, "seed": 3, "round_cap": 100}
    one = run_experiment(setup.encounter, setup.policies, "players", arms, **kw).to_dict()
    two = run_experiment(setup.encounter, setup.policies, "players", arms, workers=2, **kw)
    assert two.to_dict() == one
    wide = run_experiment(setup.encounter, setup.policies, "players", arms, target_width=1.9,
                          max_runs=90, **kw)  # fmt: skip
    assert (wide.counts.runs, wide.batches) == (30, 1)
    assert wide.to_dict()["adaptive"]["reached"]
    narrow = run_experiment(setup.encounter, setup.policies, "players", arms,
                            target_width=0.001, max_runs=90, **kw)  # fmt: skip
    assert (narrow.counts.runs, narrow.batches) == (90, 3)
    assert not narrow.to_dict()["adaptive"]["reached"]
    narrow2 = run_experiment(setup.encounter, setup.policies, "players", arms, workers=2,
                             target_width=0.001, max_runs=90, **kw)  # fmt: skip
    assert narrow2.to_dict() == narrow.to_dict()
    # the first 30 runs of the adaptive experiment are the fixed-size experiment's runs
    first = run_experiment(setup.encounter, setup.policies, "players", arms, **{**kw, "runs": 90})
    assert first.to_dict()["arms"] == narrow.to_dict()["arms"]


def _counted(wins, only_base):
    """The example's experiment object for 200 fights per arm with these counts."""
    setup, arms = _example()
    counts = Counts(2, 200, list(wins), [0, 0], [0, 0], [0, only_base])
    return ExperimentResult(setup.encounter, "players", tuple(arms), 1, 100, 0.05, counts).to_dict()


def test_each_arm_has_its_3sigma_band_and_its_wilson_interval():
    data = _counted([200, 185], 15)
    for arm in data["arms"]:
        lo, hi = arm["wilson_3sigma"]
        assert [lo, hi] == list(wilson_band(arm["wins"], data["runs"]))
        assert lo <= arm["rate"] <= hi and hi - lo > 0
    top = data["arms"][0]
    # won every time: the 3σ band is a point, Wilson's lower bound is n / (n + z²)
    assert top["band_3sigma"] == [1.0, 1.0]
    assert top["wilson_3sigma"] == [pytest.approx(200 / 209), 1.0]
    text = render_experiment(data)
    for arm in data["arms"]:
        both = f"bande 3σ : {band(*arm['band_3sigma'])}, Wilson : {band(*arm['wilson_3sigma'])}"
        head = f"« {arm['name']} » ({arm['policy']}) : victoires players {100 * arm['rate']:.1f}%"
        assert f"{head} ({arm['wins']}) — {both}\n" in text
    # the paired comparison keeps its own interval
    c = data["comparisons"][0]
    assert f"IC 95 % : [{100 * c['interval'][0]:+.1f}, {100 * c['interval'][1]:+.1f}]" in text


def test_an_experiment_written_before_the_wilson_intervals_renders_with_them():
    data = _counted([200, 185], 15)
    old = copy.deepcopy(data)
    for arm in old["arms"]:
        del arm["wilson_3sigma"]
    assert render_experiment(old, "t") == render_experiment(data, "t")


# -- CLI ---------------------------------------------------------------------------


def run(capsys, args):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_experiment_command_from_the_file(capsys, tmp_path):
    out_json = tmp_path / "e.json"
    code, out, err = run(capsys, ["experiment", "--encounter", EXAMPLE, "--runs", "80",
                                  "--json", str(out_json)])  # fmt: skip
    assert code == 0, err
    assert "=== Expérience : Stratégies gobelines contre orques ===" in out
    assert "80 combats par bras, mêmes graines pour chaque bras" in out
    assert "« feu concentré » − « heuristique »" in out and "Verdict :" in out
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert data["schema"] == "pf1e-sim/experiment@1"
    assert [a["name"] for a in data["arms"]] == ["heuristique", "feu concentré", "archers prudents"]
    for arm in data["arms"]:
        assert arm["wilson_3sigma"] == list(wilson_band(arm["wins"], data["runs"]))
    code, two, _ = run(capsys, ["experiment", "--encounter", EXAMPLE, "--runs", "80",
                                "--workers", "2"])  # fmt: skip
    assert code == 0 and two == out


def test_experiment_arms_from_the_command_line(capsys):
    code, out, _ = run(capsys, [
        "experiment", "--encounter", "data/encounters/quickstart.yaml", "--for-side", "monsters",
        "--runs", "40", "--arm", "heuristic", "--arm",
        "brute=scripted:data/scripts/orc_brute.yaml", "--level", "0.01",
    ])  # fmt: skip
    assert code == 0
    assert "« brute » − « heuristic »" in out and "IC 99 %" in out
    assert "seuil de 1 %" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--encounter", "data/encounters/quickstart.yaml"], "--for-side"),
        (["--encounter", "data/encounters/quickstart.yaml", "--for-side", "elves"], "camp inconnu"),
        (
            [
                "--encounter",
                "data/encounters/quickstart.yaml",
                "--for-side",
                "players",
                "--arm",
                "heuristic",
            ],
            "deux bras",
        ),
        (["--encounter", EXAMPLE, "--max-runs", "10"], "--target-width"),
        (["--encounter", EXAMPLE, "--level", "1.5"], "--level"),
        (["--encounter", EXAMPLE, "--arm", "a=heuristic", "--arm", "a=heuristic"], "deux fois"),
        (
            ["--encounter", EXAMPLE, "--arm", "x=strategy:nope.yaml", "--arm", "heuristic"],
            "nope.yaml",
        ),
    ],
)
def test_experiment_errors_are_french(capsys, args, needle):
    code, _, err = run(capsys, ["experiment", *args])
    assert code == 2 and needle in err and "Traceback" not in err


# -- checkpoints -------------------------------------------------------------------------


@pytest.fixture
def count_fights(monkeypatch):
    import harness.experiment

    calls = []
    real = harness.experiment.play_fight

    def counted(*args, **kw):
        calls.append(args[1])
        return real(*args, **kw)

    monkeypatch.setattr(harness.experiment, "play_fight", counted)
    return calls


def test_an_interrupted_experiment_resumes_without_replaying_chunks(tmp_path, count_fights):
    from harness.checkpoint import Checkpoint

    setup, arms = _example()
    kw = {"runs": 30, "seed": 3, "round_cap": 100}
    whole = run_experiment(setup.encounter, setup.policies, "players", arms, **kw).to_dict()
    path = tmp_path / "ck.json"

    def stop(done, _limit):
        if done >= 16:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(setup.encounter, setup.policies, "players", arms, progress=stop,
                       checkpoint=Checkpoint(path, "experiment", "f"), **kw)  # fmt: skip
    saved = json.loads(path.read_text(encoding="utf-8"))["done"]
    assert [e["key"] for e in saved] == [[0, 8], [8, 16]]
    count_fights.clear()
    res = run_experiment(setup.encounter, setup.policies, "players", arms,
                         checkpoint=Checkpoint(path, "experiment", "f"), **kw)  # fmt: skip
    assert len(count_fights) == (30 - 16) * len(arms)
    assert sorted(count_fights) == sorted(3 + i for i in range(16, 30) for _ in arms)
    assert res.to_dict() == whole
    # adaptive stopping, another number of workers: the saved chunks are reused
    adaptive = {"target_width": 0.001, "max_runs": 60, **kw}
    plain = run_experiment(setup.encounter, setup.policies, "players", arms, **adaptive)
    count_fights.clear()
    book = Checkpoint(path, "experiment", "f")
    resumed = run_experiment(setup.encounter, setup.policies, "players", arms, workers=2,
                             checkpoint=book, **adaptive)  # fmt: skip
    assert count_fights == []  # played by the workers, not here
    assert resumed.to_dict() == plain.to_dict()
    keys = [e["key"] for e in json.loads(path.read_text(encoding="utf-8"))["done"]]
    assert keys[:2] == [[0, 8], [8, 16]] and keys[-1][1] == 60
    assert all(a[1] == b[0] for a, b in itertools.pairwise(keys))  # no gap, no overlap


def test_experiment_command_with_a_checkpoint(capsys, tmp_path, count_fights):
    ck = tmp_path / "ck.json"
    args = ["experiment", "--encounter", EXAMPLE, "--runs", "20", "--checkpoint", str(ck)]
    code, out, _ = run(capsys, args)
    assert code == 0 and len(count_fights) == 20 * 3
    saved = json.loads(ck.read_text(encoding="utf-8"))
    assert saved["kind"] == "experiment" and saved["done"][0]["key"] == [0, 5]
    saved["done"] = saved["done"][1:3]  # runs 5…14 kept, 0…4 and 15…19 lost
    ck.write_text(json.dumps(saved), encoding="utf-8")
    count_fights.clear()
    code, again, err = run(capsys, args)
    assert code == 0 and again == out
    assert "Reprise : 10 combats par bras lus dans" in err
    assert sorted(count_fights) == sorted(1 + i for i in (*range(5), *range(15, 20)) for _ in "abc")
    code, _, err = run(capsys, [*args, "--round-cap", "50"])
    assert code == 2 and "écrit pour d'autres combats" in err
    code, _, err = run(capsys, [*args[:-2], "--arm", "heuristic", "--arm", "heuristic2=heuristic",
                                "--checkpoint", str(ck)])  # fmt: skip
    assert code == 2 and "écrit pour d'autres combats" in err
