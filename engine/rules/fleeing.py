"""Fleeing in fear (SRD « Frightened », « Panicked »): the engine plays the turn.

« A frightened creature flees from the source of its fear as best it can. If
unable to flee, it may fight. » « A panicked creature must drop anything it
holds and flee at top speed from the source of its fear […]. If cornered, a
panicked creature cowers. »

At the start of its turn (:func:`flee_turn`, called by the turn loop once per
turn), a frightened or panicked creature moves away from the source of its
fear — the ``origin`` of its fear effects still in the fight, else every active
enemy — as far as its budget goes, greedily, each square farther from the
nearest of them (:func:`engine.geometry.movement.withdraw_path`, the withdraw's
own path rule: it flees the nearest source without running into another):

* threatened by an enemy that would get an attack of opportunity: a **withdraw**
  (its first square provokes none; twice its speed, or its speed as a standard
  action when it has one action only);
* otherwise a **double move** (twice its speed; one move when it has one action
  only: disabled, staggered, nauseated, the surprise round);
* prone: it **stands up** (provoking) and, with a move action left, moves once;
* nauseated: one move action, never a withdraw (a standard action).

Not a run: a run goes in a straight line and costs the Dexterity bonus to AC,
while a flight turns around obstacles. Dropping what it holds is not modelled
(weapons are never dropped). When it can get no farther (no square farther
from the source, or a condition that forbids moving) it is **cornered**: a
frightened creature then acts normally (its policy plays the turn), a panicked
one cowers (``cowering`` until its next turn: the turn is lost).
"""

from __future__ import annotations

from engine.content.actions import StandUpAction
from engine.content.space import body_distance_ft, footprint
from engine.core.events import Fled, FleeKind
from engine.geometry.movement import withdraw_path
from engine.rules.aoo import threat_possible
from engine.rules.moves import do_stand_up, walk
from engine.rules.status import give_condition
from engine.state.conditions import CANT_MOVE, FLEES, ONE_MOVE
from engine.state.effects import Cond
from engine.state.fight import FightState
from engine.state.state import CombatantState

_PRONE = Cond.PRONE.value
_PANICKED = Cond.PANICKED.value
#: the French name of the effect that makes a cornered panicked creature cower
PANIC = "panique"


def fear_sources(fight: FightState, actor: CombatantState) -> list[CombatantState]:
    """What ``actor`` flees: its fear effects' origins still in the fight (not
    dead), else every active enemy, nearest first (ties: deployment order)."""
    gmap = fight.gmap
    origins = {e.origin for e in actor.effects.items if e.cond & FLEES and e.origin is not None}
    sources = [c for c in fight.combatants if c.id in origins and not c.dead]
    if not sources:
        sources = [c for c in fight.combatants if c.active and c.side != actor.side]
    keyed = [
        (body_distance_ft(gmap, actor.pos, actor.space, c.pos, c.space), i, c)
        for i, c in enumerate(sources)
    ]
    return [c for _d, _i, c in sorted(keyed, key=lambda k: k[:2])]


def flee_turn(fight: FightState, actor: CombatantState) -> bool:
    """A frightened or panicked ``actor``'s flight at the start of its turn (see the
    module docstring); returns whether that was its turn (``False``: a cornered
    frightened creature acts normally)."""
    cond = actor.effects.cond
    sources = fear_sources(fight, actor)
    source = sources[0] if sources else None
    log = fight.log
    single = actor.staggered or fight.round == 0 or cond & ONE_MOVE != 0
    prone = cond & _PRONE != 0
    path = None
    if sources and not cond & CANT_MOVE:
        gmap = fight.gmap
        path = withdraw_path(
            gmap,
            actor.pos,
            {cell for c in sources for cell in footprint(gmap, c.pos, c.space)},
            actor.speed_ft,
            fight.occupied_for(actor),
            restricted=single or prone,
            k=actor.space,
        )
    source_id = source.id if source is not None else None
    if path is None or not path.cells:
        if log is not None:
            log.append(Fled(fight.round, actor.id, source_id, "cornered"))
        if not cond & _PANICKED:
            return False  # SRD « Frightened »: unable to flee, it may fight
        give_condition(fight, actor, "cowering", 1, effect=PANIC)
        return True
    kind: FleeKind
    if prone:
        kind = "stand" if single else "move"
    elif not cond & ONE_MOVE and threat_possible(fight, actor):
        kind = "withdraw"
    else:
        kind = "move" if single else "double_move"
    if log is not None:
        log.append(Fled(fight.round, actor.id, source_id, kind, prone))
    if prone:
        do_stand_up(fight, actor, StandUpAction())
        if kind == "stand" or not actor.active:
            return True
    walk(fight, actor, path.cells, "withdraw" if kind == "withdraw" else "move",
         safe_start=kind == "withdraw")  # fmt: skip
    return True
