"""What happened in a fight, as small frozen records: the transcript's events.

The rules append them to ``FightState.log`` only when a log is kept (``log`` is
``None`` otherwise, and a rule builds nothing); :mod:`harness.transcript`
renders them as the French lines of the transcript. Every event carries the
round it happened in (``None`` for lines outside the rounds: initiative, end
of fight) and the id of the combatant the line is about (``None`` when none).
Events hold plain values (ids, numbers, squares as ``(row, column)``, the
:class:`~engine.core.checks.RollRecord` of each roll), never a mutable state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.core.checks import RollRecord

#: how a swing ended: missed, hit then missed on the concealment d100, hit
AttackOutcome = Literal["miss", "concealed", "hit"]

#: what provoked an attack of opportunity: leaving a threatened square, shooting
#: from one, standing up, a Tiny creature entering the square of a bigger one
Provocation = Literal["leaves", "shoots", "stands", "enters"]

#: why an attack of opportunity could not be made
Blocked = Literal["cover", "total_concealment"]

#: how a combatant moved: the verbs of :func:`engine.rules.moves.walk`'s callers
MoveKind = Literal["move", "step", "charge", "run", "withdraw", "tumble"]

#: a combatant's change of state after damage: dead, destroyed (no Constitution),
#: dying, disabled, unconscious from nonlethal damage
LifeChangeKind = Literal["dead", "destroyed", "dying", "disabled", "unconscious"]


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event: when and about whom."""

    round: int | None
    actor: str | None


@dataclass(frozen=True, slots=True)
class Note(Event):
    """A line whose text the rule still writes itself (not yet a typed event)."""

    text: str
    rolls: tuple[RollRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class Attack(Event):
    """One swing of ``actor`` against ``target``, with its outcome and damage.

    ``confirm`` is the confirmation roll of a threat (``None`` without one);
    ``multiplier`` is the damage multiplier applied (1 unless confirmed). The
    damage fields and the target's state after the hit are meaningful only when
    ``outcome`` is ``"hit"``; ``d100`` and ``miss_chance`` only on concealment.
    """

    target: str
    weapon: str
    roll: RollRecord
    ac: int
    ac_notes: tuple[str, ...]
    outcome: AttackOutcome
    confirm: RollRecord | None = None
    multiplier: int = 1
    d100: int = 0
    miss_chance: int = 0
    damage: int = 0
    nonlethal: int = 0
    minimum: bool = False
    immune: bool = False
    dr_absorbed: int = 0
    energy_notes: tuple[str, ...] = ()
    target_hp: int = 0
    target_hp_max: int = 0
    target_nonlethal: int = 0
    target_life: str = ""


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """``actor`` walked through ``path`` (squares as ``(row, column)``, start
    included), up to an interruption (an attack of opportunity, a readied
    action) or the end of the move."""

    kind: MoveKind
    path: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class OpportunityAttack(Event):
    """``actor`` makes (or, when ``blocked``, cannot make) an attack of
    opportunity against ``target``; the swing follows as an :class:`Attack`."""

    target: str
    provocation: Provocation
    blocked: Blocked | None = None


@dataclass(frozen=True, slots=True)
class TumbleCheck(Event):
    """``actor``'s Acrobatics check to move through ``enemy``'s threatened
    squares: ``roll`` against the enemy's CMD plus ``extra_dc`` for the
    opponents already tested this move."""

    enemy: str
    roll: RollRecord
    extra_dc: int


@dataclass(frozen=True, slots=True)
class LifeChange(Event):
    """``actor`` died, was destroyed, fell dying, disabled or unconscious."""

    kind: LifeChangeKind
    hp: int
