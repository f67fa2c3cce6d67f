"""Temporary hit points (CRB « Temporary Hit Points »; *aid*, *false life*,
*virtue*; the decisions in ``docs/rules.md``, « Spellcasting »).

A creature's temporary hit points are one number, ``CombatantState.temp_hp``,
held while their effect is on it: an :class:`~engine.state.effects.Effect` of
source ``pv-temp:<spell id>``, without modifiers, timed like the spell's buffs
(on the caster's turns; none for a spell that outlasts the fight). When that
effect ends its duration, the number is forgotten the next time anything reads
it (:func:`temp_hp_left`), as :mod:`engine.rules.endings` forgets its endings:
nothing is done at the end of a turn, and a creature without temporary hit
points costs one test of a zero in :func:`engine.rules.life.apply_damage`.

* **Lost first**: lethal damage comes off them before the hit points
  (:func:`absorb`); used up, their effect is dropped. Nonlethal damage does not
  touch them (it is a total of its own, never taken from hit points); hit points
  lost without an attacker (a dying creature's, bleeding) neither.
* **No stacking**: a new grant replaces the temporary hit points left only if it
  is higher, with its own duration; else the creature keeps what it has.
* They are not healing: no ``healing_given``, no cap at the maximum hit points.
"""

from __future__ import annotations

from engine.core.events import TempHpGained
from engine.state.effects import hold, release, source_with
from engine.state.fight import FightState
from engine.state.state import CombatantState

#: the source prefix of the effect that holds them (``pv-temp:false-life``)
TEMP_HP = "pv-temp:"


def temp_hp_left(target: CombatantState) -> int:
    """``target``'s temporary hit points, 0 once their effect is gone."""
    if target.temp_hp and source_with(target, TEMP_HP) is None:
        target.temp_hp = 0
    return target.temp_hp


def absorb(target: CombatantState, amount: int) -> int:
    """Take what it can of ``amount`` (> 0) lethal damage off ``target``'s temporary
    hit points; returns that part. (Callers test ``target.temp_hp`` first.)"""
    left = temp_hp_left(target)
    taken = min(left, amount)
    if not taken:
        return 0
    target.temp_hp = left - taken
    if not target.temp_hp:
        release(target, TEMP_HP)
    return taken


def grant(
    fight: FightState,
    target: CombatantState,
    amount: int,
    spell_id: str,
    label: str,
    rounds: int | None,
    clock: CombatantState,
) -> None:
    """``target`` gains ``amount`` temporary hit points from the spell ``spell_id``
    for ``rounds`` rounds of ``clock``'s turns (``None``: the rest of the fight),
    unless it has as many or more already (module docstring)."""
    have = temp_hp_left(target)
    if amount <= have:
        if fight.log is not None:
            fight.log.append(TempHpGained(fight.round, target.id, label, amount, rounds, have))
        return
    release(target, TEMP_HP)
    target.temp_hp = amount
    hold(target, TEMP_HP + spell_id, rounds, clock, clock.id)
    if fight.log is not None:
        fight.log.append(TempHpGained(fight.round, target.id, label, amount, rounds))
