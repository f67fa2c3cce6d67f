"""Foundry roll formulas at a caster level: a small, safe evaluator (no ``eval``).

The Foundry VTT pf1 spell records write their numbers as roll formulas in the
caster level: ``(min(10, @cl))d6`` (*fireball*), ``1d8 + min(5, @cl)`` (*cure
light wounds*), ``min(4, ceil(@cl / 2) - 1)`` (*magic missile*'s extra
missiles). :func:`compile_formula` parses one once; :meth:`Formula.at` turns it,
at a caster level, into the dice notation :func:`engine.core.dice.compile_dice`
reads (``"5d6"``), and :meth:`Formula.dice` into the compiled
:class:`~engine.core.dice.DiceExpr`.

The grammar: integers, ``@cl`` (the caster level; every other ``@`` variable is
an error), ``+ - * /`` and parentheses, the functions ``min``, ``max`` (any number
of arguments), ``floor``, ``ceil``, ``clamp(x, low, high)``, ``abs`` and
``sizeRoll(count, sides[, size])`` (a Medium creature's roll: ``count``\\ d\\ ``sides``),
and dice ``NdM`` where ``N`` and ``M`` may be computed (``(floor(@cl / 2))d6``).
Foundry's flavour tags in brackets (``min(floor(@cl / 2), 10)[CL/2]``) are
dropped. Division is exact (``@cl / 2`` at CL 5 is 5/2); ``floor`` and ``ceil``
round as they say, and a fractional constant left at the end is rounded down
(CRB « Rounding »: « round down »). A count of dice that comes out 0 or less
rolls no dice (``(floor(@cl / 2))d6`` at CL 1 is 0). Dice cannot be multiplied,
divided nor passed to ``min``/``max``/``floor``…: such a formula is refused.

>>> f = compile_formula("(min(10, @cl))d6")
>>> f.at(5), f.at(12)
('5d6', '10d6')
>>> compile_formula("1d8 + min(5, @cl)").at(3)
'1d8+3'
>>> [compile_formula("1 + min(4, ceil(@cl / 2) - 1)").number(cl) for cl in (1, 4, 9)]
[1, 2, 5]
>>> compile_formula("(floor(@cl / 2))d2 + floor(@cl / 2)").at(1)
'0'
>>> compile_formula("@level + 1")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.core.errors.DataError: formule invalide « @level + 1 » : variable inconnue « @level » ...
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from engine.core.dice import MAX_DICE, MAX_SIDES, DiceExpr, compile_dice
from engine.core.errors import DataError

#: the longest formula accepted (the records' longest is about 70 characters)
MAX_FORMULA_CHARS = 200
#: the highest caster level a formula is evaluated at
MAX_CASTER_LEVEL = 40

_TOKEN = re.compile(r"\s*(?:(\d+)|(@[A-Za-z_][\w.]*)|([A-Za-z_]\w*)|(\S))")
_TAG = re.compile(r"\[[^\[\]]*\]")

_FUNCTIONS: dict[str, tuple[int, int]] = {
    # name: (fewest, most arguments)
    "min": (1, 16),
    "max": (1, 16),
    "floor": (1, 1),
    "ceil": (1, 1),
    "abs": (1, 1),
    "clamp": (3, 3),
    "sizeRoll": (2, 3),
}

# The parse tree: plain tuples, so a compiled formula is a hashable value.
#   ("n", value) | ("cl",) | ("neg", a) | ("+"|"-"|"*"|"/", a, b) | ("d", count, sides)
#   | ("call", name, (args…))
Node = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class _Dice:
    """A sum of dice and a constant: ``terms`` maps sides → signed count."""

    terms: tuple[tuple[int, int], ...]
    flat: Fraction


_Value = Fraction | _Dice


def _error(text: str, why: str) -> DataError:
    shown = text if len(text) <= 60 else text[:59] + "…"
    return DataError(f"formule invalide « {shown} » : {why}")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        stripped = _TAG.sub("", text)
        while pos < len(stripped):
            match = _TOKEN.match(stripped, pos)
            if match is None:  # only trailing blanks are left
                break
            number, var, name, op = match.groups()
            if number is not None:
                self.tokens.append(("num", number))
            elif var is not None:
                self.tokens.append(("var", var))
            elif name is not None:
                self.tokens.append(("name", name))
            elif op is not None:
                if op not in "+-*/(),":
                    raise _error(text, f"caractère inattendu « {op} »")
                self.tokens.append(("op", op))
            pos = match.end()
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise _error(self.text, "formule incomplète")
        self.i += 1
        return token

    def expect(self, op: str) -> None:
        token = self.take()
        if token != ("op", op):
            raise _error(self.text, f"« {op} » attendu, reçu « {token[1]} »")

    def parse(self) -> Node:
        if not self.tokens:
            raise _error(self.text, "formule vide")
        node = self.sum()
        token = self.peek()
        if token is not None:
            raise _error(self.text, f"« {token[1]} » inattendu")
        return node

    def sum(self) -> Node:
        node = self.product()
        while (token := self.peek()) in (("op", "+"), ("op", "-")):
            self.i += 1
            node = (token[1], node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while (token := self.peek()) in (("op", "*"), ("op", "/")):
            self.i += 1
            node = (token[1], node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek() == ("op", "-"):
            self.i += 1
            return ("neg", self.unary())
        if self.peek() == ("op", "+"):
            self.i += 1
            return self.unary()
        return self.dice()

    def dice(self) -> Node:
        """``atom`` or ``atom d atom``: the count and the sides may be computed.

        The tokenizer reads ``2d6`` as the number 2 then the name ``d6``, and
        ``(…)d6`` as a parenthesis then ``d6``; both are dice here."""
        node = self.atom()
        token = self.peek()
        if token is not None and token[0] == "name" and re.fullmatch(r"d\d*", token[1]):
            self.i += 1
            sides_text = token[1][1:]
            sides: Node = ("n", Fraction(int(sides_text))) if sides_text else self.atom()
            return ("d", node, sides)
        return node

    def atom(self) -> Node:
        kind, text = self.take()
        if kind == "num":
            return ("n", Fraction(int(text)))
        if kind == "var":
            if text != "@cl":
                raise _error(
                    self.text,
                    f"variable inconnue « {text} » (seule « @cl », le niveau de lanceur, "
                    "est permise)",
                )
            return ("cl",)
        if kind == "name":
            if re.fullmatch(r"d\d+", text):  # « d6 » alone: one die
                return ("d", ("n", Fraction(1)), ("n", Fraction(int(text[1:]))))
            if text not in _FUNCTIONS:
                known = ", ".join(sorted(_FUNCTIONS))
                raise _error(self.text, f"fonction inconnue « {text} » (connues : {known})")
            self.expect("(")
            args: list[Node] = []
            if self.peek() != ("op", ")"):
                args.append(self.sum_or_size())
                while self.peek() == ("op", ","):
                    self.i += 1
                    args.append(self.sum_or_size())
            self.expect(")")
            low, high = _FUNCTIONS[text]
            if not low <= len(args) <= high:
                raise _error(
                    self.text, f"« {text} » : {len(args)} argument(s), attendu {low}–{high}"
                )
            return ("call", text, tuple(args))
        if (kind, text) == ("op", "("):
            node = self.sum()
            self.expect(")")
            return node
        raise _error(self.text, f"« {text} » inattendu")

    def sum_or_size(self) -> Node:
        """A function argument; ``@size`` (``sizeRoll``'s third) reads as Medium."""
        if self.peek() == ("var", "@size"):
            self.i += 1
            return ("n", Fraction(0))
        return self.sum()


def _as_number(text: str, value: _Value, what: str) -> Fraction:
    if isinstance(value, _Dice):
        raise _error(text, f"des dés ne peuvent pas servir de {what}")
    return value


def _add(a: _Value, b: _Value, sign: int) -> _Value:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + sign * b
    da = a if isinstance(a, _Dice) else _Dice((), a)
    db = b if isinstance(b, _Dice) else _Dice((), b)
    counts = dict(da.terms)
    for sides, count in db.terms:
        counts[sides] = counts.get(sides, 0) + sign * count
    terms = tuple((s, c) for s, c in sorted(counts.items(), key=lambda t: -t[0]) if c)
    return _Dice(terms, da.flat + sign * db.flat)


def _evaluate(text: str, node: Node, cl: int) -> _Value:
    op = node[0]
    if op == "n":
        value = node[1]
        assert isinstance(value, Fraction)
        return value
    if op == "cl":
        return Fraction(cl)
    if op == "neg":
        inner = _evaluate(text, _child(node, 1), cl)
        return _add(Fraction(0), inner, -1)
    if op in ("+", "-"):
        left = _evaluate(text, _child(node, 1), cl)
        right = _evaluate(text, _child(node, 2), cl)
        return _add(left, right, 1 if op == "+" else -1)
    if op in ("*", "/"):
        left = _as_number(text, _evaluate(text, _child(node, 1), cl), "facteur")
        right = _as_number(text, _evaluate(text, _child(node, 2), cl), "facteur")
        if op == "*":
            return left * right
        if right == 0:
            raise _error(text, "division par zéro")
        return left / right
    if op == "d":
        count = _as_number(text, _evaluate(text, _child(node, 1), cl), "nombre de dés")
        sides = _as_number(text, _evaluate(text, _child(node, 2), cl), "nombre de faces")
        return _roll(text, count, sides)
    name = node[1]
    raw_args = node[2]
    assert isinstance(name, str)
    args = [
        _as_number(text, _evaluate(text, a, cl), f"argument de « {name} »")
        for a in _children(raw_args)
    ]
    if name == "min":
        return min(args)
    if name == "max":
        return max(args)
    if name == "floor":
        return Fraction(math.floor(args[0]))
    if name == "ceil":
        return Fraction(math.ceil(args[0]))
    if name == "abs":
        return abs(args[0])
    if name == "clamp":
        return min(max(args[0], args[1]), args[2])
    # sizeRoll(count, sides[, size]): the roll of a Medium creature
    return _roll(text, args[0], args[1])


def _roll(text: str, count: Fraction, sides: Fraction) -> _Value:
    n = math.floor(count)
    s = math.floor(sides)
    if n <= 0:
        return Fraction(0)
    if not 2 <= s <= MAX_SIDES or n > MAX_DICE:
        raise _error(
            text, f"dés hors limites ({n}d{s} : 1 à {MAX_DICE} dés de 2 à {MAX_SIDES} faces)"
        )
    return _Dice(((s, n),), Fraction(0))


def _child(node: Node, i: int) -> Node:
    child = node[i]
    assert isinstance(child, tuple)
    return child  # pyright: ignore[reportUnknownVariableType]


def _children(args: object) -> list[Node]:
    out: list[Node] = []
    assert isinstance(args, tuple)
    for a in args:  # pyright: ignore[reportUnknownVariableType]
        assert isinstance(a, tuple)
        out.append(a)  # pyright: ignore[reportUnknownArgumentType]
    return out


def _notation(value: _Value) -> str:
    """``value`` in the dice notation of :func:`~engine.core.dice.compile_dice`."""
    if isinstance(value, Fraction):
        return str(math.floor(value))
    out = ""
    for sides, count in value.terms:
        if count < 0:
            out += f"-{-count}d{sides}"
        else:
            out += f"{'+' if out else ''}{count}d{sides}"
    flat = math.floor(value.flat)
    if flat or not out:
        out += f"{flat:+d}" if out else str(flat)
    return out


@dataclass(frozen=True, slots=True)
class Formula:
    """A compiled formula (:func:`compile_formula`); a value, compared by its text."""

    #: the formula as written
    text: str
    #: its parse tree (plain tuples)
    tree: Node

    def at(self, cl: int) -> str:
        """The formula at caster level ``cl`` in dice notation (``"5d6"``, ``"1d8+3"``)."""
        return _at(self, cl)

    def dice(self, cl: int) -> DiceExpr:
        """The formula at caster level ``cl``, compiled (:func:`~engine.core.dice.compile_dice`)."""
        return compile_dice(_at(self, cl))

    def number(self, cl: int) -> int:
        """The formula at ``cl`` when it has no dice (rounded down), else a :class:`DataError`.

        >>> compile_formula("clamp(floor((@cl - 3) / 4), 0, 2)").number(11)
        2
        """
        value = _evaluate(self.text, self.tree, _check_cl(cl))
        if isinstance(value, _Dice):
            if value.terms:
                raise _error(self.text, "un nombre sans dés est attendu ici")
            return math.floor(value.flat)
        return math.floor(value)

    @property
    def uses_cl(self) -> bool:
        """Whether the caster level changes it."""
        return "cl" in repr(self.tree)

    @property
    def has_dice(self) -> bool:
        """Whether it rolls dice at some caster level (tried at 1, 10 and 20)."""
        return any(self.dice(cl).has_dice for cl in (1, 10, 20))


def _check_cl(cl: int) -> int:
    if not 0 <= cl <= MAX_CASTER_LEVEL:
        raise DataError(f"niveau de lanceur {cl} hors de 0 à {MAX_CASTER_LEVEL}")
    return cl


@lru_cache(maxsize=4096)
def _at(formula: Formula, cl: int) -> str:
    return _notation(_evaluate(formula.text, formula.tree, _check_cl(cl)))


@lru_cache(maxsize=4096)
def compile_formula(text: str) -> Formula:
    """Parse a formula once. :raises DataError: not a formula of the grammar
    (module docstring), or one that fails at some caster level from 1 to 20."""
    if len(text) > MAX_FORMULA_CHARS:
        raise _error(text, f"plus de {MAX_FORMULA_CHARS} caractères")
    formula = Formula(text, _Parser(text).parse())
    for cl in (1, 20):  # dice multiplied, bad dice: said at load time, not at cast time
        formula.at(cl)
    return formula


def check_formula(text: str) -> str:
    """``text`` if it is a valid formula, else a ``ValueError`` with the French reason
    (for pydantic validators).

    >>> check_formula("2d6 * 2")
    Traceback (most recent call last):
    ...
    ValueError: formule invalide « 2d6 * 2 » : des dés ne peuvent pas servir de facteur
    """
    try:
        compile_formula(text)
    except DataError as err:
        raise ValueError(err.message) from None
    return text
