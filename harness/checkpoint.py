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
from typing import Any, cast

from engine.content.validation import QUOTE_CHARS, load_json, quote, read_bytes, read_text
from engine.core.errors import DataError
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
        hashes.add(hashlib.sha256(read_bytes(name)).hexdigest())
    blob = json.dumps(
        {"kind": kind, "version": _version(), "files": sorted(hashes), "params": params},
        sort_keys=True,
        ensure_ascii=True,
    )
    return hashlib.sha256(blob.encode("ascii")).hexdigest()


def _is_count(value: object) -> bool:
    """A non-negative integer, and not a boolean (``true`` is no count)."""
    return type(value) is int and value >= 0


def _check_counts(kind: str, key: Key, counts: Any) -> str | None:
    """What is wrong with the counts of the finished part ``key``, or None.

    Sweep cell (key: variant, strategy): ``runs``, ``wins``, ``draws``, ``rounds``,
    with ``wins + draws <= runs``. Experiment chunk (key: first run, last run + 1):
    ``arms``, ``runs == last + 1 - first``, and per arm ``wins``, ``draws``,
    ``only_arm``, ``only_base`` (runs the arm won and the baseline did not, and the
    reverse) that fit together: ``wins[k] − only_arm[k] == wins[0] − only_base[k]``,
    both being the runs the two won.
    """
    if not isinstance(counts, dict):
        return "comptes absents"
    c = cast(dict[str, Any], counts)
    if kind == "sweep":
        if len(key) != 2:
            return "clé"
        names = ("runs", "wins", "draws", "rounds")
        if set(c) != set(names) or not all(_is_count(c[n]) for n in names):
            return "comptes"
        return (
            "plus de victoires et de nuls que de combats"
            if c["wins"] + c["draws"] > c["runs"]
            else None
        )
    if len(key) != 2 or key[0] >= key[1]:
        return "clé"
    names = ("arms", "runs", "wins", "draws", "only_arm", "only_base")
    if set(c) != set(names) or not _is_count(c["arms"]) or c["arms"] < 1:
        return "comptes"
    arms, runs = c["arms"], c["runs"]
    if runs != key[1] - key[0] or not _is_count(runs):
        return "nombre de combats"
    lists: list[list[int]] = []
    for name in names[2:]:
        values: Any = c[name]
        if not (
            isinstance(values, list)
            and len(cast(list[Any], values)) == arms
            and all(_is_count(v) and v <= runs for v in cast(list[Any], values))
        ):
            return "comptes"
        lists.append(cast(list[int], values))
    wins, draws, only_arm, only_base = lists
    if any(w + d > runs for w, d in zip(wins, draws, strict=True)):
        return "plus de victoires et de nuls que de combats"
    if (
        only_arm[0]
        or only_base[0]
        or any(
            wins[k] - only_arm[k] != wins[0] - only_base[k] or only_arm[k] > wins[k]
            for k in range(1, arms)
        )
    ):
        return "victoires appariées incohérentes"
    return None


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
        text, source = read_text(self.path)
        try:
            data = load_json(text, source)
        except DataError as err:
            raise self._fail(
                f"point de reprise illisible ({err.message}) : supprimez-le pour tout rejouer"
            ) from None
        if not isinstance(data, dict) or data.get("schema") != CHECKPOINT_SCHEMA:  # pyright: ignore[reportUnknownMemberType]
            raise self._fail(f"ce n'est pas un point de reprise {CHECKPOINT_SCHEMA}")
        body = cast(dict[str, Any], data)
        kind: Any = body.get("kind")
        if kind != self.kind:
            shown = f"« {kind[:QUOTE_CHARS]} »" if isinstance(kind, str) else quote(kind)
            raise self._fail(f"point de reprise d'une commande {shown}, pas « {self.kind} »")
        if body.get("fingerprint") != self.fingerprint:
            raise self._fail(
                "ce point de reprise a été écrit pour d'autres combats (fichiers, graine, nombre "
                "de combats ou options différents) : supprimez-le ou donnez un autre chemin"
            )
        entries: Any = body.get("done")
        if not isinstance(entries, list):
            raise self._fail("point de reprise invalide (« done » n'est pas une liste)")
        for entry in cast(list[Any], entries):
            key: Any = entry.get("key") if isinstance(entry, dict) else None  # pyright: ignore[reportUnknownMemberType]
            if not isinstance(key, list) or not key or not all(_is_count(k) for k in key):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
                raise self._fail("point de reprise invalide (clé d'une partie finie)")
            part: Key = tuple(cast(list[int], key))
            if part in self.done:
                raise self._fail(f"point de reprise invalide (partie {list(part)} en double)")
            problem = _check_counts(self.kind, part, cast(dict[str, Any], entry).get("counts"))
            if problem:
                raise self._fail(f"point de reprise invalide ({problem} de la partie {list(part)})")
            self.done[part] = cast(dict[str, Any], entry)

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
