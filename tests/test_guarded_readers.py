"""Every file the CLI reads goes through one guarded reader (engine.content.validation).

Size limit, YAML alias and nesting limits, duplicate keys refused, strict UTF-8
(content and file names), short quotes of bad values; reports and checkpoints
validated with their consistency rules; a sweep rectangle checked against the
map before its squares are listed.

The cases that would hang the old code (a billion-laughs file, a rectangle of
10⁹ rows, a round histogram up to 10⁹) run in a subprocess with a timeout, so
that on the old code they fail by timing out instead of hanging the suite.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.content.creatures import parse_combatant
from engine.content.maps import parse_map
from engine.content.validation import MAX_FILE_BYTES, load_json, load_yaml, quote, read_text
from engine.core.errors import DataError
from harness.checkpoint import Checkpoint
from harness.cli.main import main
from harness.encounter_file import load_encounter_file
from harness.reporter import parse_report

ROOT = Path(__file__).resolve().parent.parent
ARENA = (ROOT / "data" / "maps" / "sample_arena.yaml").read_text(encoding="utf-8")
GOBLIN = (ROOT / "data" / "monsters" / "goblin.json").read_text(encoding="utf-8")
REPORT: dict[str, Any] = json.loads(
    (ROOT / "tests" / "reports" / "equilibre_1000.json").read_text(encoding="utf-8")
)

#: nine levels of nine aliases: 9⁹ (387 million) strings once expanded, as the map's name
BILLION_LAUGHS = ARENA.replace(
    'name: "Arène d\'essai"',
    "name: [&a ["
    + ", ".join(['"lol"'] * 9)
    + "], "
    + ", ".join(
        f"&{n} [{', '.join([f'*{p}'] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "]",
)


def _python(code: str, timeout: float = 60) -> str:
    """Run ``code`` in a fresh interpreter at the repository root; its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _cli(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _french_error(code: int, err: str, needle: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pf1e-sim: erreur : "), err
    assert needle in err, err


# -- YAML: aliases, nesting, duplicate keys ---------------------------------------------


def test_billion_laughs_is_refused_before_it_expands() -> None:
    # old code: the map's « name » check quoted the 387-million-string value in its
    # message, which never finished (the subprocess timed out)
    assert BILLION_LAUGHS != ARENA
    code = f"""
        from engine.core.errors import DataError
        from engine.content.maps import parse_map
        text = {BILLION_LAUGHS!r}
        try:
            parse_map(text, "bombe.yaml")
        except DataError as err:
            print(err)
    """
    out = _python(code, timeout=60)
    assert "bombe.yaml : alias YAML d'une liste ou d'un objet" in out


def test_aliases_of_scalars_are_still_accepted() -> None:
    assert load_yaml("a: &x 3\nb: *x\n", "s") == {"a": 3, "b": 3}
    with pytest.raises(DataError, match="plus de 1000 alias"):
        load_yaml("a: &x 3\nb: [" + ", ".join(["*x"] * 1001) + "]\n", "s")


@pytest.mark.parametrize("text", ["x: " + "[" * 80 + "]" * 80, "x:\n" + "".join(
    "  " * i + "- \n" for i in range(80)
)])  # fmt: skip
def test_deep_yaml_is_refused(text: str) -> None:
    with pytest.raises(DataError, match="trop profondément imbriqué"):
        load_yaml(text, "s")


def test_duplicate_yaml_keys_are_refused_with_their_line(tmp_path: Path) -> None:
    # old code: the second « players » silently replaced the first
    enc = tmp_path / "enc.yaml"
    enc.write_text(
        f"map: {ROOT / 'data/maps/sample_arena.yaml'}\n"
        "sides:\n"
        f"  players: {{creatures: [{ROOT / 'data/monsters/goblin.json'}]}}\n"
        f"  monsters: {{creatures: [{ROOT / 'data/monsters/orc.json'}]}}\n"
        f"  players: {{creatures: [{ROOT / 'data/monsters/orc.json'}]}}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError, match=r"clé 'players' en double \(ligne 5\)"):
        load_encounter_file(enc)


def test_duplicate_sweep_variants_are_refused(tmp_path: Path) -> None:
    enc = tmp_path / "enc.yaml"
    text = (ROOT / "data" / "encounters" / "sweep_archers.yaml").read_text(encoding="utf-8")
    text = text.replace("../", f"{ROOT}/data/")
    text = text.replace(
        "    embuscade:", "    zone basse: { zone: { rows: [1, 2], cols: [1, 2] } }\n    embuscade:"
    )
    enc.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match="clé 'zone basse' en double"):
        load_encounter_file(enc)


# -- JSON --------------------------------------------------------------------------------


def test_duplicate_json_keys_are_refused() -> None:
    doc = GOBLIN.replace('"name":', '"name": "Gob", "name":', 1)
    with pytest.raises(DataError, match="clé 'name' en double"):
        parse_combatant(doc, "g.json")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[" * 80 + "]" * 80, "trop profondément imbriqué"),
        ("[" * 100_000, "trop profondément imbriqué"),
        ("[NaN]", "NaN non standard"),
        ("[-Infinity]", "-Infinity non standard"),
        ("1" * 5000, "nombre hors limites"),
        ('{"a": "\\ud800"}', "demi-paire de substitution"),
        ('{"\\udcff": 1}', "demi-paire de substitution"),
        ("{", "JSON invalide (ligne 1, colonne 2)"),
    ],
)
def test_bad_json_is_refused(text: str, needle: str) -> None:
    with pytest.raises(DataError) as info:
        load_json(text, "s.json")
    assert needle in str(info.value)


