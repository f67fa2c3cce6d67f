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

>>> from engine.actions import AttackAction, FullAttackAction, MoveAction
>>> kept, _ = filter_plan((AttackAction(), FullAttackAction(), MoveAction()))
>>> [a.kind for a, k in zip((AttackAction(), FullAttackAction(), MoveAction()), kept) if k]
['attack', 'move']
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import (
    MOVEMENT_KINDS,
    SLOT_OF_KIND,
    Action,
    ActionResult,
    Reason,
    Slot,
)


def filter_plan(
    actions: Sequence[Action],
    *,
    staggered: bool = False,
    surprise: bool = False,
    swift_available: bool = True,
) -> tuple[list[bool], list[ActionResult | None]]:
    """Which actions of a plan fit the budget.

    ``surprise``: the surprise round (SRD « Surprise »): one standard *or* move
    action, free actions kept, swift and full-round actions dropped with
    ``downgraded:surprise`` (the caller turns a full attack into one attack
    first).

    ``swift_available``: false when an immediate action taken since the last
    turn already used this turn's swift action.

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
        slot = SLOT_OF_KIND[kind]
        if kind == "immediate":
            slot = Slot.SWIFT  # SRD « Immediate Actions »: counts as the turn's swift action
        if staggered and kind == "withdraw":
            slot = Slot.STANDARD  # restricted withdraw (SRD): a standard action at 1× speed
        if staggered:
            if slot is Slot.FULL_ROUND or (surprise and slot is Slot.SWIFT):
                drop(action, single_reason)
                continue
            if slot in (Slot.STANDARD, Slot.MOVE) and single_used:
                drop(action, single_reason)
                continue
        if kind in MOVEMENT_KINDS and (stepped or (kind == "5foot_step" and moved)):
            drop(action, Reason.DOWNGRADED_ACTION_ECONOMY)
            continue
        if slot is Slot.STANDARD:
            if not standard:
                drop(action, Reason.DOWNGRADED_ACTION_ECONOMY)
                continue
            standard = False
        elif slot is Slot.MOVE:
            if move:
                move = False
            elif standard:
                standard = False
            else:
                drop(action, Reason.DOWNGRADED_ACTION_ECONOMY)
                continue
        elif slot is Slot.FULL_ROUND:
            if not (standard and move):
                drop(action, Reason.DOWNGRADED_ACTION_ECONOMY)
                continue
            standard = move = False
        elif slot is Slot.SWIFT:
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
        if slot in (Slot.STANDARD, Slot.MOVE):
            single_used = True
        if kind == "5foot_step":
            stepped = True
        elif kind in MOVEMENT_KINDS:
            moved = True
        kept.append(True)
        results.append(None)
    return kept, results
