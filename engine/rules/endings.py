"""Spell conditions that end before their duration (SRD « Hold Person »,
« Glitterdust », « Invisibility », « Web », « Entangle »; ``docs/rules.md``,
« Spellcasting »).

A spell's condition that ends another way is an effect of its own source
(:func:`source_of`, not the condition's ``cond:<name>``: ending it leaves the same
condition from anything else) and an :class:`~engine.state.casting.Ending` on its
holder (``CombatantState.endings``, empty for almost everyone: a fight without
such spells tests one empty tuple at the end of a turn and on an attack).

* **A new save each round** (``save``, :func:`turn_end`): at the end of each of
  its holder's turns — a turn it lost to the condition included — a new saving
  throw against the spell's DC and descriptors ends it on a success. SRD « Hold
  Person »: « Each round on its turn, the subject may attempt a new saving throw
  to end the effect. This is a full-round action »: a paralyzed creature has
  nothing else to do with its turn. SRD « Glitterdust »: « at the end of their
  turns ».
* **Ends on an attack** (``attack``, :func:`attacked`): SRD « Invisibility »: « If
  the subject attacks any creature, the spell ends. […] an attack includes any
  spell targeting a foe or whose area or effect includes a foe ». The attack
  that ends it keeps its benefit (it is made while invisible).
* **Escape** (*web*, *entangle*): not played yet (the spellbook lists them
  « non modélisé »): it needs an action kind the menu offers.
"""

from __future__ import annotations

from engine.core.events import ConditionEnded
from engine.rules.saves import roll_save
from engine.state.casting import Ending, EndingKind
from engine.state.conditions import CONDITIONS
from engine.state.effects import drop_effect
from engine.state.fight import FightState
from engine.state.state import CombatantState

#: the effect source prefix of each kind of ending
_PREFIX: dict[EndingKind, str] = {"save": "save-each-round", "attack": "ends-on-attack",
                                  "escape": "escape"}  # fmt: skip


def source_of(kind: EndingKind, spell_id: str, condition: str) -> str:
    """The source of a spell's condition that ends by ``kind``.

    >>> source_of("escape", "web", "grappled")
    'escape:web:grappled'
    """
    return f"{_PREFIX[kind]}:{spell_id}:{condition}"


def add_ending(target: CombatantState, ending: Ending) -> None:
    """Keep ``ending`` on ``target`` (one per source: a new cast replaces it)."""
    kept = tuple([e for e in target.endings if e.source != ending.source])
    target.endings = (*kept, ending)


def _held(target: CombatantState, source: str) -> bool:
    return any(e.source == source for e in target.effects.items)


def _end(fight: FightState, target: CombatantState, ending: Ending) -> None:
    """End the effect of ``ending`` (logged when that removes the condition)."""
    drop_effect(target, ending.source)
    target.endings = tuple([e for e in target.endings if e is not ending])
    bit = CONDITIONS[ending.condition].bit.value
    if fight.log is not None and not target.effects.cond & bit:
        fight.log.append(ConditionEnded(fight.round, target.id, ending.condition))


def _prune(target: CombatantState) -> None:
    """Forget the endings whose effect is gone (its duration ran out, or it was dropped)."""
    target.endings = tuple([e for e in target.endings if _held(target, e.source)])


def turn_end(fight: FightState, actor: CombatantState) -> None:
    """The end of ``actor``'s turn: a new save against each of its spells'
    conditions that allow one (module docstring). (Callers test ``actor.endings``.)"""
    _prune(actor)
    for ending in actor.endings:
        if ending.kind != "save" or actor.dead:
            continue
        assert ending.save is not None
        origin = fight.target(ending.origin) if ending.origin is not None else None
        rec = roll_save(
            fight, actor, ending.save, ending.dc, effect=ending.label,
            descriptors=ending.descriptors, source=origin,
        )  # fmt: skip
        if rec is not None and rec.success:
            _end(fight, actor, ending)


def attacked(fight: FightState, actor: CombatantState) -> None:
    """``actor`` attacked a creature (a swing, or a spell aimed at a foe or whose
    area holds one): its conditions that end on an attack end. (Callers test
    ``actor.endings``.)"""
    _prune(actor)
    for ending in actor.endings:
        if ending.kind == "attack":
            _end(fight, actor, ending)
