"""Errors raised by the engine, with French messages meant for end users.

Three families, in the spirit of python-chess (malformed / illegal / ambiguous):

* :class:`DataError` — a content file (map, combatant, encounter) is malformed or
  inconsistent. The CLI prints it on one line and exits with status 2.
* :class:`EncounterError` — the files are valid on their own but cannot be put
  together (unknown side, zone too small…). Also a user error, exit 2.
* :class:`DiceScriptError` — a test's :class:`~engine.core.rng.ScriptedDice` does not
  fit the dice asked for; a test-authoring error, never a user error.
"""

from __future__ import annotations

import difflib
import errno
from collections.abc import Iterable


class Pf1eSimError(Exception):
    """Base class of every error the engine raises on purpose."""


class DataError(Pf1eSimError):
    """A content file is malformed. ``str(err)`` is a one-line French message.

    :param message: what is wrong, in French.
    :param source: the file (or other origin) being read, if known.
    :param location: the field path inside it (``attacks[0].crit_range``), if known.
    """

    def __init__(self, message: str, *, source: str | None = None, location: str | None = None):
        self.message = message
        self.source = source
        self.location = location
        super().__init__(self._render())

    def _render(self) -> str:
        parts: list[str] = []
        if self.source:
            parts.append(self.source)
        if self.location:
            parts.append(f"champ « {self.location} »")
        prefix = " : ".join(parts)
        return f"{prefix} : {self.message}" if prefix else self.message

    def with_source(self, source: str) -> DataError:
        """Return a copy of this error that names ``source`` as its file."""
        return DataError(self.message, source=source, location=self.location)


class EncounterError(Pf1eSimError):
    """Valid files that cannot form an encounter (sides, zones, deployment)."""


class DiceScriptError(Pf1eSimError):
    """Scripted dice do not fit the dice asked for: a kind the script does not
    name, a kind run out, a value impossible on the die, a key that is no roll kind."""


def closest(name: str, known: Iterable[str]) -> str | None:
    """Return the known name closest to ``name``, or ``None`` if none is close.

    >>> closest("atack_bonus", ["attack_bonus", "damage"])
    'attack_bonus'
    """
    candidates = list(known)
    prefixed = sorted((k for k in candidates if k.startswith(name) or name.startswith(k)), key=len)
    if prefixed and len(name) >= 2:
        return prefixed[0]
    matches = difflib.get_close_matches(name, candidates, n=1, cutoff=0.5)
    return matches[0] if matches else None


def suggestion(name: str, known: Iterable[str]) -> str:
    """French suffix suggesting the closest known name, or an empty string."""
    best = closest(name, known)
    return f" (vouliez-vous dire « {best} » ?)" if best else ""


_ERRNO_FR = {
    errno.ENOENT: "fichier introuvable",
    errno.EIO: "erreur d'entrée-sortie (disque ou support défaillant ?)",
    errno.EACCES: "permission refusée",
    errno.ENOTDIR: "un élément du chemin n'est pas un répertoire",
    errno.EISDIR: "c'est un répertoire, pas un fichier",
    errno.EFBIG: "fichier trop volumineux",
    errno.ENOSPC: "plus de place sur le disque",
    errno.EROFS: "système de fichiers en lecture seule",
    errno.ENAMETOOLONG: "nom de fichier trop long",
}
if hasattr(errno, "EDQUOT"):  # not on every system
    _ERRNO_FR[errno.EDQUOT] = "quota de disque dépassé"


def os_error_fr(err: OSError) -> str:
    """French description of an OS error (file not found, permission…)."""
    if err.errno in _ERRNO_FR:
        return _ERRNO_FR[err.errno]
    return f"erreur système {err.errno}" if err.errno else "erreur système"
