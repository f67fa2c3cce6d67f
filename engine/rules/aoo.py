"""Attacks of opportunity (SRD « Attacks of Opportunity »).

* **Who threatens**: the one threat rule, :func:`engine.geometry.reach.threat` — an
  active combatant threatens every square it could make a melee attack into:
  its reach, minus a reach weapon's dead zone, with line of effect. Ranged
  attacks and a zero reach threaten nothing.
* **Triggers modelled here**:

  - leaving a threatened square (move, charge, withdraw after its first square;
    each step is resolved in turn, so a mover can fall before the next square).
    Leaving several squares threatened by the same opponent in one round gives
    that opponent one opportunity only (« Moving out of more than one
    threatened square … doesn't count as more than one opportunity for that
    opponent »);
  - making a ranged attack from a threatened square: each threatening enemy
    gets its attack before each shot;
  - standing up from prone (the attacks land while it is still prone).

* **Budget**: one attack of opportunity per round, 1 + Dex modifier with Combat
  Reflexes (reset at the start of each round, like the seed).
* **Always taken**: PF1e lets a creature decline; the simulator never does.
* **Suppressed** (and the budget kept) when the provoking creature has cover
  against the attacker (SRD: « You can't execute an attack of opportunity
  against a character with cover ») or total concealment (50 % miss chance:
  displaced, invisible, or a blinded attacker).
* **Never provoke**: the 5-foot step, the first square of a withdraw.
* **Tumbling** (:mod:`engine.rules.tumbling`) tests each opponent that gets an
  opportunity here; one beaten is skipped for the rest of that move, a failed
  check gives that opponent its attack (:func:`strike`).

* **Entering an enemy's square**: a Tiny or smaller creature entering a bigger
  enemy's square provokes from that enemy (:func:`provoke_entering`).

* **Casting a spell** (:mod:`engine.rules.casting`) provokes like a shot, from every
  enemy that threatens the caster, unless it casts defensively.

Not modelled yet (see ``docs/rules.md``): combat maneuvers.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.content.creatures import AttackProfile
from engine.content.maps import Cell
from engine.content.space import footprint
from engine.core.events import Blocked, OpportunityAttack, Provocation
from engine.geometry.reach import body_cover, threat
from engine.rules.attack import resolve_swing, total_concealment
from engine.state.conditions import NO_AOO
from engine.state.effects import Cond
from engine.state.fight import FightState
from engine.state.state import CombatantState

_FLAT_FOOTED = Cond.FLAT_FOOTED.value
#: the conditions that forbid attacks of opportunity, flat-footed apart
_NO_AOO = NO_AOO & ~_FLAT_FOOTED


def no_aoo(enemy: CombatantState) -> bool:
    """Whether a condition keeps ``enemy`` from making attacks of opportunity
    (SRD « Confused », « Grappled », « Flat-Footed » — unless it has Combat
    Reflexes —, and every condition that keeps it from acting)."""
    cond = enemy.effects.cond
    if not cond:
        return False
    if cond & _NO_AOO:
        return True
    return bool(cond & _FLAT_FOOTED) and "combat reflexes" not in enemy.profile.features


#: what provoked the attack (rendered in French by :mod:`harness.transcript`)
LEAVES: Provocation = "leaves"
SHOOTS: Provocation = "shoots"
STANDS: Provocation = "stands"
ENTERS: Provocation = "enters"
CASTS: Provocation = "casts"


def opportunities(
    fight: FightState, mover: CombatantState, cell: Cell, *, movement: bool
) -> Iterator[tuple[CombatantState, AttackProfile, Blocked | None]]:
    """Lazily, each enemy that gets an opportunity against ``mover`` on ``cell``:
    ``(enemy, weapon, blocked)``, where ``blocked`` names why the attack cannot
    be made (cover, total concealment) or is ``None``. ``cell`` is the
    anchor of the mover's space (every square of it counts). Stops as soon as
    the mover is no longer active (read between two yields)."""
    gmap = fight.gmap
    for enemy in fight.combatants:
        if not mover.active:
            return
        if not enemy.active or enemy.side == mover.side:
            continue
        if enemy.aoo_used >= enemy.profile.aoo_per_round or (
            enemy.effects.cond & NO_AOO and no_aoo(enemy)
        ):
            continue
        if movement and enemy.id in mover.provoked_by:
            continue
        km = mover.space
        weapon = threat(gmap, enemy, cell, km)
        if weapon is None:
            continue
        blocked: Blocked | None = (
            "cover"
            if body_cover(gmap, enemy.pos, enemy.space, cell, km, weapon)
            else "total_concealment"
            if total_concealment(enemy, mover)
            else None
        )
        yield enemy, weapon, blocked


def strike(
    fight: FightState,
    enemy: CombatantState,
    mover: CombatantState,
    weapon: AttackProfile,
    provocation: Provocation,
    *,
    movement: bool,
) -> None:
    """``enemy`` makes its attack of opportunity against ``mover``."""
    enemy.aoo_used += 1
    if movement:
        mover.provoked_by.add(enemy.id)
    if fight.log is not None:
        fight.log.append(OpportunityAttack(fight.round, enemy.id, mover.id, provocation))
    resolve_swing(fight, enemy, mover, weapon)


def provoke(
    fight: FightState,
    mover: CombatantState,
    cell: Cell,
    *,
    movement: bool,
    why: Provocation | None = None,
) -> bool:
    """Every enemy threatening ``mover`` on ``cell`` takes its attack of opportunity.

    ``movement``: the trigger is leaving ``cell`` (one opportunity per opponent
    per round). Returns whether any attack was made. The caller stops what the
    mover was doing once it is no longer active.
    """
    struck = False
    label = why or (LEAVES if movement else SHOOTS)
    for enemy, weapon, blocked in opportunities(fight, mover, cell, movement=movement):
        if blocked is not None:
            if fight.log is not None:
                fight.log.append(OpportunityAttack(fight.round, enemy.id, mover.id, label, blocked))
            continue
        strike(fight, enemy, mover, weapon, label, movement=movement)
        struck = True
    return struck


def provoke_entering(fight: FightState, mover: CombatantState, cell: Cell) -> bool:
    """A Tiny or smaller ``mover`` entering ``cell``, inside a bigger enemy's space,
    provokes an attack of opportunity from that enemy (SRD « Tiny, Diminutive,
    and Fine Creatures »), which can strike into its own square. Returns whether
    any attack was made."""
    gmap = fight.gmap
    struck = False
    for enemy in fight.combatants:
        if not mover.active:
            break
        if not enemy.active or enemy.side == mover.side or enemy.very_small:
            continue
        if cell not in footprint(gmap, enemy.pos, enemy.space):
            continue
        if enemy.aoo_used >= enemy.profile.aoo_per_round or (
            enemy.effects.cond & NO_AOO and no_aoo(enemy)
        ):
            continue
        weapon = threat(gmap, enemy, cell)
        if weapon is None:
            continue
        if total_concealment(enemy, mover):
            if fight.log is not None:
                fight.log.append(
                    OpportunityAttack(fight.round, enemy.id, mover.id, ENTERS, "total_concealment")
                )
            continue
        strike(fight, enemy, mover, weapon, ENTERS, movement=False)
        struck = True
    return struck


def threat_possible(fight: FightState, actor: CombatantState, *, movement: bool = True) -> bool:
    """Cheap pre-check: some enemy with an AoO left threatens the actor's square
    (:func:`engine.geometry.reach.threat`; for movement, one not yet provoked by this
    actor's movement this round): whether :func:`opportunities` may yield."""
    gmap = fight.gmap
    pos = actor.pos
    w = gmap.width
    pr, pc = divmod(pos, w)
    side = actor.side
    km = actor.space
    for enemy in fight.combatants:
        if enemy.side == side:
            continue
        prof = enemy.profile
        if km == 1 and enemy.space == 1:
            # threat's own first test, inlined: most enemies are out of reach
            ep = enemy.pos
            if 5 * max(abs(ep // w - pr), abs(ep % w - pc)) > prof.threat_reach_ft:
                continue
        if enemy.aoo_used >= prof.aoo_per_round or (movement and enemy.id in actor.provoked_by):
            continue
        if enemy.effects.cond & NO_AOO and no_aoo(enemy):
            continue
        if threat(gmap, enemy, pos, km) is not None:
            return True
    return False
