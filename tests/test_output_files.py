"""Output files: one atomic writer, and output paths checked before the fights.

Every file the CLI writes goes through :mod:`harness.output`: a write that
fails half-way (full disk, I/O error, Ctrl-C) leaves the previous file byte for
byte as it was and no temporary file behind; a user's own ``PATH.tmp`` is never
touched; a path that cannot be written is refused before the first fight.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.core.errors import DataError, os_error_fr
from harness.cli.main import main
from harness.output import check_output, write_atomic

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "pf1e-sim: erreur : "
QUICK = ["--map", "data/maps/sample_arena.yaml", "--side", "players", "data/monsters/goblin.json",
         "--side", "monsters", "data/monsters/orc.json", "--runs", "3", "--seed", "1"]  # fmt: skip
SWEEP = "data/encounters/sweep_archers.yaml"
EXPERIMENT = "data/encounters/experiment_archers.yaml"
FOCUS = "cassettes/goblin_vs_orcs_qwen05.json"
OLD = b'{"previous": "report", "bytes": "kept"}\n' * 50
FULL = "plus de place sur le disque"


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


# -- failures injected half-way -----------------------------------------------------------------


def fail_write_midway(monkeypatch: pytest.MonkeyPatch, exc: BaseException | None = None) -> None:
    """``os.write`` to a file (not stdin/out/err) writes half its bytes once, then fails."""
    real = os.write
    calls = [0]

    def write(fd: int, data: bytes) -> int:
        if fd <= 2:
            return real(fd, data)
        calls[0] += 1
        if calls[0] > 1:
            raise exc if exc is not None else OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, bytes(data)[: max(1, len(data) // 2)])  # a short write, as a full disk

    monkeypatch.setattr(os, "write", write)


def fail_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    def fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", fsync)


def fail_replace(monkeypatch: pytest.MonkeyPatch) -> None:
    def replace(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", replace)


FAULTS = {
    "write": (fail_write_midway, FULL),
    "fsync": (fail_fsync, "erreur d'entrée-sortie"),
    "replace": (fail_replace, FULL),
}


def existing(folder: Path, name: str = "old.json", content: bytes = OLD) -> Path:
    path = folder / name
    path.write_bytes(content)
    return path


def assert_intact(path: Path, content: bytes = OLD) -> None:
    assert path.read_bytes() == content
    leftovers = [p.name for p in path.parent.iterdir() if p.name.startswith(f".{path.name}.")]
    assert leftovers == [], leftovers


# -- the writer ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_write_failing_midway_leaves_the_old_file_byte_identical(fault, tmp_path, monkeypatch):
    path = existing(tmp_path)
    inject, message = FAULTS[fault]
    inject(monkeypatch)
    with pytest.raises(DataError) as caught:
        write_atomic(path, "nouveau contenu " * 1000)
    assert str(caught.value).startswith(f"{path} : écriture impossible : {message}")
    monkeypatch.undo()
    assert_intact(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]


def test_ctrl_c_in_the_middle_of_a_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = existing(tmp_path)
    fail_write_midway(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "x" * 10_000)
    monkeypatch.undo()
    assert_intact(path)


def test_a_text_that_is_not_utf8_is_refused_before_any_file_is_touched(tmp_path, monkeypatch):
    """A lone surrogate (a file name that is not UTF-8) once left the old --json at 0 bytes."""
    path = existing(tmp_path)
    opened: list[object] = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    with pytest.raises(DataError, match="non encodable en UTF-8"):
        write_atomic(path, '{"map_file": "carte\udcff.yaml"}')
    assert opened == []
    assert_intact(path)


def test_a_users_own_tmp_file_is_never_touched(tmp_path):
    path = existing(tmp_path, "report.json")
    mine = existing(tmp_path, "report.json.tmp", b"my notes")
    dotted = existing(tmp_path, ".report.json.tmp", b"my other notes")
    write_atomic(path, "new\n")
    assert path.read_text(encoding="utf-8") == "new\n"
    assert mine.read_bytes() == b"my notes" and dotted.read_bytes() == b"my other notes"
    assert len(list(tmp_path.iterdir())) == 3


def test_permissions_are_kept_and_a_new_file_follows_the_umask(tmp_path):
    path = existing(tmp_path)
    path.chmod(0o640)
    write_atomic(path, "x")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    old_mask = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.txt", "x")
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


def test_a_symbolic_link_is_written_through(tmp_path):
    real = existing(tmp_path, "real.json")
    link = tmp_path / "link.json"
    link.symlink_to(real.name)
    write_atomic(link, "via le lien\n")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "via le lien\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_pipe_is_written_in_place_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, "dans le tube")
    reader.join(timeout=10)
    assert got == [b"dans le tube"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_link_to_a_pipe_is_written_through_in_place(tmp_path):
    """As ``--json /dev/stdout`` does when the output is piped: neither is replaced."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out"
    link.symlink_to(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    check_output(link)
    write_atomic(link, "par le lien")
    reader.join(timeout=10)
    assert got == [b"par le lien"]
    assert link.is_symlink() and stat.S_ISFIFO(fifo.stat().st_mode)


def test_json_to_dev_stdout_when_piped():
    if not Path("/dev/stdout").exists():
        pytest.skip("no /dev/stdout")
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", *QUICK, "--json", "/dev/stdout"],
        check=False, capture_output=True, text=True, encoding="utf-8", timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report, _, data = proc.stdout.partition("{\n")
    assert report.startswith("=== Rapport d'équilibrage ===")
    assert json.loads("{\n" + data)["schema"] == "pf1e-sim/report@1"


def test_a_long_name_still_gets_a_temporary_file(tmp_path):
    path = tmp_path / ("r" * 250 + ".json")
    write_atomic(path, "ok")
    assert path.read_text(encoding="utf-8") == "ok"


# -- the early check ----------------------------------------------------------------------------


def test_check_output_refusals(tmp_path, monkeypatch):
    def why(path: Path) -> str:
        with pytest.raises(DataError) as caught:
            check_output(path)
        return str(caught.value)

    assert (
        why(tmp_path)
        == f"{tmp_path} : écriture impossible : {os_error_fr(IsADirectoryError(21, ''))}"
    )
    assert why(tmp_path).endswith("c'est un répertoire, pas un fichier")
    missing = tmp_path / "nope" / "r.json"
    assert why(missing).endswith(f"le dossier « {missing.parent} » n'existe pas")
    afile = existing(tmp_path, "afile")
    assert why(afile / "r.json").endswith(f"« {afile} » n'est pas un dossier")
    assert why(tmp_path / ("x" * 300)).endswith("nom de fichier trop long")
    check_output(tmp_path / "fine.json")  # a writable folder: no error, nothing created
    check_output(afile)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]
    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    assert "permission refusée" in why(tmp_path / "fine.json")


