"""A caster's state in one fight: its spells (:class:`~engine.content.spellbook.Spellbook`),
the slots it has left and a spell it is still casting.

Slots are a per-fight budget: each fight starts with the file's ``spell_slots``
(the engine never adds bonus spells), a cast of level 1 or more spends one of
its level, cantrips (level 0) are free. A creature without spells has no
:class:`Casting` (``CombatantState.casting`` is ``None``): a fight without
casters pays nothing for any of this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from engine.content.actions import CastSpellAction, Slot
from engine.content.maps import Cell

if TYPE_CHECKING:  # (the spell files' models are imported only when someone casts)
    from engine.content.spellbook import KnownSpell, Spellbook


#: the budget slot of each casting time (CRB « Casting Time »): an immediate spell
#: takes the turn's swift action (SRD « Immediate Actions »); a one-round spell is a
#: full-round action whose effect comes at the start of the next turn; a longer one
#: is never cast in a fight (``None``: dropped with ``downgraded:cast_time``)
CAST_TIME_SLOTS: dict[str, Slot | None] = {
    "standard": Slot.STANDARD,
    "swift": Slot.SWIFT,
    "immediate": Slot.SWIFT,
    "free": Slot.FREE,
    "move": Slot.MOVE,
    "full_round": Slot.FULL_ROUND,
    "one_round": Slot.FULL_ROUND,
    "long": None,
}


@dataclass(frozen=True, slots=True)
class PendingCast:
    """A spell of one round's casting time, begun on its caster's turn (the slot is
    spent): it takes effect at the start of the caster's next turn
    (:func:`engine.rules.casting.finish_cast`), unless its caster is hurt in between
    and fails its concentration check, or can no longer act."""

    known: KnownSpell
    #: the creature it targets, or ``None``
    target_id: str | None
    #: the square that aims its area, or ``None``
    aim: Cell | None
    #: the caster's hit points and nonlethal damage when it began
    hp: int
    nonlethal: int
    #: the round it was begun in
    round: int
    #: a spell of several targets: the creatures it takes besides ``target_id``
    others: tuple[str, ...] = ()


class Casting:
    """The fight's part of a caster: its spellbook (shared) and what it spent."""

    __slots__ = ("book", "cast", "pending", "slots")

    def __init__(self, book: Spellbook) -> None:
        self.book = book
        #: slots left per level (0 to 9), replaced on each spend: a view that
        #: holds the tuple keeps the count it read
        self.slots: tuple[int, ...] = book.slots
        #: a one-round spell being cast, else ``None``
        self.pending: PendingCast | None = None
        #: spells cast this fight (begun, including the lost ones)
        self.cast = 0

    def slot_of(self, action: CastSpellAction) -> Slot | None:
        """The budget slot of casting ``action``'s spell (an unknown one: standard, and
        the rule refuses it); ``None`` when it takes too long for a fight."""
        known = self.book.get(action.spell_name)
        if known is None:
            return Slot.STANDARD
        return CAST_TIME_SLOTS[known.spell.cast_time]

    def has_slot(self, level: int) -> bool:
        """A cantrip always; otherwise a slot of its level is left."""
        return level == 0 or self.slots[level] > 0

    def spend(self, level: int) -> None:
        """Spend a slot of ``level`` (nothing for a cantrip)."""
        self.cast += 1
        if level:
            slots = list(self.slots)
            slots[level] -= 1
            self.slots = tuple(slots)

    def spent(self) -> int:
        """The slots it has spent this fight (cantrips cost none)."""
        return sum(self.book.slots) - sum(self.slots)

    def __repr__(self) -> str:
        return f"Casting(slots={self.slots!r}, pending={self.pending!r})"


#: how a spell's condition may end before its duration (:mod:`engine.rules.endings`):
#: a new save at the end of each of its holder's turns, its holder attacking, or
#: its holder breaking free
EndingKind = Literal["save", "attack", "escape"]


@dataclass(frozen=True, slots=True)
class Ending:
    """A spell's condition on a creature that ends another way than its duration
    (SRD « Hold Person », « Invisibility », « Web »): kept on the holder
    (``CombatantState.endings``) while its effect ``source`` is there."""

    kind: EndingKind
    #: the effect it ends (its source: one spell's condition, not the condition's others)
    source: str
    #: the condition it gives (a file name of the table)
    condition: str
    #: the spell's French name (the transcript)
    label: str
    #: the save (``save``): ``fort``, ``ref`` or ``will``; else ``None``
    save: str | None
    #: the DC of the new save or of the escape check
    dc: int
    #: the spell's descriptors (a new save is against them too)
    descriptors: tuple[str, ...]
    #: the caster (``None`` when gone from the fight)
    origin: str | None
    #: an escape's check besides Escape Artist: ``cmb`` (*web*) or ``strength`` (*entangle*)
    escape_check: str = "cmb"
    #: the slot an escape takes: a standard action (*web*) or a move action (*entangle*)
    escape_slot: Slot = Slot.STANDARD


@dataclass(slots=True)
class Recurring:
    """Damage a spell deals again at the start of its holder's turns (SRD « Acid
    Arrow »), kept on the holder (``CombatantState.recurring``) until ``left`` runs out."""

    #: the spell's id and French name (the transcript)
    spell_id: str
    label: str
    #: the caster's id (its damage dealt), and its caster level (the formula's)
    origin: str
    cl: int
    #: the compiled formula (:class:`~engine.content.formulas.Formula`) and its energy types
    formula: Any
    types: tuple[str, ...]
    #: the turns it still deals damage at the start of
    left: int
