"""Writing files: atomically, and checked before the work that fills them.

Every file pf1e-sim writes (``--json``, ``--html``, ``--csv``, ``--heatmap``,
``strategy compile -o``, ``--record`` cassettes, checkpoints, and the files of
its cache) goes through :func:`write_atomic` or :func:`atomic_file`: the content
goes to a temporary file of a unique name in the target's folder
(``.NAME.XXXXXXXX.tmp``, created exclusively, so a file of the user's is never
overwritten), is flushed and synced to the disk, and only then replaces the
target with :func:`os.replace`. Whatever fails on the way (a full disk, an I/O
error, Ctrl-C), the previous file is left byte for byte as it was and the
temporary file is removed.

Details, chosen to behave like a plain ``open(path, "w")`` where it matters:

* a text is encoded as strict UTF-8 *before* any file is touched; a text that
  cannot be (a lone surrogate, left by a file name that is not UTF-8) is a
  French error and the previous file stays as it was;
* the new file keeps the permission bits of the file it replaces; a new file
  gets the usual ``0o666`` less the umask. The owner and hard links of a
  replaced file are not kept (the file is a new one);
* a symbolic link is written through (its target is replaced, the link stays);
* a target that is not a regular file (``/dev/null``, a pipe) is written in
  place, as there is nothing to keep; a folder is refused;
* an existing file without write permission is refused, as ``open`` would.

:func:`check_output` refuses, before any fight is played, a path that could
not be written: a missing folder, a folder that is not one or is not writable,
a path that is a folder.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_atomic(folder / "a.txt", "é\\n")
>>> (folder / "a.txt").read_text(encoding="utf-8")
'é\\n'
>>> sorted(p.name for p in folder.iterdir())
['a.txt']
>>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from engine.core.errors import DataError, os_error_fr

__all__ = ["atomic_file", "check_output", "reserve_temp", "write_atomic"]

#: characters of the target's name kept in a temporary name (under NAME_MAX)
_STEM = 64


class _Sink:
    """The temporary file, written with :func:`os.write` until every byte is in."""

    __slots__ = ("fd",)

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: bytes | bytearray | memoryview) -> int:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]
        return len(data)


def _target(path: Path) -> tuple[Path, os.stat_result | None]:
    """The path to replace for ``path``, and what is there now (None: nothing).

    A symbolic link to a file (or to nothing yet) is followed, so that its
    target is replaced and the link stays. Anything that is not a regular file
    is returned as given: a link such as ``/dev/stdout`` is written through in
    place.
    """
    try:
        existing: os.stat_result | None = os.stat(path)  # follows links
    except (FileNotFoundError, NotADirectoryError):
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        return path, existing
    return (Path(os.path.realpath(path)) if path.is_symlink() else path), existing


def _temp_name(folder: Path, name: str) -> Path:
    return folder / f".{name[:_STEM]}.{os.urandom(4).hex()}.tmp"


def _create_temp(target: Path, existing: os.stat_result | None) -> tuple[int, Path]:
    """A new, empty temporary file beside ``target`` (created exclusively)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = _temp_name(target.parent, target.name)
        try:
            # a new file: 0o666 less the umask, as open() does; a replaced one: its bits
            fd = os.open(tmp, flags, 0o600 if existing is not None else 0o666)
        except FileExistsError:
            continue
        if existing is not None:
            try:
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))
            except BaseException:
                os.close(fd)
                with suppress(OSError):
                    os.unlink(tmp)
                raise
        return fd, tmp
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target.parent))


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every system allows it)."""
    with suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[_Sink]:
    """A binary sink whose content replaces ``path`` when the block ends without error.

    On any exception in the block or while finishing (sync, rename), ``path`` is
    left as it was, the temporary file is removed and the exception goes on.

    :raises OSError: the file cannot be written (see :func:`write_atomic` for a
        French error).
    """
    target, existing = _target(Path(path))
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        # a device or a pipe: nothing to keep, and it must not be replaced by a file
        fd = os.open(target, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0))
        try:
            yield _Sink(fd)
        finally:
            os.close(fd)
        return
    if existing is not None and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    fd, tmp = _create_temp(target, existing)
    try:
        try:
            yield _Sink(fd)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(target.parent)


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (a text is written as UTF-8), atomically.

    :raises DataError: the text is not encodable, or the file cannot be written
        (French message naming ``path``); the previous file is then intact.
    """
    source = os.fspath(path)
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:
            raise DataError(
                "écriture impossible : texte non encodable en UTF-8 (un nom de fichier qui "
                "n'est pas en UTF-8 ?)",
                source=source,
            ) from None
    try:
        with atomic_file(path) as out:
            out.write(data)
    except OSError as err:
        raise DataError(f"écriture impossible : {os_error_fr(err)}", source=source) from None


def reserve_temp(path: str | os.PathLike[str]) -> Path:
    """An empty temporary file of a unique name beside ``path``, for a writer of its own.

    For files written by a library (llama.cpp's state files): it writes to the
    returned path, the caller then :func:`os.replace` it onto ``path``, or
    removes it.

    :raises OSError: it cannot be created.
    """
    fd, tmp = _create_temp(Path(path), None)
    os.close(fd)
    return tmp


def check_output(path: str | os.PathLike[str]) -> None:
    """Refuse, before the work, a path :func:`write_atomic` could not write.

    :raises DataError: the path is a folder, its folder does not exist, is not a
        folder or cannot be written in, or the file exists and cannot be written.
    """
    source = os.fspath(path)
    try:
        why = _why_not_writable(Path(path))
    except OSError as err:  # a name too long, a loop of links…
        why = os_error_fr(err)
    if why is not None:
        raise DataError(f"écriture impossible : {why}", source=source)


def _why_not_writable(path: Path) -> str | None:
    """Why :func:`write_atomic` could not write ``path`` (French), or None."""
    target, existing = _target(path)
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        return os_error_fr(IsADirectoryError(errno.EISDIR, ""))
    if existing is not None and not stat.S_ISREG(existing.st_mode):  # written in place
        return None if os.access(target, os.W_OK) else os_error_fr(OSError(errno.EACCES, ""))
    folder = target.parent
    if not folder.exists():
        return f"le dossier « {folder} » n'existe pas"
    if not folder.is_dir():
        return f"« {folder} » n'est pas un dossier"
    if not os.access(folder, os.W_OK | os.X_OK):
        code = errno.EACCES
        with suppress(OSError, AttributeError):
            if os.statvfs(folder).f_flag & os.ST_RDONLY:
                code = errno.EROFS
        return f"{os_error_fr(OSError(code, ''))} (dossier « {folder} »)"
    if existing is not None and not os.access(target, os.W_OK):
        return os_error_fr(PermissionError(errno.EACCES, ""))
    with suppress(OSError, ValueError, AttributeError):
        if len(os.fsencode(target.name)) > os.pathconf(folder, "PC_NAME_MAX"):
            return os_error_fr(OSError(errno.ENAMETOOLONG, ""))
    return None


def json_text(data: object) -> str:
    """The JSON text pf1e-sim writes and prints: UTF-8 as is, indented by two, one final newline."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def write_json(path: str | os.PathLike[str], data: object) -> None:
    """Write ``data`` as :func:`json_text` to ``path`` (atomically, see :func:`write_atomic`)."""
    write_atomic(path, json_text(data))