# -- errno messages -----------------------------------------------------------------------------


@pytest.mark.parametrize("code", [5, 13, 20, 21, 27, 28, 30, 36, 122])
def test_errno_messages_are_french(code):
    if code == 122 and sys.platform != "linux":
        pytest.skip("EDQUOT is 122 on Linux only")
    message = os_error_fr(OSError(code, "english"))
    assert not message.startswith("erreur système") and "english" not in message


def test_errno_messages_of_a_full_disk():
    assert os_error_fr(OSError(errno.ENOSPC, "")) == FULL
    assert os_error_fr(OSError(errno.EROFS, "")) == "système de fichiers en lecture seule"


# -- each writer --------------------------------------------------------------------------------


def test_checkpoint_save_is_atomic_and_spares_a_users_tmp_file(tmp_path, monkeypatch):
    from harness.checkpoint import Checkpoint

    path = tmp_path / "ck.json"
    mine = existing(tmp_path, "ck.json.tmp", b"not yours")  # the old fixed temporary name
    cell = {"counts": {"runs": 1, "wins": 1, "draws": 0, "rounds": 3}}
    Checkpoint(path, "sweep", "f").add((0, 0), cell)
    before = path.read_bytes()
    assert mine.read_bytes() == b"not yours"
    book = Checkpoint(path, "sweep", "f")
    fail_write_midway(monkeypatch)
    with pytest.raises(DataError, match=f"ck.json : écriture impossible : {FULL}"):
        book.add((0, 1), cell)
    monkeypatch.undo()
    assert path.read_bytes() == before and mine.read_bytes() == b"not yours"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.json", "ck.json.tmp"]


