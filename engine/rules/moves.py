"""The movement actions: move (and tumble), 5-foot step, charge, run, withdraw,
drop prone and stand up.

Each ``verify_x(gmap, situation, actor, action) -> plan | Reason`` judges an
action on a :class:`~engine.state.fight.Situation` (the live fight, or the
Observation the legal-options menu reads), and ``do_x(fight, actor, plan) ->
ActionResult`` does the plan on the :class:`engine.state.fight.FightState`; the paths
come from the pure functions of :mod:`engine.geometry.movement`. :func:`walk` moves a
creature square by square: leaving a threatened square provokes attacks of opportunity
(:mod:`engine.rules.aoo`) or, in a tumbling move, an Acrobatics check
(:mod:`engine.rules.tumbling`); each square entered may fire a readied action or a
reaction (:mod:`engine.rules.readiness`); hidden creatures' Stealth is re-judged
afterwards (:mod:`engine.rules.stealth`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.content.actions import (
    ActionResult,
    ChargeAction,
    DropProneAction,
    FiveFootStepAction,
    MoveAction,
    Reason,
    RunAction,
    StandUpAction,
    WithdrawAction,
    succeeded,
)
from engine.content.creatures import AttackProfile
from engine.content.maps import Cell, GameMap
from engine.content.space import body_distance_squares, footprint
from engine.core.events import Moved, MoveKind, Posture
from engine.geometry.grid import Path
from engine.geometry.movement import (
    ChargeResult,
    charge_path,
    move_toward,
    path_to_destination,
    run_path,
    step_allowed,
    step_toward,
    withdraw_path,
)
from engine.rules import readiness
from engine.rules.aoo import STANDS, provoke, provoke_entering, threat_possible
from engine.rules.attack import CHARGE_EFFECT, PRONE_EFFECT, RUN_EFFECT, resolve_swing
from engine.rules.skills import trained
from engine.rules.stealth import after_move, reveal
from engine.rules.tumbling import Tumble
from engine.state.effects import Cond, add_effect, drop_effect
from engine.state.fight import C, FightState, Mover, Situation
from engine.state.state import CombatantState

_PRONE = Cond.PRONE.value


def walk(
    fight: FightState,
    actor: CombatantState,
    cells: tuple[Cell, ...],
    kind: MoveKind,
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
    creatures' Stealth is re-judged (:func:`engine.rules.stealth.after_move`).
    """
    if not cells:
        return actor.active
    actor.moved_this_turn = True
    trail = [actor.pos]
    moved = False
    for i, cell in enumerate(cells):
        if provokes and not (safe_start and i == 0) and threat_possible(fight, actor):
            if fight.log is not None and len(trail) > 1:
                _moved(fight, actor, kind, trail)
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
                _moved(fight, actor, kind, trail)
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
                    _moved(fight, actor, kind, trail)
                trail = [actor.pos]

            readiness.on_step(fight, actor, flush)
            if not actor.active:  # SRD « Ready »: it falls where it was stopped
                return False
    if fight.log is not None and len(trail) > 1:
        _moved(fight, actor, kind, trail)
    if not actor.active:
        return False
    # (a tumble stopped on its first square did not move: nothing to re-judge)
    if moved and any(c.hidden_from for c in fight.combatants):
        after_move(fight, actor)
    return True


def _moved(fight: FightState, actor: CombatantState, kind: MoveKind, trail: list[Cell]) -> None:
    """Log the squares ``actor`` walked through (the log is kept)."""
    assert fight.log is not None
    rc = fight.gmap.rc
    fight.log.append(Moved(fight.round, actor.id, kind, tuple(rc(c) for c in trail)))


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


@dataclass(slots=True)
class MovePlan:
    """What an accepted move walks (possibly nothing), tumbling or not."""

    path: Path
    tumble: bool = False


def verify_move(gmap: GameMap, s: Situation[C], actor: C, action: MoveAction) -> MovePlan | Reason:
    """What the move ``action`` of ``actor`` walks (possibly nothing), or why it
    is refused: the one judgement of the engine (:func:`do_move`) and of the
    menu's move, move-then-attack and tumbling options (:mod:`engine.view.options`).

    Toward ``target_id`` it stops once an attack reaches the target
    (:func:`engine.geometry.movement.move_toward`); to ``destination`` it must end there
    (:func:`engine.geometry.movement.path_to_destination`). Both move the actor's whole
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
        if path is None:
            return Reason.UNREACHABLE_DESTINATION
        return MovePlan(path, action.tumble)
    target = s.target(action.target_id)
    if target is None:
        return Reason.MISSING_TARGET
    path = move_toward(
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
    return MovePlan(path, action.tumble)


def do_move(fight: FightState, actor: CombatantState, plan: MovePlan) -> ActionResult:
    """Walk :func:`verify_move`'s path (tumbling or not)."""
    if plan.tumble:
        walk(fight, actor, plan.path.cells, "tumble", tumble=Tumble())
    else:
        walk(fight, actor, plan.path.cells, "move")
    return succeeded("move")