def test_a_lone_surrogate_in_a_combatant_name_is_refused() -> None:
    # old code: refused too, by pydantic, with an English message
    doc = json.loads(GOBLIN)
    doc["name"] = "Gob\udcff"
    with pytest.raises(DataError, match="demi-paire de substitution"):
        parse_combatant(json.dumps(doc), "g.json")


# -- size, encoding, file names ----------------------------------------------------------


def test_dev_zero_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # old code: read /dev/zero whole, never returning
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    code, _, err = _cli(capsys, ["report", "/dev/zero"])
    _french_error(code, err, "/dev/zero : fichier trop volumineux (plus de 16 Mio)")


def test_an_oversize_file_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:  # sparse: no disk used
        f.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(DataError, match="fichier trop volumineux"):
        read_text(big)
    exact = tmp_path / "exact.yaml"
    exact.write_bytes(b"a" * 1000)
    assert read_text(exact, limit=1000)[0] == "a" * 1000
    with pytest.raises(DataError, match="plus de 999 octets"):
        read_text(exact, limit=999)


def test_invalid_utf8_is_refused_with_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "stats.json"
    bad.write_bytes(b'{"schema": "\xff"}')
    code, _, err = _cli(capsys, ["report", str(bad)])
    _french_error(code, err, "n'est pas encodé en UTF-8 (octet invalide à la position 12)")


def test_line_ends_are_normalised_as_before(tmp_path: Path) -> None:
    crlf = tmp_path / "m.yaml"
    crlf.write_bytes(ARENA.replace("\n", "\r\n").encode("utf-8"))
    assert read_text(crlf)[0] == ARENA


def test_a_file_name_with_a_lone_surrogate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # old code: the missing file's message was printed fine by Python's stderr, but an
    # existing file with such a name was read and its name reached the --json output,
    # which raised UnicodeEncodeError
    missing = str(tmp_path / "absent\udcff.json")
    code, _, err = _cli(capsys, ["report", missing])
    _french_error(code, err, "absent\\udcff.json : nom de fichier non encodé en UTF-8")
    named = tmp_path / "m\udcff.yaml"
    named.write_text(ARENA, encoding="utf-8")
    goblin = str(ROOT / "data/monsters/goblin.json")
    orc = str(ROOT / "data/monsters/orc.json")
    out = str(tmp_path / "out.json")
    args = ["--map", str(named), "--side", "players", goblin, "--side", "monsters", orc]
    code, _, err = _cli(capsys, [*args, "--runs", "2", "--json", out])
    _french_error(code, err, "nom de fichier non encodé en UTF-8")


def test_a_lone_surrogate_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    goblin = str(ROOT / "data/monsters/goblin.json")
    orc = str(ROOT / "data/monsters/orc.json")
    arena = str(ROOT / "data/maps/sample_arena.yaml")
    code, _, err = _cli(
        capsys, ["--map", arena, "--side", "pl\udcffyers", goblin, "--side", "monsters", orc]
    )
    _french_error(code, err, "camp inconnu « pl\\udcffyers »")