class _Echo:
    model_id = "echo"


def test_cassette_save_is_atomic_and_spares_a_users_tmp_file(tmp_path, monkeypatch):
    from harness.models import RecordingModel

    path = existing(tmp_path, "c.json")
    mine = existing(tmp_path, "c.tmp", b"not yours")  # the old fixed temporary name
    rec = RecordingModel(_Echo(), path, "")
    fail_write_midway(monkeypatch)
    with pytest.raises(DataError, match=FULL):
        rec.save()
    monkeypatch.undo()
    assert_intact(path)
    rec.save()
    assert json.loads(path.read_text(encoding="utf-8"))["model"] == "echo"
    assert mine.read_bytes() == b"not yours"


def test_model_assembly_failing_midway_leaves_nothing(tmp_path, monkeypatch):
    from harness.models import EmbeddedModel, ModelSetupError, assemble

    pkg = tmp_path / "site" / "fakeasm_part1"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    blob = b"GGUF" + b"z" * 5000
    (pkg / "data" / "part01.bin").write_bytes(blob)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    model = EmbeddedModel("asm", "asm.gguf", "fakeasm_part", 1, len(blob),
                          hashlib.sha256(blob).hexdigest())  # fmt: skip
    cache = tmp_path / "cache"
    try:
        fail_write_midway(monkeypatch)
        with pytest.raises(ModelSetupError, match=f"ne peut pas être assemblé .* : {FULL}"):
            assemble(model, cache)
        monkeypatch.undo()
        assert list(cache.iterdir()) == []
        assert assemble(model, cache).read_bytes() == blob
        assert sorted(p.name for p in cache.iterdir()) == ["asm.gguf", "asm.sha256"]
    finally:
        sys.modules.pop("fakeasm_part1", None)


def test_strategy_cache_write_failure_costs_nothing_and_leaves_no_temp(tmp_path, monkeypatch):
    import harness.strategy_compile as sc
    from policies.strategy import load_strategy

    spec = load_strategy("data/strategies/focus_dangerous.yaml")
    monkeypatch.setattr(sc, "open_model", lambda _m, **_kw: None)
    monkeypatch.setattr(sc, "compile_text", lambda _t, _c, _r: sc.Compilation(spec, ()))
    fail_fsync(monkeypatch)
    got, cached = sc.compile_cached("Focus the archer", "local")
    assert got.spec == spec and not cached
    folder = Path(os.environ["PF1E_SIM_CACHE"]) / "strategies"
    assert list(folder.iterdir()) == []


# -- through the CLI: a late failure keeps the old file and the printed results --------------------


def run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fault", list(FAULTS))
def test_simulate_json_failing_midway(fault, capsys, tmp_path, monkeypatch):
    path = existing(tmp_path)
    inject, message = FAULTS[fault]
    inject(monkeypatch)
    code, out, err = run(capsys, [*QUICK, "--json", str(path)])
    monkeypatch.undo()
    assert code == 2
    assert out.startswith("=== Rapport d'équilibrage ===")  # the results are never lost
    assert err.startswith(f"{PREFIX}{path} : écriture impossible : {message}")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert_intact(path)


def test_simulate_html_failing_midway(capsys, tmp_path, monkeypatch):
    path = existing(tmp_path, "r.html")
    fail_write_midway(monkeypatch)
    code, _, err = run(capsys, [*QUICK, "--html", str(path)])
    monkeypatch.undo()
    assert code == 2 and err == f"{PREFIX}{path} : écriture impossible : {FULL}\n"
    assert_intact(path)


