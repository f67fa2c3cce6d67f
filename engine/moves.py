"""The movement actions: move (and tumble), 5-foot step, charge, run, withdraw,
drop prone and stand up.

Each ``do_x(fight, actor, action) -> ActionResult`` resolves one action of the
turn on the :class:`engine.fight.FightState`; the paths come from the pure
functions of :mod:`engine.movement`. :func:`walk` moves a creature square by
square: leaving a threatened square provokes attacks of opportunity
(:mod:`engine.aoo`) or, in a tumbling move, an Acrobatics check
(:mod:`engine.tumbling`); each square entered may fire a readied action or a
reaction (:mod:`engine.readiness`); hidden creatures' Stealth is re-judged
afterwards (:mod:`engine.stealth`).
"""

from __future__ import annotations

from engine import readiness
from engine.actions import (
    ActionResult,
    ChargeAction,
    FiveFootStepAction,
    MoveAction,
    Reason,
    RunAction,
)
from engine.aoo import STANDS, provoke, provoke_entering, threat_possible
from engine.attack import CHARGE_EFFECT, PRONE_EFFECT, RUN_EFFECT, resolve_swing
from engine.effects import Cond, add_effect, drop_effect
from engine.fight import C, FightState, Situation
from engine.grid import Path
from engine.maps import Cell, GameMap
from engine.movement import (
    ChargeResult,
    charge_path,
    move_toward,
    path_to_destination,
    run_path,
    step_allowed,
    step_toward,
    withdraw_path,
)
from engine.skills import trained
from engine.space import body_distance_squares, footprint
from engine.state import CombatantState
from engine.stealth import after_move, reveal
from engine.tumbling import Tumble

_PRONE = Cond.PRONE.value


def walk(
    fight: FightState,
    actor: CombatantState,
    cells: tuple[Cell, ...],
    label: str,
    *,
    provokes: bool = True,
    safe_start: bool = False,
    tumble: Tumble | None = None,
) -> bool:
    """Move ``actor`` square by square along ``cells``.

    Leaving a threatened square provokes attacks of opportunity (unless
    ``provokes`` is false: a 5-foot step; ``safe_start``: a withdraw's first
    square); a ``tumble`` tests Acrobatics instead and stops the walk on a
    failure. The trail is written up to each interruption. Returns whether
    the actor is still active (it stops where it fell). Afterwards, hidden
    creatures' Stealth is re-judged (:func:`engine.stealth.after_move`).
    """
    if not cells:
        return actor.active
    actor.moved_this_turn = True
    trail = [actor.pos]
    moved = False
    for i, cell in enumerate(cells):
        if provokes and not (safe_start and i == 0) and threat_possible(fight, actor):
            if fight.log is not None and len(trail) > 1:
                fight.note(actor, f"{label} {'->'.join(fight.fmt(c) for c in trail)}")
                trail = [actor.pos]
            if tumble is not None:
                if not tumble.leave(fight, actor):
                    break
            else:
                provoke(fight, actor, actor.pos, movement=True)
            if not actor.active:
                return False
        if actor.profile.very_small and provokes and enemy_on(fight, actor, cell):
            # SRD: a very small creature entering a bigger enemy's square provokes
            if fight.log is not None and len(trail) > 1:
                fight.note(actor, f"{label} {'->'.join(fight.fmt(c) for c in trail)}")
                trail = [actor.pos]
            provoke_entering(fight, actor, cell)
            if not actor.active:
                return False
        actor.pos = cell
        moved = True
        trail.append(cell)
        if fight.watching:

            def flush() -> None:
                nonlocal trail
                if fight.log is not None and len(trail) > 1:
                    fight.note(actor, f"{label} {'->'.join(fight.fmt(c) for c in trail)}")
                trail = [actor.pos]

            readiness.on_step(fight, actor, flush)
            if not actor.active:  # SRD « Ready »: it falls where it was stopped
                return False
    if fight.log is not None and len(trail) > 1:
        fight.note(actor, f"{label} {'->'.join(fight.fmt(c) for c in trail)}")
    if not actor.active:
        return False
    # (a tumble stopped on its first square did not move: nothing to re-judge)
    if moved and any(c.hidden_from for c in fight.combatants):
        after_move(fight, actor)
    return True


def enemy_on(fight: FightState, actor: CombatantState, cell: Cell) -> bool:
    """Some active enemy's space covers ``cell``."""
    gmap = fight.gmap
    for c in fight.combatants:
        if c.active and c.side != actor.side:
            if c.profile.space == 1:
                if c.pos == cell:
                    return True
            elif cell in footprint(gmap, c.pos, c.profile.space):
                return True
    return False


