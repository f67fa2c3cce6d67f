"""Dice notation (``2d4+1``, ``1d6+1d4-1``, ``d20``), compiled once and rolled often.

>>> expr = compile_dice("2d4+4")
>>> expr.minimum, expr.maximum, expr.mean
(6, 12, 9.0)
>>> str(expr)
'2d4+4'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from engine.core.errors import DataError
from engine.core.rng import Rng

_TERM = re.compile(r"\s*([+-])?\s*(?:([0-9]{0,6})\s*[dD]\s*([0-9]{1,6})|([0-9]{1,6}))\s*")

MAX_DICE = 100
MAX_SIDES = 1000
#: largest flat total, so that the canonical form (one constant) parses back
MAX_FLAT = 999_999


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """``count`` dice of ``sides`` faces, added (sign +1) or subtracted (sign -1)."""

    count: int
    sides: int
    sign: int = 1


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """A compiled dice expression: a sum of dice terms plus a flat constant."""

    terms: tuple[DiceTerm, ...]
    flat: int

    def roll(self, rng: Rng, kind: str) -> int:
        """Roll the dice once as ``kind`` (a :class:`~engine.core.rng.RollKind`) and
        return the total (dice plus flat constant)."""
        total = self.flat
        for term in self.terms:
            sub = 0
            for _ in range(term.count):
                sub += rng.die(term.sides, kind)
            total += sub * term.sign
        return total

    def roll_dice_only(self, rng: Rng, kind: str) -> int:
        """Roll the dice and return their signed sum, without the flat constant."""
        return self.roll(rng, kind) - self.flat

    @property
    def minimum(self) -> int:
        return self.flat + sum((t.count if t.sign > 0 else -t.count * t.sides) for t in self.terms)

    @property
    def maximum(self) -> int:
        return self.flat + sum((t.count * t.sides if t.sign > 0 else -t.count) for t in self.terms)

    @property
    def mean(self) -> float:
        return self.flat + sum(t.sign * t.count * (t.sides + 1) / 2 for t in self.terms)

    @property
    def has_dice(self) -> bool:
        return bool(self.terms)

    def __str__(self) -> str:
        out = ""
        for term in self.terms:
            sign = "-" if term.sign < 0 else ("+" if out else "")
            out += f"{sign}{term.count}d{term.sides}"
        if self.flat or not out:
            out += f"{self.flat:+d}" if out else str(self.flat)
        return out


@lru_cache(maxsize=4096)
def compile_dice(text: str) -> DiceExpr:
    """Parse dice notation into a :class:`DiceExpr`.

    :raises DataError: if the text is not valid notation (message in French).
    """
    if not isinstance(text, str) or not text.strip():  # pyright: ignore[reportUnnecessaryIsInstance]
        raise DataError(f"formule de dés vide ou invalide : {text!r}")
    shown = text if len(text) <= 40 else text[:40] + "…"
    pos = 0
    terms: list[DiceTerm] = []
    flat = 0
    first = True
    while pos < len(text):
        match = _TERM.match(text, pos)
        if match is None or match.end() == pos:
            raise DataError(
                f"formule de dés invalide : « {shown} » (attendu par exemple « 2d4+1 »)"
            )
        sign_txt, count_txt, sides_txt, const_txt = match.groups()
        if sign_txt is None and not first:
            raise DataError(f"formule de dés invalide : « {shown} » (opérateur manquant)")
        sign = -1 if sign_txt == "-" else 1
        if sides_txt is not None:
            count = int(count_txt) if count_txt else 1
            sides = int(sides_txt)
            if not 1 <= count <= MAX_DICE or not 2 <= sides <= MAX_SIDES:
                raise DataError(
                    f"formule de dés invalide : « {shown} » (entre 1 et {MAX_DICE} dés "
                    f"de 2 à {MAX_SIDES} faces)"
                )
            terms.append(DiceTerm(count, sides, sign))
        else:
            flat += sign * int(const_txt)
        first = False
        pos = match.end()
    if abs(flat) > MAX_FLAT:
        raise DataError(f"formule de dés invalide : « {shown} » (constante au-delà de ±{MAX_FLAT})")
    return DiceExpr(tuple(terms), flat)