def test_messages_quote_a_short_prefix_of_a_bad_value() -> None:
    huge = "name: [" + ", ".join(["xxxxxxxxxx"] * 100_000) + "]\n"
    with pytest.raises(DataError) as info:
        parse_map(ARENA.replace("name:", "old_name:", 1) + huge.replace("name", "name", 1), "m")
    assert len(str(info.value)) < 300
    assert quote("é" * 1000).endswith("…") and len(quote("é" * 1000)) == 60


# -- sweep rectangles --------------------------------------------------------------------


def test_a_sweep_rectangle_far_off_the_map_is_refused_without_listing_it(tmp_path: Path) -> None:
    # old code: listed the 10⁹ × 3 squares before the map's bounds were checked
    # (the subprocess ran out of time or memory)
    enc = tmp_path / "enc.yaml"
    text = (ROOT / "data" / "encounters" / "sweep_archers.yaml").read_text(encoding="utf-8")
    enc.write_text(
        text.replace("../", f"{ROOT}/data/").replace(
            "rows: [5, 6], cols: [1, 2]", "rows: [0, 1000000000], cols: [1, 3]"
        ),
        encoding="utf-8",
    )
    code = f"""
        from harness.cli.main import main
        raise SystemExit(print(main(["sweep", "--encounter", {str(enc)!r}, "--runs", "1"])))
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.strip().endswith("2"), done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "variante « zone basse » : case de zone : (0,1) est infranchissable" in done.stderr


@pytest.mark.parametrize(
    ("rect", "needle"),
    [
        ("rows: [5, 6], cols: [1, 2]", None),  # on the map: as before
        ("rows: [-3, 1000000000], cols: [1, 2]", "(-3,1) est hors de la carte"),
        ("rows: [5, 1000000000], cols: [1, 2]", "(7,1) est infranchissable"),  # the wall
        ("rows: [5, 6], cols: [1, 1000000000]", "(5,19) est infranchissable"),
        ("rows: [5, 6], cols: [30, 1000000000]", "(5,30) est hors de la carte"),
    ],
)
def test_sweep_rectangles_name_the_first_bad_square(
    tmp_path: Path, rect: str, needle: str | None
) -> None:
    from harness.cli.config import load_setup
    from harness.sweep import build_variants

    enc = tmp_path / "enc.yaml"
    text = (ROOT / "data" / "encounters" / "sweep_archers.yaml").read_text(encoding="utf-8")
    enc.write_text(
        text.replace("../", f"{ROOT}/data/").replace("rows: [5, 6], cols: [1, 2]", rect),
        encoding="utf-8",
    )
    setup = load_setup(None, None, str(enc), None)
    plan = load_encounter_file(enc).sweep
    assert plan is not None
    if needle is None:
        variants = build_variants(setup.encounter, plan.side, plan.variants, str(enc))
        squares = getattr(variants[1].deployment, "squares", None)
        assert squares == ((5, 1), (5, 2), (6, 1), (6, 2))
        return
    with pytest.raises(DataError) as info:
        build_variants(setup.encounter, plan.side, plan.variants, str(enc))
    assert needle in str(info.value)


def test_sweep_rectangles_say_what_their_listed_squares_said() -> None:
    """On every small rectangle around the map, the same zone or the same message as
    the list of its squares (what the old code built)."""
    from engine.core.errors import EncounterError
    from engine.state.deployment import ZoneDeployment, zone_squares
    from harness.encounter_file import ZoneRectangle

    gmap = parse_map(ARENA)

    def outcome(zone: ZoneDeployment | ZoneRectangle) -> object:
        try:
            return zone_squares(gmap, zone.on(gmap) if isinstance(zone, ZoneRectangle) else zone)
        except EncounterError as err:
            return str(err)

    bounds = [-1, 0, 1, 5, 6, 7, 8, 9]
    cols = [-1, 0, 1, 2, 18, 19, 20, 21]
    for r0 in bounds:
        for r1 in (r for r in bounds if r >= r0):
            for c0 in cols:
                for c1 in (c for c in cols if c >= c0):
                    listed = tuple((r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
                    expected = outcome(ZoneDeployment(squares=listed))
                    assert outcome(ZoneRectangle((r0, r1), (c0, c1))) == expected


# -- reports -----------------------------------------------------------------------------


def _report(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(REPORT)
    for path, value in changes.items():
        node: Any = doc
        parts = path.split("__")
        for part in parts[:-1]:
            node = node[int(part)] if part.isdigit() else node[part]
        last = parts[-1]
        if value is _DELETE:
            del node[last]
        else:
            node[int(last) if last.isdigit() else last] = value
    return doc


_DELETE = object()


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"sides__0__wins": 600}, "les victoires et les nuls ne font pas « runs »"),
        ({"sides__0__wilson_3sigma": [0.9, 1.0]}, "l'intervalle de Wilson"),
        ({"combatants__0__damage_dealt_squares": 1}, "« damage_dealt_squares » ne peut venir"),
        ({"sides__0__wins": True}, "entier attendu, reçu True"),
        ({"runs": 0}, "supérieur ou égal à 1"),
        ({"runs": 1000.0}, "entier attendu"),
        ({"draws__count": -1}, "supérieur ou égal à 0"),
        ({"sides__0__rate": 1.5}, "inférieur ou égal à 1"),
        ({"sides__0__rate": 0.51}, "le taux de 'players' n'est pas son nombre"),
        ({"options": _DELETE}, "champ obligatoire manquant"),
        ({"options": {"policies": [1]}}, "objet (clé: valeur) attendu"),
        ({"llm": {"model": "m"}}, "champ obligatoire manquant"),
        ({"rounds__distribution": {"3": 980, "1e9": 20}}, "distribution"),
        ({"rounds__distribution": {"3": 980, "03": 20}}, "distribution"),
        ({"rounds__distribution": {"3": 980, "101": 20}}, "dépasse le plafond"),
        ({"rounds__distribution": {"3": 990}}, "ne fait pas « runs »"),
        ({"combatants__0__side": "elves"}, "camp absent : 'elves'"),
        ({"combatants__0__down_mean": 2.0}, "inférieur ou égal à 1"),
        ({"combatants__0__hits_mean": 9.0}, "« hits_mean » n'est pas le total"),
        ({"sides__0__combatants": 4}, "ne compte pas ses combattants"),
        ({"sides": []}, "longueur invalide"),
        ({"map": ["x" * 100] * 100}, "chaîne de caractères attendue"),
    ],
)
def test_inconsistent_reports_are_refused(changes: dict[str, Any], needle: str) -> None:
    # old code: all but the first four and the unknown side were accepted, and
    # several then crashed the renderings (a dict for « options », a missing « llm » key,
    # a non-integer round key) or gave nonsense verdicts
    with pytest.raises(DataError) as info:
        parse_report(json.dumps(_report(**changes)), "stats.json")
    assert needle in str(info.value), str(info.value)
    assert len(str(info.value)) < 300


def test_a_report_with_a_huge_round_draws_its_histogram(tmp_path: Path) -> None:
    # old code: the histogram looped over every round up to 10⁹ (timed out)
    doc = _report(
        round_cap=10**9,
        rounds__distribution={"3": 500, "999999999": 500},
        rounds__mean=(3 * 500 + 999999999 * 500) / 1000,
        sides__0__wins=500,
        sides__1__wins=500,
        sides__1__rate=0.5,
        sides__1__band_3sigma=[0.45, 0.55],
        draws__count=0,
        draws__rate=0.0,
        draws__band_3sigma=[0.0, 0.0],
        draws__round_cap=0,
        # intervals of other counts: left to be computed, as for an older report
        sides__0__wilson_3sigma=_DELETE,
        sides__1__wilson_3sigma=_DELETE,
        draws__wilson_3sigma=_DELETE,
    )
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps(doc), encoding="utf-8")
    html = tmp_path / "r.html"
    code = f"""
        from harness.cli.main import main
        print(main(["report", {str(stats)!r}, "--no-narrate", "--html", {str(html)!r}]))
    """
    assert _python(code, timeout=60).strip().endswith("0")
    page = html.read_text(encoding="utf-8")
    assert "999999999 rounds : 500 combats" in page
    assert page.count("<rect") < 100


# -- checkpoints -------------------------------------------------------------------------


def _checkpoint(tmp_path: Path, kind: str, done: list[Any]) -> Path:
    path = tmp_path / "ck.json"
    body = {"schema": "pf1e-sim/checkpoint@1", "kind": kind, "fingerprint": "f", "done": done}
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


SWEEP_OK = {"key": [0, 1], "counts": {"runs": 10, "wins": 6, "draws": 1, "rounds": 40}}
EXP_OK = {
    "key": [0, 10],
    "counts": {"arms": 2, "runs": 10, "wins": [6, 7], "draws": [1, 0], "only_arm": [0, 2],
               "only_base": [0, 1]},
}  # fmt: skip


def test_consistent_checkpoints_load(tmp_path: Path) -> None:
    assert Checkpoint(_checkpoint(tmp_path, "sweep", [SWEEP_OK]), "sweep", "f").done
    assert Checkpoint(_checkpoint(tmp_path, "experiment", [EXP_OK]), "experiment", "f").done


def _with(entry: dict[str, Any], **counts: Any) -> dict[str, Any]:
    out = copy.deepcopy(entry)
    out["counts"].update(counts)
    return out


@pytest.mark.parametrize(
    ("kind", "done", "needle"),
    [
        ("sweep", [_with(SWEEP_OK, wins=10)], "plus de victoires et de nuls que de combats"),
        ("sweep", [_with(SWEEP_OK, runs=True)], "comptes"),
        ("sweep", [{**SWEEP_OK, "key": [0, True]}], "clé"),
        ("sweep", [{**SWEEP_OK, "key": [0, -1]}], "clé"),
        ("sweep", [SWEEP_OK, SWEEP_OK], "partie [0, 1] en double"),
        ("sweep", [{"key": [0, 1]}], "comptes absents"),
        ("experiment", [_with(EXP_OK, runs=9)], "nombre de combats"),
        ("experiment", [_with(EXP_OK, wins=[10, 7])], "plus de victoires et de nuls"),
        ("experiment", [_with(EXP_OK, only_arm=[0, 5])], "victoires appariées incohérentes"),
        ("experiment", [_with(EXP_OK, draws=[False, 0])], "comptes"),
        ("experiment", [{**EXP_OK, "key": [10, 10]}], "clé"),
    ],
)
def test_inconsistent_checkpoints_are_refused(
    tmp_path: Path, kind: str, done: list[Any], needle: str
) -> None:
    # old code: only the key's type was checked here; wins + draws > runs, booleans as
    # counts and a part listed twice were accepted by the sweep
    path = _checkpoint(tmp_path, kind, done)
    with pytest.raises(DataError) as info:
        Checkpoint(path, kind, "f")
    assert "point de reprise invalide" in str(info.value) and needle in str(info.value)


def test_a_checkpoint_that_is_not_json_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ck.json"
    path.write_text('{"schema": 1, "schema": 2}', encoding="utf-8")
    with pytest.raises(DataError, match=r"point de reprise illisible \(clé 'schema' en double"):
        Checkpoint(path, "sweep", "f")


def test_names_with_terminal_escapes_never_reach_the_terminal(tmp_path, capsys):
    """A map's and a creature's names (free text) holding escapes and bells: the
    report and the transcript print them without any control character."""
    import json as _json
    import unicodedata

    from harness.cli.main import main

    root = Path(__file__).resolve().parent.parent
    orc = _json.loads((root / "data/monsters/orc.json").read_text(encoding="utf-8"))
    orc["name"] = "Orc\u001b[31mROUGE\u0007\u009b2J"
    orc["attacks"][0]["name"] = "hache\u001b]0;titre\u0007"
    path = tmp_path / "orc.json"
    path.write_text(_json.dumps(orc), encoding="utf-8")
    arena = (root / "data/maps/sample_arena.yaml").read_text(encoding="utf-8")
    assert "Arène d'essai" in arena
    gmap = tmp_path / "arena.yaml"
    gmap.write_text(arena.replace("Arène d'essai", "Arène\\e[2J\\a"), encoding="utf-8")
    argv = [
        "--map", str(gmap),
        "--side", "players", str(root / "data/monsters/goblin.json"),
        "--side", "monsters", str(path), "--runs", "3", "--transcript",
    ]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Rapport d'équilibrage" in out
    assert not [c for c in out if c != "\n" and unicodedata.category(c) == "Cc"]
    # an escape string left open (no BEL nor ST) hides nothing after its line
    gmap.write_text(arena.replace("Arène d'essai", "Arène\\e]0;ouvert"), encoding="utf-8")
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "\n=== Attrition moyenne par combat ===\n" in out
