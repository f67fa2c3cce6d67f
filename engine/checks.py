"""The single check mechanism: every uncertain resolution returns a RollRecord.

A check is a die roll plus named modifiers compared with a target. How the die
behaves (its faces, which natural results succeed or fail automatically) is
*data*: a :class:`CheckMechanic`. PF1e uses d20 + modifiers ≥ target, with a
natural 20 that always succeeds and a natural 1 that always fails on attack
rolls, and no natural results on ability checks. Other rule packs can declare
their own mechanics without touching the code that asks for a check.

>>> from engine.rng import ScriptedRng
>>> rec = check(ScriptedRng([14]), D20_ATTACK, "attack", (Modifier(2, "attaque"),), 13)
>>> rec.total, rec.success, rec.margin
(16, True, 3)
>>> rec.explain()
'd20=14+2=16 vs 13 -> réussite (marge 3)'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.rng import Rng


class CheckKind(StrEnum):
    """What a check resolves. Closed vocabulary, shown in transcripts and JSON."""

    ATTACK = "attack"
    CONFIRM = "confirm"
    INITIATIVE = "initiative"
    STABILIZE = "stabilize"
    SAVE = "save"
    SKILL = "skill"
    CONCENTRATION = "concentration"
    CHECK = "check"


@dataclass(frozen=True, slots=True)
class Modifier:
    """A signed bonus or penalty and where it comes from (``"bonus d'attaque"``)."""

    value: int
    source: str


@dataclass(frozen=True, slots=True)
class CheckMechanic:
    """How a die roll is read. Pure data.

    :param name: identifier of the mechanic.
    :param sides: faces of the single die rolled.
    :param auto_success: natural result that always succeeds, or ``None``.
    :param auto_failure: natural result that always fails, or ``None``.
    """

    name: str
    sides: int = 20
    auto_success: int | None = None
    auto_failure: int | None = None


#: Attack rolls and crit confirmations (SRD: natural 20 hits, natural 1 misses).
D20_ATTACK = CheckMechanic("pf1e-attack", 20, auto_success=20, auto_failure=1)
#: Stabilization (SRD « Dying »: a natural 20 always stabilizes).
D20_STABILIZE = CheckMechanic("pf1e-stabilize", 20, auto_success=20)
#: Plain d20 roll with no natural results (initiative, ability and skill checks).
D20_PLAIN = CheckMechanic("pf1e-plain", 20)


@dataclass(frozen=True, slots=True)
class RollRecord:
    """An explainable roll: everything needed to say why it succeeded or failed.

    ``target`` is ``None`` for open rolls such as initiative; ``success`` and
    ``margin`` are then ``None`` too. ``automatic`` says when a natural result
    decided the outcome regardless of the total.
    """

    kind: str
    sides: int
    natural: int
    modifiers: tuple[Modifier, ...]
    total: int
    target: int | None
    success: bool | None
    margin: int | None
    automatic: bool = False

    @property
    def modifier_total(self) -> int:
        return self.total - self.natural

    def explain(self, target_label: str = "") -> str:
        """Compact French explanation, e.g. ``d20=14+2=16 vs 13 -> réussite``."""
        text = f"d{self.sides}={self.natural}{self.modifier_total:+d}={self.total}"
        if self.target is None:
            return text
        label = f"{target_label} " if target_label else ""
        text += f" vs {label}{self.target} -> "
        text += "réussite" if self.success else "échec"
        if self.automatic:
            text += f" (naturel {self.natural})"
        else:
            text += f" (marge {self.margin})"
        return text

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "die": f"d{self.sides}",
            "natural": self.natural,
            "modifiers": [{"value": m.value, "source": m.source} for m in self.modifiers],
            "total": self.total,
            "target": self.target,
            "success": self.success,
            "margin": self.margin,
            "automatic": self.automatic,
        }


def check(
    rng: Rng,
    mechanic: CheckMechanic,
    kind: str,
    modifiers: tuple[Modifier, ...],
    target: int | None,
) -> RollRecord:
    """Roll one check and return its :class:`RollRecord`.

    Success means ``natural + sum(modifiers) >= target``, overridden by the
    mechanic's automatic natural results.
    """
    natural = rng.die(mechanic.sides)
    total = natural
    for mod in modifiers:
        total += mod.value
    if target is None:
        return RollRecord(kind, mechanic.sides, natural, modifiers, total, None, None, None)
    margin = total - target
    if natural == mechanic.auto_success:
        return RollRecord(
            kind, mechanic.sides, natural, modifiers, total, target, True, margin, True
        )
    if natural == mechanic.auto_failure:
        return RollRecord(
            kind, mechanic.sides, natural, modifiers, total, target, False, margin, True
        )
    return RollRecord(kind, mechanic.sides, natural, modifiers, total, target, margin >= 0, margin)
