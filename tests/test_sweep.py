"""Sweeps: deployment variants × strategies, workers, checkpoints and resuming, CLI."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path

import pytest

import harness.sweep
from engine.run.stats import wilson_band, win_rate_band
from harness.cli.config import load_setup
from harness.cli.main import main
from harness.encounter_file import load_encounter_file
from harness.html import render_sweep_html, sweep_heatmap
from harness.parallel import simulate
from harness.report import band
from harness.sweep import (
    CellCounts,
    Strategy,
    SweepResult,
    build_variants,
    render_sweep,
    run_sweep,
    sweep_csv,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "data/encounters/sweep_archers.yaml"
CELLS = 15  # 5 variants × 3 strategies


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def run(capsys, args):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _example():
    setup = load_setup(None, None, EXAMPLE, None)
    plan = load_encounter_file(EXAMPLE).sweep
    assert plan is not None
    variants = build_variants(setup.encounter, plan.side, plan.variants, EXAMPLE)
    strategies = [Strategy(n, s) for n, s in plan.strategies]
    return setup, variants, strategies


def _sweep(setup, variants, strategies, **kw):
    return run_sweep(variants, setup.policies, "players", strategies, seed=1, round_cap=100, **kw)


@pytest.fixture
def count_fights(monkeypatch):
    """Count the fights played in this process."""
    calls = []
    real = harness.sweep.play_fight

    def counted(*args, **kw):
        calls.append(args[1])
        return real(*args, **kw)

    monkeypatch.setattr(harness.sweep, "play_fight", counted)
    return calls


# -- the runner --------------------------------------------------------------------------


def test_each_cell_is_a_plain_simulation_of_its_deployment_and_policy():
    setup, variants, strategies = _example()
    res = _sweep(setup, variants, strategies, runs=8)
    for vi in (0, 3):
        for si, strat in enumerate(strategies):
            enc = variants[vi].encounter
            specs = tuple(strat.policy if p.side == "players" else s
                          for p, s in zip(enc.placements, setup.policies, strict=True))  # fmt: skip
            alone = simulate(enc, runs=8, seed=1, round_cap=100, policies=specs).tally
            cell = res.cells[vi][si]
            assert (cell.wins, cell.draws, cell.runs) == (alone.wins[0], alone.draws, 8)


def test_workers_give_identical_results(count_fights):
    setup, variants, strategies = _example()
    one = _sweep(setup, variants, strategies, runs=5).to_dict()
    assert len(count_fights) == CELLS * 5
    two = _sweep(setup, variants, strategies, runs=5, workers=2).to_dict()
    assert two == one
    assert len(count_fights) == CELLS * 5  # the pieces were played by the workers


def test_an_interrupted_sweep_resumes_without_replaying_finished_cells(tmp_path, count_fights):
    from harness.checkpoint import Checkpoint

    setup, variants, strategies = _example()
    whole = _sweep(setup, variants, strategies, runs=4).to_dict()
    path = tmp_path / "ck.json"

    def stop_after_four(_fights, cells):
        if cells == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _sweep(setup, variants, strategies, runs=4, progress=stop_after_four,
               checkpoint=Checkpoint(path, "sweep", "f"))  # fmt: skip
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert [e["key"] for e in saved["done"]] == [[0, 0], [0, 1], [0, 2], [1, 0]]
    count_fights.clear()
    book = Checkpoint(path, "sweep", "f")
    res = _sweep(setup, variants, strategies, runs=4, checkpoint=book)
    assert res.resumed == 4
    assert len(count_fights) == (CELLS - 4) * 4
    assert res.to_dict() == whole
    count_fights.clear()  # everything is in the checkpoint now: nothing is played
    again = _sweep(setup, variants, strategies, runs=4, checkpoint=Checkpoint(path, "sweep", "f"))
    assert count_fights == [] and again.to_dict() == whole


# -- intervals: the 3σ band and the Wilson interval ---------------------------------------


def _counted(*counts):
    """A 2 × 2 sweep object of the example's first deployments and strategies whose
    cells (row order) won ``counts`` of 200 fights."""
    _, variants, strategies = _example()
    cells = [[CellCounts(200, w, 0, 1000) for w in counts[:2]],
             [CellCounts(200, w, 0, 1000) for w in counts[2:]]]  # fmt: skip
    res = SweepResult(None, "Arène", "players", tuple(variants[:2]), tuple(strategies[:2]),
                      1, 200, 100, cells)  # fmt: skip
    return res.to_dict()


def _name(cell):
    return f"« {cell['variant']} » × « {cell['strategy']} »"


def test_a_cell_won_every_time_keeps_a_wilson_width_and_it_decides_the_overlap():
    data = _counted(200, 185, 100, 0)
    top, near, half, none = data["cells"]
    assert data["best"] == {"variant": top["variant"], "strategy": top["strategy"],
                            "overlapping": [[near["variant"], near["strategy"]]]}  # fmt: skip
    for cell in data["cells"]:
        lo, hi = cell["wilson_3sigma"]
        assert [lo, hi] == list(wilson_band(cell["wins"], cell["runs"]))
        assert lo <= cell["rate"] <= hi and hi - lo > 0
    # at 200/200 and 0/200 the 3σ band is a point; Wilson's bounds are n/(n+z²), z²/(n+z²)
    assert top["band_3sigma"] == [1.0, 1.0] and none["band_3sigma"] == [0.0, 0.0]
    assert top["wilson_3sigma"] == [pytest.approx(200 / 209), 1.0]
    assert none["wilson_3sigma"] == [0.0, pytest.approx(9 / 209)]
    # 185/200 is apart from 200/200 by the 3σ bands, not by the Wilson intervals
    assert win_rate_band(185, 200)[2] < win_rate_band(200, 200)[1]
    assert near["wilson_3sigma"][1] >= top["wilson_3sigma"][0]
    assert half["wilson_3sigma"][1] < top["wilson_3sigma"][0]

    text = render_sweep(data)
    assert "Victoires players par case (taux [intervalle de Wilson à 3σ, en %]) :" in text
    both = f"bande 3σ : {band(*top['band_3sigma'])}, Wilson : {band(*top['wilson_3sigma'])}"
    assert f"{_name(top)} — victoires players 100.0% (200/200), {both}\n" in text
    assert "Cases dont l'intervalle de Wilson atteint le sien" in text
    lo, hi = near["wilson_3sigma"]
    assert f"\n- {_name(near)} : 92.5% [{100 * lo:.1f}, {100 * hi:.1f}]\n" in text
    assert f"- {_name(half)}" not in text and f"- {_name(none)}" not in text
    lo, hi = none["wilson_3sigma"]
    assert f"0.0% [{100 * lo:.1f}, {100 * hi:.1f}]" in text  # the table

    svg = sweep_heatmap(data)
    assert "entre crochets : intervalle de Wilson à 3σ (en %)" in svg
    for cell in data["cells"]:
        assert (f"bande 3σ {band(*cell['band_3sigma'])}, Wilson {band(*cell['wilson_3sigma'])}"
                "</title>") in svg  # fmt: skip
    page = render_sweep_html(data)
    assert "<th>Bande 3σ</th><th>Wilson</th>" in page
    assert (f'<td class="n">{band(*top["band_3sigma"])}</td>'
            f'<td class="n">{band(*top["wilson_3sigma"])}</td>') in page  # fmt: skip
    assert f"Wilson : {band(*top['wilson_3sigma'])}." in page


def test_no_overlap_is_said_from_the_wilson_intervals():
    data = _counted(200, 150, 100, 0)
    assert data["best"]["overlapping"] == []
    assert ("Aucune autre case n'atteint son intervalle de Wilson : elle est nettement "
            "meilleure.") in render_sweep(data)  # fmt: skip


def test_csv_gives_both_intervals_of_every_cell():
    data = _counted(200, 185, 100, 0)
    rows = list(csv.DictReader(io.StringIO(sweep_csv(data))))
    assert list(rows[0]) == [
        "variant", "strategy", "runs", "wins", "draws", "losses", "rate", "band_3sigma_low",
        "band_3sigma_high", "wilson_3sigma_low", "wilson_3sigma_high", "rounds_mean",
    ]  # fmt: skip
    for row, cell in zip(rows, data["cells"], strict=True):
        lo, hi = wilson_band(int(row["wins"]), int(row["runs"]))
        assert float(row["wilson_3sigma_low"]) == pytest.approx(lo, abs=1e-6)
        assert float(row["wilson_3sigma_high"]) == pytest.approx(hi, abs=1e-6)
        assert float(row["band_3sigma_low"]) == pytest.approx(cell["band_3sigma"][0], abs=1e-6)


def test_a_sweep_written_before_the_wilson_intervals_renders_with_them():
    data = _counted(200, 185, 100, 0)
    old = copy.deepcopy(data)
    for cell in old["cells"]:
        del cell["wilson_3sigma"]
    old["best"]["overlapping"] = []  # what the 3σ bands decided
    for render in (render_sweep, sweep_csv, sweep_heatmap, render_sweep_html):
        assert render(old) == render(data)


# -- CLI ---------------------------------------------------------------------------------


def _outputs(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    return d, ["--csv", str(d / "s.csv"), "--json", str(d / "s.json"), "--heatmap",
               str(d / "h.svg"), "--html", str(d / "s.html")]  # fmt: skip


def _files(d):
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.name != "ck.json"}


def test_sweep_command_outputs_and_workers(capsys, tmp_path):
    d1, files1 = _outputs(tmp_path, "one")
    code, out, err = run(capsys, ["sweep", "--encounter", EXAMPLE, "--runs", "6", *files1])
    assert code == 0, err
    assert "=== Balayage : Placement et stratégie des gobelins ===" in out
    assert "5 déploiements × 3 stratégies = 15 cases, 6 combats par case" in out
    assert "formation en coin ancrée en (4,9), face à l'est (vers l'ennemi)" in out
    assert "Meilleure case : « " in out
    data = json.loads((d1 / "s.json").read_text(encoding="utf-8"))
    assert data["schema"] == "pf1e-sim/sweep@1" and len(data["cells"]) == CELLS
    for cell in data["cells"]:
        assert cell["wilson_3sigma"] == list(wilson_band(cell["wins"], cell["runs"]))
    assert data["variants"][3]["starts"] == {"goblin": [4, 9], "goblin-2": [3, 8],
                                             "goblin-3": [5, 8]}  # fmt: skip
    csv_lines = (d1 / "s.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0].startswith("variant,strategy,runs,wins,draws,losses,rate")
    assert len(csv_lines) == 1 + CELLS
    svg = (d1 / "h.svg").read_text(encoding="utf-8")
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    assert svg.count("<title>") == CELLS and 'stroke="#d00"' in svg
    html = (d1 / "s.html").read_text(encoding="utf-8")
    assert "<svg" in html and "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    d2, files2 = _outputs(tmp_path, "two")
    code, out2, _ = run(capsys, ["sweep", "--encounter", EXAMPLE, "--runs", "6", "--workers", "2",
                                 *files2])  # fmt: skip
    assert code == 0 and out2 == out
    assert _files(d2) == _files(d1)


def test_sweep_command_resumes_from_a_partial_checkpoint(capsys, tmp_path, count_fights):
    d1, files1 = _outputs(tmp_path, "whole")
    ck = str(d1 / "ck.json")
    args = ["sweep", "--encounter", EXAMPLE, "--runs", "3", "--checkpoint", ck]
    code, out, _ = run(capsys, [*args, *files1])
    assert code == 0 and len(count_fights) == CELLS * 3
    saved = json.loads(Path(ck).read_text(encoding="utf-8"))
    assert len(saved["done"]) == CELLS
    # as if it had been killed after 6 cells: keep them, in another order
    saved["done"] = saved["done"][:6][::-1]
    Path(ck).write_text(json.dumps(saved), encoding="utf-8")
    count_fights.clear()
    d2, files2 = _outputs(tmp_path, "resumed")
    code, out2, err = run(capsys, [*args, *files2])
    assert code == 0
    assert "Reprise : 6 cases sur 15 lues dans" in err
    assert len(count_fights) == (CELLS - 6) * 3
    assert out2 == out and _files(d2) == _files(d1)
    # a different seed: the checkpoint was written for other fights
    code, _, err = run(capsys, [*args, "--seed", "2"])
    assert code == 2 and "écrit pour d'autres combats" in err and "Traceback" not in err


def test_sweep_interrupted_on_the_command_line_says_how_to_resume(capsys, tmp_path, monkeypatch):
    real = harness.sweep._piece
    calls = []

    def piece(*args):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(harness.sweep, "_piece", piece)
    ck = tmp_path / "ck.json"
    code, _, err = run(capsys, ["sweep", "--encounter", EXAMPLE, "--runs", "2", "--checkpoint",
                                str(ck)])  # fmt: skip
    assert code == 130
    assert "2 cases sur 15 enregistrées dans" in err and "relancez la même commande" in err
    assert len(json.loads(ck.read_text(encoding="utf-8"))["done"]) == 2


def _encounter(tmp_path, sweep: str) -> str:
    data = ROOT / "data"
    text = f"""
