"""End-to-end tests of the ``pf1e-sim`` command line (French report, errors, schemas)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.run.schemas import ReportModel
from harness.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
MAP = "data/maps/sample_arena.yaml"
GOBLIN = "data/monsters/goblin.json"
ORC = "data/monsters/orc.json"
PREFIX = "pf1e-sim: erreur : "

#: the quick-start encounter, without --runs / --seed
QUICK = ["--map", MAP, "--side", "players", GOBLIN, GOBLIN, GOBLIN, "--side", "monsters", ORC, ORC]
#: the seed invocation, verbatim
SEED_INVOCATION = [*QUICK, "--runs", "1000", "--seed", "1"]
IDS = ["goblin", "goblin-2", "goblin-3", "orc", "orc-2"]
HEADERS = [
    "Combattant",
    "Camp",
    "Touches",
    "Critiques",
    "Dégâts infligés",
    "Dégâts subis",
    "Soins prodigués",
    "Hors de combat",
    "Morts",
]

PCT = r"(\d+\.\d)%"
WIN_RE = re.compile(
    rf"^Victoires (?P<side>\S+) : {PCT} \((?P<n>\d+)\) — bande 3σ : \[{PCT}, {PCT}\], "
    rf"Wilson : \[{PCT}, {PCT}\]$"
)
DRAW_RE = re.compile(rf"^Nuls : {PCT} \((\d+)\)$")
ROUNDS_RE = re.compile(r"^Rounds moyens : (\d+\.\d)$")


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def run_quiet(args: list[str]) -> tuple[int, str, str]:
    """``main(args)`` with stdout/stderr captured (usable from module fixtures)."""
    out, err = io.StringIO(), io.StringIO()
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(args)
    finally:
        os.chdir(cwd)
    return rc, out.getvalue(), err.getvalue()


def run_cli(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    rc = main(args)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def band(wins: int, n: int) -> tuple[str, str, str]:
    """Independent closed form: p, p ± 3√(p(1−p)/n) clamped, as printed (one decimal)."""
    p = wins / n
    s = math.sqrt(p * (1 - p) / n)
    lo, hi = max(0.0, p - 3 * s), min(1.0, p + 3 * s)
    return tuple(f"{100 * x:.1f}" for x in (p, lo, hi))  # type: ignore[return-value]


def wilson(wins: int, n: int, z: float = 3.0) -> tuple[str, str]:
    """Independent closed form of the Wilson score interval at z, as printed."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return f"{100 * max(0.0, centre - half):.1f}", f"{100 * min(1.0, centre + half):.1f}"