def verify_move(gmap: GameMap, s: Situation[C], actor: C, action: MoveAction) -> Path | Reason:
    """What the move ``action`` of ``actor`` walks (possibly nothing), or why it
    is refused: the one judgement of the engine (:func:`do_move`) and of the
    menu's tumbling options (:mod:`engine.options`).

    Toward ``target_id`` it stops once an attack reaches the target
    (:func:`engine.movement.move_toward`); to ``destination`` it must end there
    (:func:`engine.movement.path_to_destination`). Both move the actor's whole
    space. A tumble (SRD « Acrobatics »: trained only, seed §3.34) goes at half
    speed.
    """
    speed = actor.speed_ft
    if action.tumble:
        if not trained(actor.profile, "Acrobatics"):
            return Reason.UNTRAINED_TUMBLE
        speed = (speed // 10) * 5
    occupied = s.occupied_for(actor)
    hostile = s.hostile_for(actor)
    if action.destination is not None:
        r, c = action.destination
        if not gmap.in_bounds(r, c):
            return Reason.UNREACHABLE_DESTINATION
        path = path_to_destination(
            gmap,
            actor.cell,
            gmap.cell(r, c),
            speed // 5,
            occupied=occupied,
            hostile=hostile,
            k=actor.space,
        )
        return Reason.UNREACHABLE_DESTINATION if path is None else path
    target = s.target(action.target_id)
    if target is None:
        return Reason.MISSING_TARGET
    return move_toward(
        gmap,
        actor.cell,
        target.cell,
        actor.attacks,
        speed,
        occupied=occupied,
        hostile=hostile,
        k=actor.space,
        kt=target.space,
    )


def do_move(fight: FightState, actor: CombatantState, action: MoveAction) -> ActionResult:
    """Verify the move (:func:`verify_move`), then walk it (tumbling or not)."""
    path = verify_move(fight.gmap, fight, actor, action)
    if not isinstance(path, Path):
        return ActionResult("move", False, path)
    if action.tumble:
        walk(fight, actor, path.cells, "déplacement acrobatique", tumble=Tumble())
    else:
        walk(fight, actor, path.cells, "déplacement")
    return ActionResult("move", True)


def do_step(fight: FightState, actor: CombatantState, action: FiveFootStepAction) -> ActionResult:
    occupied = fight.occupied_for(actor)
    if actor.speed_ft <= 5:
        return ActionResult("5foot_step", False, Reason.UNREACHABLE_DESTINATION)
    if action.destination is not None:
        r, c = action.destination
        if not fight.gmap.in_bounds(r, c):
            return ActionResult("5foot_step", False, Reason.UNREACHABLE_DESTINATION)
        dest = fight.gmap.cell(r, c)
        if not step_allowed(fight.gmap, actor.pos, dest, occupied, actor.space):
            return ActionResult("5foot_step", False, Reason.UNREACHABLE_DESTINATION)
    else:
        target = fight.target(action.target_id) or nearest_enemy(fight, actor)
        if target is None:
            return ActionResult("5foot_step", False, Reason.MISSING_TARGET)
        step, _ = step_toward(
            fight.gmap, actor.pos, target.pos, actor.attacks, occupied, actor.space, target.space
        )
        if step is None:
            return ActionResult("5foot_step", False, Reason.UNREACHABLE_DESTINATION)
        dest = step
    walk(fight, actor, (dest,), "pas de placement", provokes=False)
    return ActionResult("5foot_step", True)


def nearest_enemy(fight: FightState, actor: CombatantState) -> CombatantState | None:
    best: tuple[int, int] | None = None
    found: CombatantState | None = None
    for c in fight.combatants:
        if c.active and c.side != actor.side:
            key = (distance(fight, actor, c), c.index)
            if best is None or key < best:
                best, found = key, c
    return found


def distance(fight: FightState, a: CombatantState, b: CombatantState) -> int:
    if a.profile.space != 1 or b.profile.space != 1:
        return body_distance_squares(fight.gmap, a.pos, a.space, b.pos, b.space)
    w = fight.gmap.width
    dr = abs(a.pos // w - b.pos // w)
    dc = abs(a.pos % w - b.pos % w)
    return max(dr, dc) + min(dr, dc) // 2


def verify_charge(
    gmap: GameMap, s: Situation[C], actor: C, target_id: str | None, weapon_id: str | None = None
) -> ChargeResult:
    """Whether ``actor`` may charge ``target_id`` (with the melee attack
    ``weapon_id``, or the first that can), along which line and with which
    attack, or why not: the one judgement of the engine (:func:`do_charge`) and
    of the Observation (:meth:`~engine.observation.Observation.charge`, which
    the menu and the policies read). The line is
    :func:`engine.movement.charge_path`'s.
    """
    target = s.target(target_id)
    if target is None:
        return ChargeResult(False, Reason.MISSING_TARGET)
    if not target.active:
        return ChargeResult(False, Reason.TARGET_DOWN)
    attacks = actor.attacks
    if weapon_id is not None:
        attacks = tuple(a for a in attacks if a.id == weapon_id and a.is_melee)
        if not attacks:
            return ChargeResult(False, Reason.WEAPON_UNAVAILABLE)
    return charge_path(
        gmap,
        actor.cell,
        target.cell,
        attacks,
        actor.speed_ft,
        s.occupied_for(actor),
        actor.space,
        target.space,
    )


def do_charge(fight: FightState, actor: CombatantState, action: ChargeAction) -> ActionResult:
    """Verify the charge (:func:`verify_charge`), walk its line, then attack at +2."""
    res = verify_charge(fight.gmap, fight, actor, action.target_id, action.weapon_id)
    if not res.ok or res.path is None or res.attack is None:
        return ActionResult("charge", False, res.reason)
    target = fight.by_id[action.target_id or ""]
    reveal(fight, actor, "charge")  # SRD « Stealth »: charging breaks it
    if not walk(fight, actor, res.path.cells, "charge"):
        return ActionResult("charge", True)  # fell to an attack of opportunity
    add_effect(actor, CHARGE_EFFECT)  # −2 AC until its next turn
    if target.active:
        resolve_swing(fight, actor, target, res.attack, charge=True)
    return ActionResult("charge", True)


def do_run(fight: FightState, actor: CombatantState, action: RunAction) -> ActionResult:
    occupied = fight.occupied_for(actor)
    hostile = fight.hostile_for(actor)
    if action.destination is not None:
        r, c = action.destination
        if not fight.gmap.in_bounds(r, c):
            return ActionResult("run", False, Reason.UNREACHABLE_DESTINATION)
        dest = fight.gmap.cell(r, c)
        path = run_path(
            fight.gmap,
            actor.pos,
            dest,
            actor.speed_ft,
            occupied=occupied,
            hostile=hostile,
            k=actor.space,
        )
        if not path.cells or path.cells[-1] != dest:
            return ActionResult("run", False, Reason.UNREACHABLE_DESTINATION)
    else:
        target = fight.target(action.target_id)
        if target is None:
            return ActionResult("run", False, Reason.MISSING_TARGET)
        path = run_path(
            fight.gmap,
            actor.pos,
            target.pos,
            actor.speed_ft,
            occupied=occupied,
            hostile=hostile,
            k=actor.space,
        )
    refused = readiness.run_endurance(fight, actor)
    if refused is not None:
        return refused
    add_effect(actor, RUN_EFFECT)  # a run that moves nowhere still counts (SRD: it ran)
    reveal(fight, actor, "course")  # SRD « Stealth »: running breaks it
    walk(fight, actor, path.cells, "course")
    return ActionResult("run", True)


def do_withdraw(fight: FightState, actor: CombatantState) -> ActionResult:
    enemies = fight.hostile_cells(actor)
    # Restricted withdraw (SRD): a creature limited to one action (disabled)
    # withdraws as a standard action, up to its (halved) speed instead of 2×.
    path = withdraw_path(
        fight.gmap,
        actor.pos,
        enemies,
        actor.speed_ft,
        fight.occupied_for(actor),
        restricted=actor.staggered,
        k=actor.space,
    )
    # SRD « Withdraw »: the starting square is not threatened
    walk(fight, actor, path.cells, "retraite", safe_start=True)
    return ActionResult("withdraw", True)


def do_drop_prone(fight: FightState, actor: CombatantState) -> ActionResult:
    """SRD « Drop Prone »: a free action."""
    if actor.effects.cond & _PRONE:
        return ActionResult("drop_prone", False, Reason.ALREADY_PRONE)
    add_effect(actor, PRONE_EFFECT)
    fight.note(actor, "se jette à terre")
    return ActionResult("drop_prone", True)


def do_stand_up(fight: FightState, actor: CombatantState) -> ActionResult:
    """SRD « Stand Up »: a move action that provokes attacks of opportunity."""
    if not actor.effects.cond & _PRONE:
        return ActionResult("stand_up", False, Reason.NOT_PRONE)
    # SRD: standing up provokes; the attacks land while it is still prone
    if threat_possible(fight, actor, movement=False):
        provoke(fight, actor, actor.pos, movement=False, why=STANDS)
    if actor.active:
        drop_effect(actor, PRONE_EFFECT.source)
        fight.note(actor, "se relève")
    return ActionResult("stand_up", True)