map: {data / "maps/sample_arena.yaml"}
sides:
  players:
    creatures: [{data / "monsters/goblin.json"}, {data / "monsters/goblin.json"}]
  monsters:
    creatures: [{data / "monsters/orc.json"}]
{sweep}
"""
    path = tmp_path / "enc.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("sweep", "needle"),
    [
        ("", "pas de section « sweep »"),
        (
            "sweep: {side: elves, variants: {a: {}}, strategies: {h: heuristic}}",
            "champ « sweep.side » : camp inconnu « elves »",
        ),
        (
            "sweep: {side: players, variants: {a: {zone: A, cells: [[1, 1], [1, 2]]}}, "
            "strategies: {h: heuristic}}",
            "une seule façon de se déployer par variante (zone, cells ou formation)",
        ),
        (
            "sweep: {side: players, variants: {a: {cells: [[1, 1], [1]]}}, "
            "strategies: {h: heuristic}}",
            "[ligne, colonne] attendu, reçu [1]",
        ),
        (
            "sweep: {side: players, variants: {a: {formation: {shape: square, anchor: [3, 3]}}}, "
            "strategies: {h: heuristic}}",
            "champ « sweep.variants[\"a\"].formation.shape » : valeur invalide 'square'",
        ),
        (
            "sweep: {side: players, variants: {mur: {formation: {shape: column, anchor: [1, 1],"
            " facing: east}}}, strategies: {h: heuristic}}",
            "variante « mur » : formation en colonne ancrée en (1,1), face à l'est de « Goblin » "
            "(camp « players ») : (1,0) est infranchissable",
        ),
        (
            "sweep: {side: players, variants: {a: {zone: {rows: [6, 5], cols: [1, 2]}}}, "
            "strategies: {h: heuristic}}",
            "première ≤ dernière",
        ),
        (
            "sweep: {side: players, variants: {a: {}}, strategies: {h: 'strategy:nope.yaml'}}",
            "nope.yaml",
        ),
        (
            "sweep: {side: players, variants: {'': {}}, strategies: {h: heuristic}}",
            "champ « sweep.variants » : chaque entrée a besoin d'un nom non vide",
        ),
    ],
)
def test_sweep_file_errors_are_french(capsys, tmp_path, sweep, needle):
    path = _encounter(tmp_path, sweep)
    code, _, err = run(capsys, ["sweep", "--encounter", path, "--runs", "1"])
    assert code == 2 and needle in err and "Traceback" not in err
    if "variante" in needle or "sweep.side" in needle:
        assert path in err  # the file is named


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--heatmap", "h.png"], "le PNG n'est pas pris en charge"),
        (["--heatmap", "h.txt"], "--heatmap attend un fichier .svg"),
        (["--checkpoint", "/nonexistent-dir/ck.json"], "n'existe pas"),
        (["--runs", "0"], "--runs"),
    ],
)
def test_sweep_option_errors_are_french(capsys, args, needle):
    code, _, err = run(capsys, ["sweep", "--encounter", EXAMPLE, *args])
    assert code == 2 and needle in err and "Traceback" not in err


def test_a_corrupt_or_foreign_checkpoint_is_refused(capsys, tmp_path):
    ck = tmp_path / "ck.json"
    ck.write_text("{not json", encoding="utf-8")
    args = ["sweep", "--encounter", EXAMPLE, "--runs", "1", "--checkpoint", str(ck)]
    code, _, err = run(capsys, args)
    assert code == 2 and "point de reprise illisible" in err
    ck.write_text(json.dumps({"schema": "pf1e-sim/checkpoint@1", "kind": "experiment",
                              "fingerprint": "x", "done": []}), encoding="utf-8")  # fmt: skip
    code, _, err = run(capsys, args)
    assert code == 2 and "« experiment », pas « sweep »" in err