def split_row(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


@pytest.fixture(scope="module")
def quick200(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    path = tmp_path_factory.mktemp("json") / "report.json"
    rc, out, err = run_quiet([*QUICK, "--runs", "200", "--seed", "1", "--json", str(path)])
    assert rc == 0, err
    assert err == ""
    return {"out": out, "json": json.loads(path.read_text(encoding="utf-8")), "raw": path}


# -- report layout ------------------------------------------------------------


def test_report_layout_line_by_line(quick200: dict[str, object]) -> None:
    out = quick200["out"]
    assert isinstance(out, str)
    assert out.endswith("\n")
    lines = out.splitlines()
    assert lines[0] == "=== Rapport d'équilibrage ==="
    assert lines[1] == "Carte : Arène d'essai"
    assert lines[2] == "players : 3 combattants"
    assert lines[3] == "monsters : 2 combattants"
    assert lines[4] == "200 combats simulés (seed 1, plafond 100 rounds)"
    assert lines[5] == ""
    m_players = WIN_RE.match(lines[6])
    m_monsters = WIN_RE.match(lines[7])
    assert m_players and m_players["side"] == "players", lines[6]
    assert m_monsters and m_monsters["side"] == "monsters", lines[7]
    m_draws = DRAW_RE.match(lines[8])
    assert m_draws, lines[8]
    assert ROUNDS_RE.match(lines[9]), lines[9]
    assert lines[10] == ""
    assert lines[11] == "=== Attrition moyenne par combat ==="
    assert split_row(lines[12]) == HEADERS
    dash = lines[13]
    assert re.fullmatch(r"-+(  -+){8}", dash), dash
    rows = lines[14:]
    assert [split_row(r)[0] for r in rows] == IDS
    assert [split_row(r)[1] for r in rows] == ["players"] * 3 + ["monsters"] * 2
    for row in rows:
        cells = split_row(row)
        assert len(cells) == 9
        assert all(re.fullmatch(r"\d+\.\d\d", c) for c in cells[2:4]), row
        assert all(re.fullmatch(r"\d+\.\d", c) for c in cells[4:7]), row
        assert all(re.fullmatch(r"\d+\.\d%", c) for c in cells[7:9]), row
        # numeric columns are right-aligned: every row ends where the dash line ends
        assert len(row) == len(dash)
    # header columns start where their dash segments start
    starts = [m.start() for m in re.finditer(r"-+", dash)]
    header = lines[12]
    for name, start in zip(HEADERS[:2], starts[:2], strict=True):
        assert header.index(name) == start


def test_report_counts_and_bands(quick200: dict[str, object]) -> None:
    out = quick200["out"]
    assert isinstance(out, str)
    lines = out.splitlines()
    runs = 200
    total = 0
    for line in lines[6:8]:
        m = WIN_RE.match(line)
        assert m
        wins = int(m["n"])
        total += wins
        rate, lo, hi = band(wins, runs)
        assert (m[2], m[4], m[5]) == (rate, lo, hi), line
        assert float(m[4]) <= float(m[2]) <= float(m[5])
        assert (m[6], m[7]) == wilson(wins, runs), line
        assert float(m[6]) <= float(m[2]) <= float(m[7])
    m = DRAW_RE.match(lines[8])
    assert m
    draws = int(m[2])
    assert m[1] == f"{100 * draws / runs:.1f}"
    assert total + draws == runs


def test_singular_combatant_count(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run_cli(
        capsys,
        ["--map", MAP, "--side", "players", GOBLIN, "--side", "monsters", ORC, "--runs", "5"],
    )
    assert rc == 0
    lines = out.splitlines()
    assert lines[2:5] == [
        "players : 1 combattant",
        "monsters : 1 combattant",
        "5 combats simulés (seed 1, plafond 100 rounds)",
    ]


def test_seed_invocation_verbatim(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(capsys, SEED_INVOCATION)
    assert rc == 0
    assert err == ""
    lines = out.splitlines()
    assert lines[4] == "1000 combats simulés (seed 1, plafond 100 rounds)"
    wins = [int(m["n"]) for m in map(WIN_RE.match, lines[6:8]) if m]
    draws = DRAW_RE.match(lines[8])
    assert len(wins) == 2 and draws
    assert sum(wins) + int(draws[2]) == 1000
    assert [split_row(r)[0] for r in lines[14:]] == IDS


def test_simulate_subcommand_is_identical(
    capsys: pytest.CaptureFixture[str], quick200: dict[str, object]
) -> None:
    rc, out, err = run_cli(capsys, ["simulate", *QUICK, "--runs", "200", "--seed", "1"])
    assert rc == 0 and err == ""
    assert out == quick200["out"]


def test_option_order_does_not_matter(capsys: pytest.CaptureFixture[str]) -> None:
    base = run_cli(capsys, [*QUICK, "--runs", "20", "--seed", "3"])
    shuffled = run_cli(
        capsys,
        [
            *["--seed", "3", "--side", "monsters", ORC, ORC, "--runs", "20"],
            *["--side=players", GOBLIN, GOBLIN, GOBLIN, "--map", MAP],
        ],
    )
    assert base[0] == shuffled[0] == 0
    assert base[1] == shuffled[1]


# -- --json -------------------------------------------------------------------


def test_json_validates_and_matches_report(quick200: dict[str, object]) -> None:
    data = quick200["json"]
    out = quick200["out"]
    assert isinstance(data, dict) and isinstance(out, str)
    assert data["schema"] == "pf1e-sim/report@1"
    ReportModel(**data)
    assert data["map"] == "Arène d'essai"
    assert (data["runs"], data["seed"], data["round_cap"]) == (200, 1, 100)
    assert data["options"]["simple_monster_death"] is False
    lines = out.splitlines()
    for side, line in zip(data["sides"], lines[6:8], strict=True):
        m = WIN_RE.match(line)
        assert m
        assert m["side"] == side["name"]
        assert int(m["n"]) == side["wins"]
        assert m[2] == f"{100 * side['rate']:.1f}"
        lo, hi = side["band_3sigma"]
        assert (m[4], m[5]) == (f"{100 * lo:.1f}", f"{100 * hi:.1f}")
    assert [s["name"] for s in data["sides"]] == ["players", "monsters"]
    assert [s["combatants"] for s in data["sides"]] == [3, 2]
    m = DRAW_RE.match(lines[8])
    assert m and int(m[2]) == data["draws"]["count"]
    assert sum(s["wins"] for s in data["sides"]) + data["draws"]["count"] == 200
    assert sum(data["rounds"]["distribution"].values()) == 200
    assert lines[9] == f"Rounds moyens : {data['rounds']['mean']:.1f}"
    assert [c["id"] for c in data["combatants"]] == IDS
    for c, row in zip(data["combatants"], lines[14:], strict=True):
        cells = split_row(row)
        assert cells[:2] == [c["id"], c["side"]]
        assert cells[2:] == [
            f"{c['hits_mean']:.2f}",
            f"{c['crits_mean']:.2f}",
            f"{c['damage_dealt_mean']:.1f}",
            f"{c['damage_taken_mean']:.1f}",
            f"{c['healing_given_mean']:.1f}",
            f"{100 * c['down_mean']:.1f}%",
            f"{100 * c['dead_mean']:.1f}%",
        ]
        assert c["hits_total"] / 200 == pytest.approx(c["hits_mean"])
        assert c["dead_total"] <= c["down_total"] <= 200


def test_json_unwritable_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "nope" / "report.json"
    rc, out, err = run_cli(capsys, [*QUICK, "--runs", "1", "--json", str(target)])
    assert rc == 2
    assert out == ""  # refused before the fights (a late failure: tests/test_output_files.py)
    assert err.count("\n") == 1 and err.startswith(PREFIX)
    assert str(target) in err and "écriture impossible" in err
    assert "Traceback" not in err
    assert not target.exists()


# -- user errors --------------------------------------------------------------


def _write(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _unknown_field(tmp: Path) -> str:
    data = json.loads((ROOT / GOBLIN).read_text(encoding="utf-8"))
    data["bogus_field"] = 1
    return _write(tmp, "unknown.json", json.dumps(data))


SIDES_OK = ["--side", "players", GOBLIN, "--side", "monsters", ORC]
ErrorCase = tuple[Callable[[Path], list[str]], list[str]]

ERROR_CASES: dict[str, ErrorCase] = {
    "missing-map": (lambda t: [*SIDES_OK, "--runs", "1"], ["--map"]),
    "map-file-missing": (
        lambda t: ["--map", str(t / "absent.yaml"), *SIDES_OK],
        ["absent.yaml", "introuvable"],
    ),
    "map-invalid-yaml": (
        lambda t: ["--map", _write(t, "bad.yaml", "name: x\nterrain: [\n"), *SIDES_OK],
        ["bad.yaml", "YAML"],
    ),
    "unknown-side": (
        lambda t: ["--map", MAP, "--side", "heroes", GOBLIN, "--side", "monsters", ORC],
        ["heroes", "players", "monsters"],
    ),
    "side-not-given": (
        lambda t: ["--map", MAP, "--side", "players", GOBLIN],
        ["monsters", "manquant"],
    ),
    "side-twice": (
        lambda t: ["--map", MAP, "--side", "players", GOBLIN, *SIDES_OK],
        ["players", "deux fois"],
    ),
    "side-without-files": (
        lambda t: ["--map", MAP, "--side", "players", "--side", "monsters", ORC],
        ["players"],
    ),
    "combatant-file-missing": (
        lambda t: [
            "--map",
            MAP,
            "--side",
            "players",
            str(t / "ghost.json"),
            "--side",
            "monsters",
            ORC,
        ],
        ["ghost.json", "introuvable"],
    ),
    "combatant-invalid-json": (
        lambda t: (
            [
                *["--map", MAP, "--side", "players", _write(t, "bad.json", '{"name": ')],
                *["--side", "monsters", ORC],
            ]
        ),
        ["bad.json", "JSON"],
    ),
    "combatant-unknown-field": (
        lambda t: ["--map", MAP, "--side", "players", _unknown_field(t), "--side", "monsters", ORC],
        ["unknown.json", "bogus_field"],
    ),
    "zone-too-small": (
        lambda t: ["--map", MAP, "--side", "players", *[GOBLIN] * 8, "--side", "monsters", ORC],
        ["zone", "8", "7"],
    ),
    "round-cap-0": (lambda t: ["--map", MAP, *SIDES_OK, "--round-cap", "0"], ["--round-cap"]),
    "runs-0": (lambda t: ["--map", MAP, *SIDES_OK, "--runs", "0"], ["--runs"]),
    "runs-abc": (lambda t: ["--map", MAP, *SIDES_OK, "--runs", "abc"], ["--runs", "abc"]),
    "seed-x": (lambda t: ["--map", MAP, *SIDES_OK, "--seed", "x"], ["--seed", "x"]),
    "workers-0": (lambda t: ["--map", MAP, *SIDES_OK, "--workers", "0"], ["--workers"]),
    "unknown-option": (lambda t: ["--map", MAP, *SIDES_OK, "--bogus"], ["--bogus"]),
    "runs-without-value": (lambda t: ["--map", MAP, *SIDES_OK, "--runs"], ["--runs"]),
    "no-side": (lambda t: ["--map", MAP, "--runs", "1"], ["--side"]),
    "schema-foo": (lambda t: ["schema", "foo"], ["foo", "observation", "action", "report"]),
    "simulate-no-args": (lambda t: ["simulate"], ["--map"]),
    "no-args": (lambda t: [], ["--map"]),
    "extra-argument": (lambda t: ["--map", MAP, *SIDES_OK, "--runs", "1", "extra"], ["extra"]),
}


@pytest.mark.parametrize("case", list(ERROR_CASES), ids=list(ERROR_CASES))
def test_user_error(case: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    make_args, fragments = ERROR_CASES[case]
    rc, out, err = run_cli(capsys, make_args(tmp_path))
    assert rc == 2
    assert out == ""
    assert "Traceback" not in err
    assert err.startswith(PREFIX)
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    message = err[len(PREFIX) :]
    assert message.strip(), "empty message"
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_schema_without_name_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(capsys, ["schema"])
    assert rc == 2 and out == ""
    assert err.startswith(PREFIX) and err.count("\n") == 1


def test_schema_without_name_names_the_argument(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run_cli(capsys, ["schema"])
    assert "NOM" in err
    assert "option" not in err


def test_double_dash_error_has_no_control_character(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run_cli(
        capsys, ["--map", MAP, "--side", "players", GOBLIN, "--", "--side", "monsters", ORC]
    )
    assert rc == 2
    assert err.startswith(PREFIX) and err.count("\n") == 1
    assert "\x1f" not in err


# -- help and schemas ---------------------------------------------------------


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["simulate", "--help"]])
def test_help_is_french(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(capsys, args)
    assert rc == 0
    assert err == ""
    flat = re.sub(r"[\s│╭╮╰╯─]+", " ", out)  # the help is drawn in boxes and wrapped
    if args[0] == "simulate":
        for text in ("Fichier YAML de la carte", "Nombre de combats simulés", "--side", "--json"):
            assert text in flat
    else:
        assert "Simulateur de combat Pathfinder 1e" in flat
        assert "simulate" in out and "schema" in out


def test_help_boilerplate_is_french(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, ["simulate", "--help"])
    assert "[required]" not in out
    assert "[default:" not in out
    assert "Show this message" not in out
    assert "Usage:" not in out
    assert "[défaut : 1]" in out and "Affiche cette aide" in out


@pytest.mark.parametrize("name", ["observation", "action", "report"])
def test_schema_subcommand(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(capsys, ["schema", name])
    assert rc == 0 and err == ""
    assert out.endswith("\n")
    data = json.loads(out)
    assert data["$id"] == f"pf1e-sim/{name}@1"
    if name in ("observation", "report"):
        assert "schema" in data["properties"]
        assert "schema_" not in data["properties"]


def test_report_schema_lists_report_fields(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, ["schema", "report"])
    props = json.loads(out)["properties"]
    expected = {"schema", "map", "runs", "seed", "round_cap", "options"}
    expected |= {"sides", "draws", "rounds", "combatants", "llm", "unmodelled"}
    assert set(props) == expected


# -- transcript ---------------------------------------------------------------


def test_transcript_layout(capsys: pytest.CaptureFixture[str]) -> None:
    args = [*QUICK, "--runs", "20", "--seed", "1"]
    rc, out, err = run_cli(capsys, [*args, "--transcript"])
    assert rc == 0 and err == ""
    _, report, _ = run_cli(capsys, args)
    assert out.endswith(report)
    transcript = out[: -len(report)]
    lines = transcript.splitlines()
    assert lines[0] == "=== Déroulé du premier combat ==="
    assert lines[1] == "Round  Combattant  Message"
    assert re.fullmatch(r"-{5}  -{10}  -+", lines[2]), lines[2]
    assert lines[-1] == ""  # blank line between the transcript and the report
    body = lines[3:-1]
    initiative = [line for line in body if line.startswith("initiative : ")]
    assert len(initiative) == 5
    assert body[: len(initiative)] == initiative
    assert {line.split()[2] for line in initiative} == set(IDS)
    assert body[-1].startswith("combat terminé :")
    rows = body[len(initiative) : -1]
    assert rows
    msg_col = len(lines[2]) - len(lines[2].split("  ")[-1])
    last_round = 0
    for row in rows:
        m = re.match(r"^ *(\d+)  (\S+) +", row)
        assert m, row
        assert len(row[:5]) == 5 and row[:5].strip() == m[1]  # right-aligned round
        assert m[2] in IDS
        assert m.end() == msg_col, row
        assert int(m[1]) >= last_round
        last_round = int(m[1])
        assert len(row) <= len(lines[2])


# -- --simple-monster-death ---------------------------------------------------


def test_simple_monster_death(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "smd.json"
    args = [*QUICK, "--runs", "100", "--seed", "1"]
    rc, out, _ = run_cli(capsys, [*args, "--simple-monster-death", "--json", str(path)])
    assert rc == 0
    rows = {split_row(r)[0]: split_row(r) for r in out.splitlines()[14:]}
    for orc in ("orc", "orc-2"):
        assert rows[orc][7] == rows[orc][8]  # Hors de combat == Morts
    data = json.loads(path.read_text(encoding="utf-8"))
    ReportModel(**data)
    assert data["options"]["simple_monster_death"] is True
    for c in data["combatants"]:  # no combatant of the quick start is a PC
        assert c["down_total"] == c["dead_total"], c["id"]
    rc2, plain, _ = run_cli(capsys, args)
    assert rc2 == 0
    assert plain != out


def test_without_flag_quick_start_is_stable(capsys: pytest.CaptureFixture[str]) -> None:
    args = [*QUICK, "--runs", "100", "--seed", "1"]
    first = run_cli(capsys, args)
    second = run_cli(capsys, args)
    assert first == second
    assert first[0] == 0


# -- real processes -----------------------------------------------------------


def _proc(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        cmd,
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )


def test_subprocess_success_exit_0() -> None:
    proc = _proc([sys.executable, "-m", "harness.cli", *QUICK, "--runs", "10"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.splitlines()[0] == "=== Rapport d'équilibrage ==="
    assert "10 combats simulés (seed 1, plafond 100 rounds)" in proc.stdout


def test_subprocess_user_error_exit_2() -> None:
    proc = _proc([sys.executable, "-m", "harness.cli", *QUICK, "--runs", "abc"])
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(PREFIX)
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr


def test_console_script_exit_codes() -> None:
    script = Path(sys.executable).parent / "pf1e-sim"
    if not script.exists():
        pytest.skip("console script pf1e-sim not installed in this environment")
    ok = _proc([str(script), "schema", "report"])
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["$id"] == "pf1e-sim/report@1"
    bad = _proc([str(script), "--map", "absent.yaml", *SIDES_OK])
    assert bad.returncode == 2
    assert bad.stderr.startswith(PREFIX) and bad.stderr.count("\n") == 1
    assert "Traceback" not in bad.stderr


# -- the reporter: « Analyse », report command, errors ------------------------------------------
def test_narrate_without_an_available_model_prints_the_template_and_why(capsys, monkeypatch):
    import harness.reporter
    from harness.models import ModelSetupError

    def missing(spec, **_kw):
        raise ModelSetupError("le paquet « llama_cpp » manque : uv sync --extra llm")

    monkeypatch.setattr(harness.reporter, "open_model", missing)
    code = main([*QUICK, "--runs", "20", "--narrate"])
    out, _ = capsys.readouterr()
    assert code == 0
    analysis = out.split("=== Analyse ===\n", 1)[1]
    assert analysis.startswith("La rencontre est")
    assert "Rédaction : gabarit déterministe (modèle local indisponible" in analysis
    assert "uv sync --extra llm" in analysis


def test_unknown_narrator_model_fails_before_the_fights(capsys):
    code = main([*QUICK, "--narrate", "--narrator-model", "gpt4"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == (
        "pf1e-sim: erreur : modèle inconnu « gpt4 » (formes : local, local:qwen-0.5b, "
        "gguf:CHEMIN, openai:MODELE, replay:CHEMIN)\n"
    )


def test_report_command_rejects_a_file_that_is_not_a_report(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text('{"schema": "autre"}', encoding="utf-8")
    assert main(["report", str(bad)]) == 2
    assert "ce n'est pas un objet statistique pf1e-sim/report@1" in capsys.readouterr()[1]
    assert main(["report", str(tmp_path / "absent.json")]) == 2
    assert "lecture impossible" in capsys.readouterr()[1]
    bad.write_text("{", encoding="utf-8")
    assert main(["report", str(bad)]) == 2
    assert "JSON invalide" in capsys.readouterr()[1]


def test_saved_report_round_trips_through_the_report_command(tmp_path, capsys):
    stats = tmp_path / "stats.json"
    assert main([*QUICK, "--runs", "20", "--json", str(stats)]) == 0
    printed = capsys.readouterr()[0]
    assert main(["report", str(stats), "--no-narrate"]) == 0
    assert capsys.readouterr()[0] == printed


def test_exit_statuses_set_inside_a_command_reach_the_caller(capsys, monkeypatch):
    """typer (not in standalone mode) returns these statuses instead of raising them."""
    import engine.run.audit
    import harness.parallel
    import harness.rolls

    class Failed:
        passed = False

    monkeypatch.setattr(engine.run.audit, "audit_pack", lambda pack, samples, seed: [Failed()])
    monkeypatch.setattr(harness.rolls, "render_audit", lambda results, samples, seed: "")
    assert main(["audit-dice", "--pack", "pf1e", "--samples", "100"]) == 1

    def interrupted(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(harness.parallel, "simulate", interrupted)
    capsys.readouterr()
    assert main(["--encounter", "data/encounters/quickstart.yaml", "--runs", "1"]) == 130
    assert "pf1e-sim: interrompu" in capsys.readouterr()[1]


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_stops_a_run_with_several_workers() -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) with workers:
    the command says « interrompu », exits 130 and leaves no worker behind."""
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", *QUICK, "--runs", "1000000", "--workers", "2"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        start_new_session=True,  # its own process group, like a terminal's foreground job
        # a test runner may ignore SIGINT; the command must start with the default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        time.sleep(4)  # the workers are playing
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert err.endswith("pf1e-sim: interrompu\n")
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, 0)  # anything left in the group?
        pytest.fail("a worker outlived the command")


def test_spell_columns_count_casts_slots_and_conditions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The wizard of ``tests/scenarios/wizard_sleep.yaml`` (scripted: Sleep, then
    Magic Missile) fills the spell columns; the goblins, who cast nothing, show 0."""
    path = tmp_path / "r.json"
    rc, out, _ = run_cli(
        capsys,
        ["--encounter", "tests/scenarios/wizard_sleep.yaml", "--runs", "5", "--json", str(path)],
    )
    assert rc == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = {c["id"]: c for c in data["combatants"]}
    wizard = rows.pop("magicien")
    # every fight: Sleep (a level-1 slot) at least; missiles are level 1 too
    assert wizard["spells_cast_total"] >= 5
    assert wizard["slots_spent_total"] == wizard["spells_cast_total"]
    assert wizard["conditions_inflicted_total"] > 0  # goblins put to sleep
    assert all(
        c["spells_cast_total"] == c["slots_spent_total"] == c["conditions_inflicted_total"] == 0
        for c in rows.values()
    )
    header = next(line for line in out.splitlines() if line.startswith("Combattant"))
    assert header.endswith("Sorts lancés  Emplacements dépensés  États infligés")
    line = next(line for line in out.splitlines() if line.startswith("magicien "))
    assert line.split()[-3:] == [
        f"{wizard['spells_cast_total'] / 5:.2f}",
        f"{wizard['slots_spent_total'] / 5:.2f}",
        f"{wizard['conditions_inflicted_total'] / 5:.2f}",
    ]


def test_report_without_casts_keeps_its_columns(quick200: dict[str, object]) -> None:
    out = quick200["out"]
    assert isinstance(out, str)
    assert "Sorts lancés" not in out and "États infligés" not in out