def test_record_failing_midway(capsys, tmp_path, monkeypatch):
    path = existing(tmp_path, "rec.json")
    args = ["--map", "data/maps/sample_arena.yaml", "--side", "players",
            "data/monsters/goblin.json", "--side", "monsters", "data/monsters/orc.json",
            "data/monsters/orc.json", "--runs", "1", "--seed", "1", "--round-cap", "4",
            "--policy", "players=llm", "--model", f"replay:{FOCUS}",
            "--record", str(path)]  # fmt: skip
    fail_replace(monkeypatch)
    code, _, err = run(capsys, args)
    monkeypatch.undo()
    assert code == 2 and err == f"{PREFIX}{path} : écriture impossible : {FULL}\n"
    assert_intact(path)


def test_report_html_failing_midway(capsys, tmp_path, monkeypatch):
    stats = tmp_path / "stats.json"
    assert main([*QUICK, "--json", str(stats)]) == 0
    capsys.readouterr()
    path = existing(tmp_path, "r.html")
    fail_write_midway(monkeypatch)
    code, _, err = run(capsys, ["report", str(stats), "--no-narrate", "--html", str(path)])
    monkeypatch.undo()
    assert code == 2 and err == f"{PREFIX}{path} : écriture impossible : {FULL}\n"
    assert_intact(path)


def test_experiment_json_failing_midway(capsys, tmp_path, monkeypatch):
    path = existing(tmp_path)
    fail_fsync(monkeypatch)
    code, out, err = run(capsys, ["experiment", "--encounter", EXPERIMENT, "--runs", "4",
                                  "--json", str(path)])  # fmt: skip
    monkeypatch.undo()
    assert code == 2 and "=== Expérience" in out
    assert err == f"{PREFIX}{path} : écriture impossible : erreur d'entrée-sortie (disque ou " \
        "support défaillant ?)\n"  # fmt: skip
    assert_intact(path)


@pytest.mark.parametrize("option", ["--csv", "--json", "--heatmap", "--html"])
def test_sweep_outputs_failing_midway(option, capsys, tmp_path, monkeypatch):
    path = existing(tmp_path, "out.svg")
    fail_write_midway(monkeypatch)
    code, out, err = run(capsys, ["sweep", "--encounter", SWEEP, "--runs", "2", option, str(path)])
    monkeypatch.undo()
    assert code == 2 and out  # the matrix was printed
    assert err == f"{PREFIX}{path} : écriture impossible : {FULL}\n"
    assert_intact(path)


def test_strategy_compile_output_failing_midway(capsys, tmp_path, monkeypatch):
    import harness.strategy_compile as sc
    from policies.strategy import load_strategy

    spec = load_strategy("data/strategies/focus_dangerous.yaml")
    monkeypatch.setattr(
        sc, "compile_cached", lambda _t, _m, **_kw: (sc.Compilation(spec, ()), True)
    )
    path = existing(tmp_path, "s.yaml")
    fail_write_midway(monkeypatch)
    code, out, err = run(capsys, ["strategy", "compile", "Focus the archer", "-o", str(path)])
    monkeypatch.undo()
    assert code == 2 and out == ""
    assert err == f"{PREFIX}{path} : écriture impossible : {FULL}\n"
    assert_intact(path)


# -- through the CLI: a bad path is refused before any fight --------------------------------------


class Played(Exception):
    pass


def _never(*_a: object, **_k: object) -> None:
    raise Played("a fight was played")


def _bad_paths(tmp: Path) -> dict[str, tuple[Path, str]]:
    afile = existing(tmp, "afile")
    return {
        "missing-folder": (tmp / "nope" / "r.json", "n'existe pas"),
        "a-folder": (tmp, "c'est un répertoire, pas un fichier"),
        "under-a-file": (afile / "r.json", "n'est pas un dossier"),
    }


def _assert_refused(code: int, out: str, err: str, path: Path, fragment: str) -> None:
    assert code == 2 and out == ""
    assert err.startswith(f"{PREFIX}{path} : écriture impossible : ") and fragment in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("bad", ["missing-folder", "a-folder", "under-a-file"])
