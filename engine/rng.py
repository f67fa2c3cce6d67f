"""Random number sources.

Every die the engine rolls goes through an object with the :class:`Rng`
interface, passed in explicitly; nothing uses the global :mod:`random` state.
Run ``i`` of an encounter played with seed ``s`` uses ``SeededRng(s + i)``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol

from engine.errors import ScriptExhaustedError


class Rng(Protocol):
    """A source of die results."""

    def die(self, sides: int) -> int:
        """Return a uniform integer in ``[1, sides]``."""
        ...


class SeededRng:
    """Reproducible dice from an integer seed (Mersenne Twister).

    >>> a, b = SeededRng(7), SeededRng(7)
    >>> [a.die(20) for _ in range(5)] == [b.die(20) for _ in range(5)]
    True
    """

    __slots__ = ("_bits", "_random", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._random = random.Random(seed)
        self._bits = self._random.getrandbits

    def die(self, sides: int) -> int:
        # Exactly ``randrange(sides) + 1`` (rejection sampling on getrandbits: no
        # bias, same stream), without its call overhead.
        k = sides.bit_length()
        r = self._bits(k)
        while r >= sides:
            r = self._bits(k)
        return r + 1

    def __repr__(self) -> str:
        return f"SeededRng({self.seed})"


class ScriptedRng:
    """Dice read from a script, for unit tests and golden transcripts.

    Each call consumes the next value, which must fit the die asked for.

    >>> rng = ScriptedRng([20, 3])
    >>> rng.die(20), rng.die(4)
    (20, 3)
    """

    __slots__ = ("_pos", "_values")

    def __init__(self, values: Iterable[int]) -> None:
        self._values = list(values)
        self._pos = 0

    def die(self, sides: int) -> int:
        if self._pos >= len(self._values):
            raise ScriptExhaustedError(
                f"ScriptedRng exhausted after {self._pos} dice (asked for a d{sides})"
            )
        value = self._values[self._pos]
        if not 1 <= value <= sides:
            raise ScriptExhaustedError(
                f"scripted value #{self._pos} is {value}, impossible on a d{sides}"
            )
        self._pos += 1
        return value

    @property
    def remaining(self) -> int:
        """How many scripted values are left."""
        return len(self._values) - self._pos