def verify_step(
    gmap: GameMap, s: Situation[C], actor: C, action: FiveFootStepAction
) -> Cell | Reason:
    """The square a 5-foot step of ``actor`` goes to, or why it cannot: the one
    judgement of the engine (:func:`do_step`) and of the menu's step options.

    To ``destination``: an adjacent square :func:`engine.geometry.movement.step_allowed`
    accepts. Toward ``target_id`` (or the nearest active enemy): the step of
    :func:`engine.geometry.movement.step_toward`. Never with a speed of 5 feet or less.
    """
    if actor.speed_ft <= 5:
        return Reason.UNREACHABLE_DESTINATION
    occupied = s.occupied_for(actor)
    if action.destination is not None:
        r, c = action.destination
        if not gmap.in_bounds(r, c):
            return Reason.UNREACHABLE_DESTINATION
        dest = gmap.cell(r, c)
        if not step_allowed(gmap, actor.cell, dest, occupied, actor.space):
            return Reason.UNREACHABLE_DESTINATION
        return dest
    target = s.target(action.target_id) or nearest_enemy(gmap, s, actor)
    if target is None:
        return Reason.MISSING_TARGET
    step, _ = step_toward(
        gmap, actor.cell, target.cell, actor.attacks, occupied, actor.space, target.space
    )
    return Reason.UNREACHABLE_DESTINATION if step is None else step


def do_step(fight: FightState, actor: CombatantState, dest: Cell) -> ActionResult:
    """Step to :func:`verify_step`'s square (it provokes nothing)."""
    walk(fight, actor, (dest,), "step", provokes=False)
    return succeeded("5foot_step")


def nearest_enemy(gmap: GameMap, s: Situation[C], actor: C) -> C | None:
    """The active enemy closest to ``actor`` (5-10-5, between spaces; ties: the
    first in deployment order)."""
    best: int | None = None
    found: C | None = None
    for c in s.combatants:
        if c.active and c.side != actor.side:
            d = distance(gmap, actor, c)
            if best is None or d < best:
                best, found = d, c
    return found


