"""The one table of actions: every kind, its class, its place in the turn's
budget and, for the kinds the engine resolves, how it is judged and done.

:data:`ACTIONS` has one :class:`ActionDef` per kind, in the order of the
:data:`~engine.content.actions.Action` union. Everything else that lists kinds is
derived from it: :data:`KINDS`, :data:`SLOT_OF_KIND`, :data:`MOVEMENT_KINDS`,
:data:`IMPLEMENTED_KINDS`, the budget filter (:mod:`engine.rules.economy`) and the
loop's dispatch (:meth:`engine.turn.battle.Battle.dispatch`: a lookup by kind, then
``verify``, then ``do``).

``verify(gmap, situation, actor, action) -> plan | Reason`` reads only the
:class:`~engine.state.fight.Situation`, so the legal-options menu
(:mod:`engine.view.options`) asks the same function on the Observation and offers
what it accepts; ``do(fight, actor, plan) -> ActionResult`` does the plan on the
:class:`~engine.state.fight.FightState` without judging it again (pokerkit's
``verify_``/do). A kind whose rule has nothing to judge before it is done
(total defense, stand up…) is verified by :func:`accept`, whose plan is the
action itself; the checks that need the engine's state (already prone, the
swift action spent) stay in its ``do``. Kinds without ``verify`` are classified
in the budget and answered ``unsupported_kind``.

>>> ACTIONS["charge"].slot, ACTIONS["charge"].moves
(<Slot.FULL_ROUND: 'full_round'>, True)
>>> ACTIONS["withdraw"].one_action_slot
<Slot.STANDARD: 'standard'>
>>> "cast_spell" in KINDS, "cast_spell" in IMPLEMENTED_KINDS, "maneuver" in IMPLEMENTED_KINDS
(True, True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from engine.content.actions import (
    Action,
    ActionResult,
    ActivatePowerAttackAction,
    AidAnotherAction,
    AttackAction,
    CastSpellAction,
    ChannelEnergyAction,
    ChargeAction,
    CoupDeGraceAction,
    DeedAction,
    DelayAction,
    DropProneAction,
    EscapeAction,
    FightDefensivelyAction,
    FiveFootStepAction,
    FreeAction,
    FullAttackAction,
    FullRoundAction,
    HexAction,
    HideAction,
    ImmediateAction,
    InspireCourageAction,
    ManeuverAction,
    MoveAction,
    ReadyAction,
    Reason,
    RepairWeaponAction,
    RetrieveWeaponAction,
    RunAction,
    Slot,
    SpellCombatAction,
    StandUpAction,
    SwiftAction,
    TotalDefenseAction,
    WaitAction,
    WithdrawAction,
    succeeded,
)
from engine.content.maps import GameMap
from engine.rules.casting import do_cast_spell, verify_cast_spell
from engine.rules.coup_de_grace import do_coup_de_grace, verify_coup_de_grace
from engine.rules.endings import do_escape, verify_escape
from engine.rules.moves import (
    do_charge,
    do_drop_prone,
    do_move,
    do_run,
    do_stand_up,
    do_step,
    do_withdraw,
    verify_charge,
    verify_move,
    verify_run,
    verify_step,
    verify_withdraw,
)
from engine.rules.readiness import do_aid, do_immediate, do_ready, verify_aid, verify_ready
from engine.rules.stealth import do_hide, hide_refused, verify_hide
from engine.rules.strikes import do_attack, do_fight_defensively, do_total_defense, verify_attack
from engine.rules.weapons import do_repair, verify_repair
from engine.state.fight import C, FightState, Situation
from engine.state.state import CombatantState

A = TypeVar("A", bound=Action)
P = TypeVar("P")

#: ``verify(gmap, situation, actor, action)``: the plan, or why the action is refused
Verify = Callable[[GameMap, Situation[Any], Any, A], P | Reason]
#: ``do(fight, actor, plan)``: the plan done on the fight
Do = Callable[[FightState, CombatantState, P], ActionResult]


@dataclass(frozen=True, slots=True)
class ActionDef(Generic[A, P]):
    """One kind of action (a row of :data:`ACTIONS`)."""

    #: its class in the :data:`~engine.content.actions.Action` union (which gives its kind)
    cls: type[A]
    #: its slot in the turn's budget (CRB « Actions in Combat »)
    slot: Slot
    #: judges it on a Situation: its plan, or the reason it is refused
    verify: Verify[A, P] | None = None
    #: does the plan; ``None`` with a ``verify``: the loop does it (``delay``)
    do: Do[P] | None = None
    #: it moves the actor: exclusive with a 5-foot step, refused while prone
    moves: bool = False
    #: its slot for a creature limited to one action (disabled, staggered, the
    #: surprise round), when not :attr:`slot`
    limited: Slot | None = None
    #: called when ``verify`` refuses it in the fight (what a refusal does)
    refused: Callable[[FightState, CombatantState], None] | None = None
    #: its ``kind`` (from :attr:`cls`)
    kind: str = field(init=False)
    #: :attr:`limited`, else :attr:`slot`
    one_action_slot: Slot = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", self.cls().kind)
        object.__setattr__(self, "one_action_slot", self.limited or self.slot)


def accept(gmap: GameMap, s: Situation[Any], actor: object, action: A) -> A:
    """The ``verify`` of a kind with nothing to judge beforehand: always a plan,
    the action itself."""
    return action


def verify_delay(
    gmap: GameMap, s: Situation[C], actor: C, action: DelayAction
) -> DelayAction | Reason:
    """SRD « Delay »: once per round (``already_delayed``). Only as the first
    action of a turn: the loop, which re-orders the round, checks that."""
    return Reason.ALREADY_DELAYED if actor.delayed else action


def do_wait(fight: FightState, actor: CombatantState, plan: WaitAction) -> ActionResult:
    """Do nothing (always succeeds)."""
    return succeeded("wait")


STANDARD, MOVE, SWIFT, FULL_ROUND, FREE = (
    Slot.STANDARD,
    Slot.MOVE,
    Slot.SWIFT,
    Slot.FULL_ROUND,
    Slot.FREE,
)

#: Every kind (inventory §3.10), in the order of the Action union. ``cast_spell``'s
#: slot is its spell's casting time (the budget filter asks the caster's
#: :meth:`engine.state.casting.Casting.slot_of`); standard here.
#: ``hide`` is a move action (SRD Stealth) and ``fight_defensively`` a free mode
#: declaration for the attacks that follow (the seed's X4 table); an immediate
#: action takes the turn's swift action (SRD « Immediate Actions »); a creature
#: limited to one action withdraws as a standard action (SRD « Withdraw »); an
#: escape's slot is its spell's (standard in the row: *web*; *entangle* a move
#: action, :func:`engine.rules.endings.escape_slot`); see docs/rules.md.
_ROWS: tuple[ActionDef[Any, Any], ...] = (
    ActionDef(AttackAction, STANDARD, verify_attack, do_attack),
    ActionDef(FullAttackAction, FULL_ROUND, verify_attack, do_attack),
    ActionDef(MoveAction, MOVE, verify_move, do_move, moves=True),
    ActionDef(FiveFootStepAction, FREE, verify_step, do_step, moves=True),
    ActionDef(ChargeAction, FULL_ROUND, verify_charge, do_charge, moves=True),
    ActionDef(
        WithdrawAction, FULL_ROUND, verify_withdraw, do_withdraw, moves=True, limited=STANDARD
    ),
    ActionDef(RunAction, FULL_ROUND, verify_run, do_run, moves=True),
    ActionDef(HideAction, MOVE, verify_hide, do_hide, refused=hide_refused),
    ActionDef(ManeuverAction, STANDARD),
    ActionDef(CastSpellAction, STANDARD, verify_cast_spell, do_cast_spell),
    ActionDef(ChannelEnergyAction, STANDARD),
    ActionDef(HexAction, STANDARD),
    ActionDef(DeedAction, SWIFT),
    ActionDef(InspireCourageAction, SWIFT),
    ActionDef(SpellCombatAction, FULL_ROUND),
    ActionDef(DelayAction, STANDARD, verify_delay),
    ActionDef(ReadyAction, STANDARD, verify_ready, do_ready),
    ActionDef(TotalDefenseAction, STANDARD, accept, do_total_defense),
    ActionDef(FightDefensivelyAction, FREE, accept, do_fight_defensively),
    ActionDef(AidAnotherAction, STANDARD, verify_aid, do_aid),
    ActionDef(StandUpAction, MOVE, accept, do_stand_up),
    ActionDef(DropProneAction, FREE, accept, do_drop_prone),
    ActionDef(RetrieveWeaponAction, MOVE),
    ActionDef(RepairWeaponAction, MOVE, verify_repair, do_repair),
    ActionDef(ActivatePowerAttackAction, FREE),
    ActionDef(SwiftAction, SWIFT),
    ActionDef(FreeAction, FREE),
    ActionDef(FullRoundAction, FULL_ROUND),
    ActionDef(WaitAction, FREE, accept, do_wait),
    ActionDef(ImmediateAction, SWIFT, accept, do_immediate),
    ActionDef(CoupDeGraceAction, FULL_ROUND, verify_coup_de_grace, do_coup_de_grace),
    ActionDef(EscapeAction, STANDARD, verify_escape, do_escape),
)

#: kind → its row, in the order of the Action union
ACTIONS: Mapping[str, ActionDef[Any, Any]] = {row.kind: row for row in _ROWS}
#: every kind
KINDS: tuple[str, ...] = tuple(ACTIONS)
#: budget slot of every kind
SLOT_OF_KIND: Mapping[str, Slot] = {row.kind: row.slot for row in _ROWS}
#: kinds that move the actor; at most one of them per turn when a 5-foot step is taken
MOVEMENT_KINDS = frozenset(row.kind for row in _ROWS if row.moves)
#: kinds the engine resolves; every other kind is answered ``unsupported_kind``
IMPLEMENTED_KINDS = frozenset(row.kind for row in _ROWS if row.verify is not None)
