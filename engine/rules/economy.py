"""The action budget of a turn (CRB « Actions in Combat »), enforced for every policy.

A turn allows one standard action and one move action, or one full-round action,
plus one swift action and free actions. A move action may take the place of the
standard action (so ``(move, move)`` is legal). A 5-foot step is free but
excludes any other movement in the turn. A disabled (staggered) creature gets a
single move *or* standard action and no full-round action, except the
restricted withdraw, a standard action.

An immediate action takes the swift action's place: on its own turn it uses
the turn's swift action (a later swift action is dropped with
``downgraded:immediate_swift``); after an immediate action taken off-turn, the
next turn has no swift action at all (``swift_available=False``).

Filtering is greedy and stable: actions are taken in the policy's order, each
kept while its slot is free; the others are answered with
``downgraded:action_economy`` (or ``downgraded:staggered``).

>>> from engine.content.actions import AttackAction, FullAttackAction, MoveAction
>>> kept, _ = filter_plan((AttackAction(), FullAttackAction(), MoveAction()))
>>> [a.kind for a, k in zip((AttackAction(), FullAttackAction(), MoveAction()), kept) if k]
['attack', 'move']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.content.actions import Action, ActionResult, Reason, Slot
from engine.rules.table import ACTIONS

#: the slots as module constants (an enum attribute is slower to read in the loop)
_STANDARD, _MOVE, _SWIFT, _FULL_ROUND = Slot.STANDARD, Slot.MOVE, Slot.SWIFT, Slot.FULL_ROUND


def filter_plan(
    actions: Sequence[Action],
    *,
    staggered: bool = False,
    surprise: bool = False,
    swift_available: bool = True,
    nauseated: bool = False,
    cast_slot: Callable[[Any], Slot | None] | None = None,
    escape_slot: Callable[[Any], Slot] | None = None,
) -> tuple[list[bool], list[ActionResult | None]]:
    """Which actions of a plan fit the budget.

    ``surprise``: the surprise round (SRD « Surprise »): one standard *or* move
    action, free actions kept, swift and full-round actions dropped with
    ``downgraded:surprise`` (the caller turns a full attack into one attack
    first).

    ``swift_available``: false when an immediate action taken since the last
    turn already used this turn's swift action.

    ``nauseated`` (SRD « Nauseated »): a single move action (not a 5-foot step)
    and nothing else but waiting; the rest is dropped with ``downgraded:nauseated``.

    ``cast_slot`` (a caster's :meth:`engine.state.casting.Casting.slot_of`): the slot
    of each ``cast_spell`` from its spell's casting time (``None``: too long for a
    fight, dropped with ``downgraded:cast_time``); without it, a cast is standard.

    ``escape_slot`` (:func:`engine.rules.endings.escape_slot` for a creature a spell
    holds): the slot of each ``escape``, its spell's (*entangle*: a move action);
    without it, an escape is standard.

    Returns a keep-mask and, for each dropped action, its ``ActionResult``.
    """
    single_reason = Reason.DOWNGRADED_STAGGERED
    if surprise:
        staggered = True
        single_reason = Reason.DOWNGRADED_SURPRISE
    standard = move = True
    swift = swift_available
    #: the swift action went to an immediate action
    swift_by_immediate = not swift_available
    moved = stepped = False
    single_used = False
    kept: list[bool] = []
    results: list[ActionResult | None] = []

    def drop(action: Action, reason: str) -> None:
        kept.append(False)
        results.append(ActionResult(action.kind, False, reason))

    for action in actions:
        kind = action.kind
        row = ACTIONS[kind]
        if nauseated:
            if kind == "wait" or (row.one_action_slot is _MOVE and not single_used):
                single_used = single_used or kind != "wait"
                kept.append(True)
                results.append(None)
            else:
                drop(action, Reason.DOWNGRADED_NAUSEATED)
            continue
        moves = row.moves
        if cast_slot is not None and kind == "cast_spell":  # (only casters pass one)
            cast = cast_slot(action)
            if cast is None:
                drop(action, Reason.DOWNGRADED_CAST_TIME)
                continue
            if staggered and (cast is _FULL_ROUND or (surprise and cast is _SWIFT)):
                drop(action, single_reason)
                continue
            if staggered and cast in (_STANDARD, _MOVE) and single_used:
                drop(action, single_reason)
                continue
            slot = cast
        elif escape_slot is not None and kind == "escape":
            slot = escape_slot(action)
            if staggered and single_used:
                drop(action, single_reason)
                continue
        elif staggered:  # one action: its slot for that (a withdraw is a standard action)
            slot = row.one_action_slot
            if slot is _FULL_ROUND or (surprise and slot is _SWIFT):
                drop(action, single_reason)
                continue
            if slot in (_STANDARD, _MOVE) and single_used:
                drop(action, single_reason)
                continue
        else:
            slot = row.slot
        if moves and (stepped or (kind == "5foot_step" and moved)):
            drop(action, Reason.DOWNGRADED_ACTION_ECONOMY)
            continue
        if slot is _STANDARD:
            if not standard:
                drop(action, Reason.DOWNGRADED_ACTION_ECONOMY)
                continue
            standard = False
        elif slot is _MOVE:
            if move:
                move = False
            elif standard:
                standard = False
            else:
                drop(action, Reason.DOWNGRADED_ACTION_ECONOMY)
                continue
        elif slot is _FULL_ROUND:
            if not (standard and move):
                drop(action, Reason.DOWNGRADED_ACTION_ECONOMY)
                continue
            standard = move = False
        elif slot is _SWIFT:
            if not swift:
                drop(
                    action,
                    Reason.DOWNGRADED_IMMEDIATE_SWIFT
                    if swift_by_immediate
                    else Reason.DOWNGRADED_ACTION_ECONOMY,
                )
                continue
            swift = False
            swift_by_immediate = kind == "immediate"
        if slot in (_STANDARD, _MOVE):
            single_used = True
        if kind == "5foot_step":
            stepped = True
        elif moves:
            moved = True
        kept.append(True)
        results.append(None)
    return kept, results