def distance(gmap: GameMap, a: Mover, b: Mover) -> int:
    """Distance in squares between two creatures' spaces (5-10-5)."""
    if a.space != 1 or b.space != 1:
        return body_distance_squares(gmap, a.cell, a.space, b.cell, b.space)
    w = gmap.width
    dr = abs(a.cell // w - b.cell // w)
    dc = abs(a.cell % w - b.cell % w)
    return max(dr, dc) + min(dr, dc) // 2


@dataclass(slots=True)
class ChargePlan:
    """What an accepted charge does: walk ``path``, then attack ``target_id``
    with ``attack`` at +2."""

    target_id: str
    path: Path
    attack: AttackProfile


def charge_line(
    gmap: GameMap, s: Situation[C], actor: C, target_id: str | None, weapon_id: str | None = None
) -> ChargeResult:
    """Whether ``actor`` may charge ``target_id`` (with the melee attack
    ``weapon_id``, or the first that can), along which line and with which
    attack, or why not: the one judgement of the engine (:func:`verify_charge`)
    and of the Observation (:meth:`~engine.view.observation.Observation.charge`,
    which the policies read). The line is :func:`engine.geometry.movement.charge_path`'s.
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


def verify_charge(
    gmap: GameMap, s: Situation[C], actor: C, action: ChargeAction
) -> ChargePlan | Reason:
    """:func:`charge_line` for ``action``, as a plan (:func:`do_charge`) or the
    reason it is refused (the menu's charge options)."""
    res = charge_line(gmap, s, actor, action.target_id, action.weapon_id)
    if res.path is None or res.attack is None:
        return res.reason or Reason.NO_CHARGE_PATH
    return ChargePlan(action.target_id or "", res.path, res.attack)


def do_charge(fight: FightState, actor: CombatantState, plan: ChargePlan) -> ActionResult:
    """Walk :func:`verify_charge`'s line, then attack at +2."""
    target = fight.by_id[plan.target_id]
    reveal(fight, actor, "charge")  # SRD « Stealth »: charging breaks it
    if not walk(fight, actor, plan.path.cells, "charge"):
        return succeeded("charge")  # fell to an attack of opportunity
    add_effect(actor, CHARGE_EFFECT)  # −2 AC until its next turn
    if target.active:
        resolve_swing(fight, actor, target, plan.attack, charge=True)
    return succeeded("charge")


def verify_run(gmap: GameMap, s: Situation[C], actor: C, action: RunAction) -> Path | Reason:
    """What a run of ``actor`` walks (:func:`engine.geometry.movement.run_path`: a
    straight line at 4× speed), or why it cannot: the one judgement of the
    engine (:func:`do_run`) and of the menu's run options. To ``destination``
    the run must end there."""
    occupied = s.occupied_for(actor)
    hostile = s.hostile_for(actor)
    if action.destination is not None:
        r, c = action.destination
        if not gmap.in_bounds(r, c):
            return Reason.UNREACHABLE_DESTINATION
        dest = gmap.cell(r, c)
        path = run_path(
            gmap,
            actor.cell,
            dest,
            actor.speed_ft,
            occupied=occupied,
            hostile=hostile,
            k=actor.space,
        )
        if not path.cells or path.cells[-1] != dest:
            return Reason.UNREACHABLE_DESTINATION
        return path
    target = s.target(action.target_id)
    if target is None:
        return Reason.MISSING_TARGET
    return run_path(
        gmap,
        actor.cell,
        target.cell,
        actor.speed_ft,
        occupied=occupied,
        hostile=hostile,
        k=actor.space,
    )


def do_run(fight: FightState, actor: CombatantState, path: Path) -> ActionResult:
    """Run along :func:`verify_run`'s line, unless too tired to (SRD « Run »:
    :func:`engine.rules.readiness.run_endurance`)."""
    refused = readiness.run_endurance(fight, actor)
    if refused is not None:
        return refused
    add_effect(actor, RUN_EFFECT)  # a run that moves nowhere still counts (SRD: it ran)
    reveal(fight, actor, "run")  # SRD « Stealth »: running breaks it
    walk(fight, actor, path.cells, "run")
    return succeeded("run")


def verify_withdraw(
    gmap: GameMap, s: Situation[C], actor: C, action: WithdrawAction
) -> Path | Reason:
    """What a withdraw of ``actor`` walks (:func:`engine.geometry.movement.withdraw_path`,
    possibly nothing; it is never refused): the one judgement of the engine
    (:func:`do_withdraw`) and of the menu's withdraw option.

    Restricted withdraw (SRD « Withdraw »): a creature limited to one action
    (disabled, staggered, or anyone in the surprise round) withdraws as a
    standard action, up to its (halved) speed instead of 2×.
    """
    return withdraw_path(
        gmap,
        actor.cell,
        s.hostile_cells(actor),
        actor.speed_ft,
        s.occupied_for(actor),
        restricted=actor.staggered or s.round == 0,
        k=actor.space,
    )


def do_withdraw(fight: FightState, actor: CombatantState, path: Path) -> ActionResult:
    """Walk :func:`verify_withdraw`'s path; its starting square is not
    threatened (SRD « Withdraw »)."""
    walk(fight, actor, path.cells, "withdraw", safe_start=True)
    return succeeded("withdraw")


def do_drop_prone(fight: FightState, actor: CombatantState, plan: DropProneAction) -> ActionResult:
    """SRD « Drop Prone »: a free action."""
    if actor.effects.cond & _PRONE:
        return ActionResult("drop_prone", False, Reason.ALREADY_PRONE)
    add_effect(actor, PRONE_EFFECT)
    if fight.log is not None:
        fight.log.append(Posture(fight.round, actor.id, True))
    return succeeded("drop_prone")


def do_stand_up(fight: FightState, actor: CombatantState, plan: StandUpAction) -> ActionResult:
    """SRD « Stand Up »: a move action that provokes attacks of opportunity."""
    if not actor.effects.cond & _PRONE:
        return ActionResult("stand_up", False, Reason.NOT_PRONE)
    # SRD: standing up provokes; the attacks land while it is still prone
    if threat_possible(fight, actor, movement=False):
        provoke(fight, actor, actor.pos, movement=False, why=STANDS)
    if actor.active:
        drop_effect(actor, PRONE_EFFECT.source)
        if fight.log is not None:
            fight.log.append(Posture(fight.round, actor.id, False))
    return succeeded("stand_up")
