"""Checkpoints: the finished parts of a long run, kept on disk so that an
interrupted sweep or experiment resumes where it stopped.

A checkpoint is a small JSON file (``pf1e-sim/checkpoint@1``)::

    {"schema": "pf1e-sim/checkpoint@1", "kind": "sweep", "fingerprint": "…",
     "done": [{"key": [0, 2], "counts": {"runs": 200, "wins": 150, …}, …}, …]}

``key`` names a finished part (a sweep cell: variant and strategy indices; an
experiment chunk: its first and last run + 1) and ``counts`` are its integer
sums, so loading them gives exactly what replaying them would. The file is
rewritten whole after each finished part, atomically
(:func:`harness.output.write_atomic`: a temporary file of a unique name in the
same folder, synced, then :func:`os.replace`): a run killed at any moment leaves
either the previous checkpoint or the new one, never half a file.

The fingerprint hashes the *content* of every input file (encounter, map,
creatures, scripts and strategies — not their paths), the parameters that
change the counts (seed, runs, round cap…) and the program's version. A
checkpoint whose fingerprint differs was written for other fights: it is
refused with a French error, never mixed in nor overwritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from engine.errors import DataError, os_error_fr
from harness.output import write_atomic

CHECKPOINT_SCHEMA = "pf1e-sim/checkpoint@1"

Key = tuple[int, ...]


def _version() -> str:
    try:
        return metadata.version("pf1e-sim")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        return "dev"


def fingerprint(kind: str, files: Iterable[str], params: dict[str, Any]) -> str:
    """Hash of what decides the counts: the content of ``files`` and ``params``.

    :raises DataError: a file cannot be read.
    """
    hashes: set[str] = set()
    for name in files:
        try:
            hashes.add(hashlib.sha256(Path(name).read_bytes()).hexdigest())
        except OSError as err:
            raise DataError(f"lecture impossible : {os_error_fr(err)}", source=name) from None
    blob = json.dumps(
        {"kind": kind, "version": _version(), "files": sorted(hashes), "params": params},
        sort_keys=True,
        ensure_ascii=True,
    )
    return hashlib.sha256(blob.encode("ascii")).hexdigest()


class Checkpoint:
    """The finished parts of one run; a no-op when ``path`` is ``None``.

    :param path: the checkpoint file (read if it exists, then rewritten).
    :param kind: ``sweep`` or ``experiment``.
    :param fingerprint: see :func:`fingerprint`.
    :raises DataError: unreadable file, or one written for other fights.
    """

    def __init__(self, path: str | Path | None, kind: str, fingerprint: str) -> None:
        self.path = Path(path) if path is not None else None
        self.kind = kind
        self.fingerprint = fingerprint
        #: key -> the entry as stored (``counts`` and any descriptive fields)
        self.done: dict[Key, dict[str, Any]] = {}
        if self.path is not None:
            self._check_folder()
            if self.path.exists():
                self._load()

    def _fail(self, message: str) -> DataError:
        return DataError(message, source=str(self.path))

    def _check_folder(self) -> None:
        assert self.path is not None
        folder = self.path.parent
        if not folder.is_dir():
            raise self._fail(f"le dossier « {folder} » n'existe pas : le point de reprise ne "
                             "pourrait pas être écrit")  # fmt: skip
        if self.path.is_dir():
            raise self._fail("c'est un dossier, pas un fichier de point de reprise")

    def _load(self) -> None:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except OSError as err:
            raise self._fail(f"lecture impossible : {os_error_fr(err)}") from None
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise self._fail(
                "point de reprise illisible (pas du JSON) : supprimez-le pour tout rejouer"
            ) from None
        if not isinstance(data, dict) or data.get("schema") != CHECKPOINT_SCHEMA:
            raise self._fail(f"ce n'est pas un point de reprise {CHECKPOINT_SCHEMA}")
        if data.get("kind") != self.kind:
            raise self._fail(
                f"point de reprise d'une commande « {data.get('kind')} », pas « {self.kind} »"
            )
        if data.get("fingerprint") != self.fingerprint:
            raise self._fail(
                "ce point de reprise a été écrit pour d'autres combats (fichiers, graine, nombre "
                "de combats ou options différents) : supprimez-le ou donnez un autre chemin"
            )
        entries: Any = data.get("done")
        if not isinstance(entries, list):
            raise self._fail("point de reprise invalide (« done » n'est pas une liste)")
        for entry in entries:  # pyright: ignore[reportUnknownVariableType]
            key: Any = entry.get("key") if isinstance(entry, dict) else None  # pyright: ignore[reportUnknownMemberType]
            if not isinstance(key, list) or not all(isinstance(k, int) for k in key):  # pyright: ignore[reportUnknownVariableType]
                raise self._fail("point de reprise invalide (clé d'une partie finie)")
            self.done[tuple(key)] = entry  # pyright: ignore[reportUnknownArgumentType]

    def add(self, key: Key, entry: dict[str, Any]) -> None:
        """Record a finished part and rewrite the file."""
        self.done[key] = {"key": list(key), **entry}
        self.save()

    def save(self) -> None:
        """Write the file atomically. :raises DataError: it cannot be written."""
        if self.path is None:
            return
        body = {
            "schema": CHECKPOINT_SCHEMA,
            "kind": self.kind,
            "fingerprint": self.fingerprint,
            "done": [self.done[k] for k in sorted(self.done)],
        }
        write_atomic(self.path, json.dumps(body, ensure_ascii=False, indent=1) + "\n")
