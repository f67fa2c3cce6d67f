"""Random number sources.

Every die the engine rolls goes through an object with the :class:`Rng`
interface, passed in explicitly; nothing uses the global :mod:`random` state.
Run ``i`` of an encounter played with seed ``s`` uses ``SeededRng(s + i)``.

Each roll site names the *kind* of roll it makes (:class:`RollKind`: attack,
confirm, damage, miss chance, Stealth…), passed to :meth:`Rng.die` with the die.
The seeded source ignores it: the dice of a seed do not depend on it. Tests
script dice per kind with :class:`ScriptedDice` (``{"attack": [15], "damage":
[3]}``), so a roll added on one path does not shift the dice of another.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Protocol

from engine.core.errors import DiceScriptError


class RollKind(StrEnum):
    """What a die is rolled for: the key :class:`ScriptedDice` reads its dice under.

    A check's dice are keyed by its :class:`~engine.core.checks.CheckKind` (same
    values: attack, confirm, initiative…) unless the roll site names a finer kind
    (a skill check by its skill, aid another, a Constitution check to keep
    running). Closed vocabulary: a rule that rolls a new kind of die adds it here.
    """

    # the values of engine.core.checks.CheckKind
    ATTACK = "attack"
    CONFIRM = "confirm"
    INITIATIVE = "initiative"
    STABILIZE = "stabilize"
    SAVE = "save"
    SKILL = "skill"
    CONCENTRATION = "concentration"
    CHECK = "check"
    # finer kinds
    DAMAGE = "damage"
    MISS_CHANCE = "miss_chance"
    """d100 against concealment, after a hit"""
    AID_ANOTHER = "aid_another"
    """the attack roll against AC 10 of aid another"""
    CONSTITUTION = "constitution"
    """the Constitution check to keep running"""
    SCATTER = "scatter"
    """the d8 of a missed splash weapon"""
    CONFUSION = "confusion"
    """the d% a confused creature rolls at the start of its turn"""
    DURATION = "duration"
    """the dice of a condition's duration in rounds (« 1d4+1 rounds »)"""
    SPELL_FAILURE = "spell_failure"
    """the d100 of arcane spell failure, or of a deafened caster's verbal component"""
    SPELL_RESISTANCE = "spell_resistance"
    """the d20 of a caster level check against spell resistance"""
    HEALING = "healing"
    """the dice of a spell's healing"""
    SPELL = "spell"
    """the other dice of a spell: a pool of Hit Dice, a buff's value"""
    MIRROR_IMAGE = "mirror_image"
    """the die that picks the real target or one of its mirror images, after a hit"""
    ESCAPE = "escape"
    """the d20 of a check to break free of a spell (*web*, *entangle*)"""
    ACROBATICS = "acrobatics"
    PERCEPTION = "perception"
    STEALTH = "stealth"


class Rng(Protocol):
    """A source of die results."""

    def die(self, sides: int, kind: str) -> int:
        """Return a uniform integer in ``[1, sides]``; ``kind`` (a :class:`RollKind`
        value) says what it is rolled for and is read only by scripted sources."""
        ...


class SeededRng:
    """Reproducible dice from an integer seed (Mersenne Twister).

    >>> a, b = SeededRng(7), SeededRng(7)
    >>> [a.die(20, "attack") for _ in range(5)] == [b.die(20, "damage") for _ in range(5)]
    True
    """

    __slots__ = ("_bits", "_random", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._random = random.Random(seed)
        self._bits = self._random.getrandbits

    def die(self, sides: int, kind: str) -> int:
        # Exactly ``randrange(sides) + 1`` (rejection sampling on getrandbits: no
        # bias, same stream), without its call overhead. ``kind`` is not read.
        k = sides.bit_length()
        r = self._bits(k)
        while r >= sides:
            r = self._bits(k)
        return r + 1

    def __repr__(self) -> str:
        return f"SeededRng({self.seed})"


#: every key a script may use
ROLL_KINDS = frozenset(k.value for k in RollKind)


class ScriptedDice:
    """Dice read from one script per roll kind, for unit tests.

    Each kind's dice are consumed in order, whatever other kinds are rolled in
    between. A kind the script does not name is an error (:class:`DiceScriptError`
    naming it) unless a ``fallback`` source is given, which then rolls every
    unscripted kind; a scripted kind that runs out is always an error. A key
    that is not a :class:`RollKind` is refused at once (a typo would otherwise
    go unnoticed behind a fallback).

    >>> dice = ScriptedDice({"attack": [15, 20], "damage": [4]})
    >>> dice.die(20, "attack"), dice.die(8, "damage"), dice.die(20, "attack")
    (15, 4, 20)
    >>> dice.remaining
    0
    >>> dice.die(20, "save")
    Traceback (most recent call last):
    ...
    engine.core.errors.DiceScriptError: no scripted dice for 'save' (d20; scripted: attack, damage)
    >>> ScriptedDice({"attack": [15]}, fallback=SeededRng(1)).die(6, "damage") in range(1, 7)
    True
    """

    __slots__ = ("_fallback", "_script", "history")

    def __init__(
        self, script: Mapping[str, Iterable[int]] | None = None, *, fallback: Rng | None = None
    ) -> None:
        script = script or {}
        unknown = sorted(k for k in script if k not in ROLL_KINDS)
        if unknown:
            raise DiceScriptError(
                f"unknown roll kind(s) {', '.join(map(repr, unknown))} in a dice script "
                f"(known: {', '.join(sorted(ROLL_KINDS))})"
            )
        #: dice left per kind, the next one last (popped)
        self._script = {str(k): list(reversed(list(v))) for k, v in script.items()}
        self._fallback = fallback
        #: every die returned, in order: ``(kind, sides, value)``
        self.history: list[tuple[str, int, int]] = []

    def die(self, sides: int, kind: str) -> int:
        left = self._script.get(kind)
        if left is None:
            if self._fallback is None:
                scripted = ", ".join(sorted(self._script)) or "none"
                raise DiceScriptError(
                    f"no scripted dice for {kind!r} (d{sides}; scripted: {scripted})"
                )
            value = self._fallback.die(sides, kind)
        else:
            if not left or not 1 <= left[-1] <= sides:
                done = sum(1 for k, _s, _v in self.history if k == kind)
                if not left:
                    raise DiceScriptError(
                        f"scripted {kind!r} dice exhausted after {done} (asked for a d{sides})"
                    )
                raise DiceScriptError(
                    f"scripted {kind!r} die #{done} is {left[-1]}, impossible on a d{sides}"
                )
            value = left.pop()
        self.history.append((kind, sides, value))
        return value

    @property
    def remaining(self) -> int:
        """How many scripted dice are left, all kinds together."""
        return sum(len(v) for v in self._script.values())

    def left(self, kind: str) -> int:
        """How many dice of ``kind`` are left."""
        return len(self._script.get(kind, ()))
