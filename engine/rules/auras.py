"""Monster abilities that give conditions: start-of-turn auras and on-hit riders
(the data: :mod:`engine.content.abilities`).

* **Aura** (:func:`aura_turn`, called by the turn loop at the start of its owner's
  turn, once per turn: a delayed turn does not replay it; only for a creature
  whose file has auras). Every *other* active creature, ally or enemy (SRD « Fear
  Aura »: « creatures … in a 60-foot radius »), whose space is within
  ``radius_ft`` of the owner's (the distance between the nearest squares, 5-10-5)
  is affected, unless:

  - an outcome fits none of its Hit Dice (its file's ``level``): nothing to give;
  - it is immune (:func:`engine.rules.saves.immune`: the aura's descriptors, the
    condition; an undead to a mind-affecting fear) — said once, then passed over;
  - the aura ``spares_same_aura`` and it has an aura of the same name (SRD
    « Stench »: troglodytes do not smell each other) — passed over silently;
  - it saved against this aura earlier in the fight and ``immune_after_save``
    (SRD: « for 24 hours », longer than any fight);
  - it is already under a condition this aura gave it (the effect's ``origin`` is
    the owner): a frightened creature does not roll again each round, and fear
    does not stack on itself from one aura;
  - the aura ``needs_sight`` and the creature is blinded or has no line of effect
    to the owner (« that look at the lich »).

  Otherwise it rolls the aura's save against its DC (:func:`engine.rules.saves.roll_save`,
  the owner as source: its alignment is a descriptor) and on a failure gets the
  outcome's condition (:func:`engine.rules.status.give_condition`, timed on the
  owner's turns, fear stacking with fear from elsewhere).
* **Rider** (:func:`rider_hit`, called by the attack roll, ``engine.rules.attack._swing``,
  after a hit's damage, only for an attack with one): a target still active and
  not immune rolls the save; on a failure it gets the condition. Every hit asks
  again (a paralyzed creature hit once more saves again; the durations do not add).
* Durations: a number of rounds, dice rolled as ``duration`` when the condition is
  given (:func:`engine.rules.status.roll_rounds`), or until the fight ends.
"""

from __future__ import annotations

from functools import cache

from engine.content.abilities import Aura, AuraOutcome, Rider
from engine.content.space import body_distance_ft
from engine.core.events import Immune
from engine.geometry.reach import body_line_of_effect
from engine.rules.saves import immune, roll_save
from engine.rules.status import give_condition, roll_rounds
from engine.state.conditions import CONDITIONS
from engine.state.effects import Cond
from engine.state.fight import FightState
from engine.state.state import CombatantState

_BLINDED = Cond.BLINDED.value
#: the fear conditions: one aura's fear may have become another degree of fear
_FEAR = Cond.SHAKEN.value | Cond.FRIGHTENED.value | Cond.PANICKED.value


@cache
def aura_bits(aura: Aura) -> int:
    """The :class:`~engine.state.effects.Cond` bits of what ``aura`` gives (every
    degree of fear when it gives one: fear stacking may have changed it)."""
    bits = 0
    for outcome in aura.outcomes:
        bits |= CONDITIONS[outcome.condition].bit.value
    return bits | _FEAR if bits & _FEAR else bits


def aura_label(aura: Aura, owner: CombatantState) -> str:
    """The aura's name in the transcript, with its owner: « aura de terreur de lich »."""
    return f"{aura.name} de {owner.id}"


def aura_turn(fight: FightState, owner: CombatantState) -> None:
    """Every aura of ``owner`` acts, in file order (module docstring)."""
    for index, aura in enumerate(owner.profile.auras):
        emanate(fight, owner, index, aura)


def _under(target: CombatantState, owner: CombatantState, bits: int) -> bool:
    """Whether ``target`` has a condition among ``bits`` that ``owner`` gave it."""
    if not target.effects.cond & bits:
        return False
    me = owner.id
    return any(e.origin == me and e.cond & bits for e in target.effects.items)


def emanate(fight: FightState, owner: CombatantState, index: int, aura: Aura) -> None:
    """Aura number ``index`` of ``owner``'s file acts on the creatures around it."""
    gmap = fight.gmap
    spared = fight.aura_spared
    bits = aura_bits(aura)
    label: str | None = None
    for target in fight.combatants:
        if target is owner or not target.active:
            continue
        key = (owner.id, index, target.id)
        if key in spared:
            continue
        d = body_distance_ft(gmap, owner.pos, owner.space, target.pos, target.space)
        if d > aura.radius_ft:
            continue
        outcome = aura.outcome_for(target.profile.spec.level)
        if outcome is None:
            continue
        if aura.spares_same_aura and any(a.name == aura.name for a in target.profile.auras):
            spared.add(key)
            continue
        label = label or aura_label(aura, owner)
        why = immune(target, aura.descriptors, outcome.condition)
        if why is not None:
            spared.add(key)
            if fight.log is not None:
                fight.log.append(Immune(fight.round, target.id, label, why))
            continue
        if _under(target, owner, bits):
            continue
        if aura.needs_sight and (
            target.effects.cond & _BLINDED
            or not body_line_of_effect(gmap, target.pos, target.space, owner.pos, owner.space)
        ):
            continue
        _affect(fight, owner, target, aura, outcome, label, key)


def _affect(
    fight: FightState,
    owner: CombatantState,
    target: CombatantState,
    aura: Aura,
    outcome: AuraOutcome,
    label: str,
    key: tuple[str, int, str],
) -> None:
    rec = roll_save(
        fight, target, aura.save, aura.dc, effect=label, descriptors=aura.descriptors, source=owner
    )
    if rec is not None and rec.success:
        if aura.immune_after_save:
            fight.aura_spared.add(key)
        return
    give_condition(
        fight,
        target,
        outcome.condition,
        roll_rounds(fight, outcome.rounds),
        effect=label,
        origin=owner,
        descriptors=aura.descriptors,
    )


def rider_hit(
    fight: FightState, attacker: CombatantState, target: CombatantState, rider: Rider
) -> bool:
    """``rider`` of ``attacker``'s attack after a hit on ``target`` (module
    docstring); returns whether the condition took hold."""
    if not target.active:
        return False
    why = immune(target, rider.descriptors, rider.condition)
    if why is not None:
        if fight.log is not None:
            fight.log.append(Immune(fight.round, target.id, rider.name, why))
        return False
    rec = roll_save(
        fight,
        target,
        rider.save,
        rider.dc,
        effect=rider.name,
        descriptors=rider.descriptors,
        source=attacker,
    )
    if rec is not None and rec.success:
        return False
    return give_condition(
        fight,
        target,
        rider.condition,
        roll_rounds(fight, rider.rounds),
        effect=rider.name,
        origin=attacker,
        descriptors=rider.descriptors,
    )