@pytest.mark.parametrize("option", ["--json", "--html"])
def test_simulate_refuses_a_bad_output_before_the_fights(bad, option, capsys, tmp_path,
                                                         monkeypatch):  # fmt: skip
    import harness.parallel

    monkeypatch.setattr(harness.parallel, "simulate", _never)
    path, fragment = _bad_paths(tmp_path)[bad]
    _assert_refused(*run(capsys, [*QUICK, option, str(path)]), path, fragment)


def test_a_bad_record_path_is_refused_before_the_fights(capsys, tmp_path, monkeypatch):
    import harness.parallel

    monkeypatch.setattr(harness.parallel, "simulate", _never)
    path = tmp_path / "nope" / "rec.json"
    args = [*QUICK, "--policy", "players=llm", "--model", f"replay:{FOCUS}", "--record", str(path)]
    _assert_refused(*run(capsys, args), path, "n'existe pas")


def test_a_missing_narrator_cassette_is_refused_before_the_fights(capsys, tmp_path, monkeypatch):
    import harness.parallel

    monkeypatch.setattr(harness.parallel, "simulate", _never)
    missing = tmp_path / "absent.json"
    code, out, err = run(capsys, [*QUICK, "--narrate", "--narrator-model", f"replay:{missing}"])
    assert code == 2 and out == ""
    assert err == f"{PREFIX}{missing} : cassette introuvable\n"


@pytest.mark.parametrize(("spec", "order"), [("replay:x.json", ["open", "fights"]),
                                             ("local", ["fights", "open"])])  # fmt: skip
def test_only_a_replay_narrator_is_opened_before_the_fights(spec, order, capsys, monkeypatch):
    """A cassette is opened up front; a local model still after the fights (memory), as before."""
    import harness.parallel
    import harness.reporter

    seen: list[str] = []
    real = harness.parallel.simulate

    def fights(*a: object, **k: object) -> object:
        seen.append("fights")
        return real(*a, **k)  # pyright: ignore[reportArgumentType]

    def opened(_spec: str) -> tuple[None, str]:
        seen.append("open")
        return None, "modèle indisponible pour le test"

    monkeypatch.setattr(harness.parallel, "simulate", fights)
    monkeypatch.setattr(harness.reporter, "open_narrator", opened)
    code, out, _ = run(capsys, [*QUICK, "--narrate", "--narrator-model", spec])
    assert code == 0 and "=== Analyse ===" in out and "indisponible pour le test" in out
    assert seen == order


def test_experiment_refuses_a_bad_json_path_before_the_fights(capsys, tmp_path, monkeypatch):
    import harness.experiment

    monkeypatch.setattr(harness.experiment, "run_experiment", _never)
    path = tmp_path / "nope" / "e.json"
    args = ["experiment", "--encounter", EXPERIMENT, "--runs", "4", "--json", str(path)]
    _assert_refused(*run(capsys, args), path, "n'existe pas")


@pytest.mark.parametrize("option", ["--csv", "--json", "--heatmap", "--html"])
def test_sweep_refuses_a_bad_output_before_the_fights(option, capsys, tmp_path, monkeypatch):
    import harness.sweep

    monkeypatch.setattr(harness.sweep, "run_sweep", _never)
    path = tmp_path / "nope" / "out.svg"
    args = ["sweep", "--encounter", SWEEP, "--runs", "2", option, str(path)]
    _assert_refused(*run(capsys, args), path, "n'existe pas")


def test_strategy_compile_refuses_a_bad_output_before_the_model(capsys, tmp_path, monkeypatch):
    import harness.strategy_compile

    monkeypatch.setattr(harness.strategy_compile, "compile_cached", _never)
    path = tmp_path / "nope" / "s.yaml"
    args = ["strategy", "compile", "Focus the archer", "-o", str(path)]
    _assert_refused(*run(capsys, args), path, "n'existe pas")


def test_report_refuses_a_bad_html_path_before_printing(capsys, tmp_path):
    stats = tmp_path / "stats.json"
    assert main([*QUICK, "--json", str(stats)]) == 0
    capsys.readouterr()
    path = tmp_path / "nope" / "r.html"
    _assert_refused(*run(capsys, ["report", str(stats), "--html", str(path)]), path, "n'existe pas")
