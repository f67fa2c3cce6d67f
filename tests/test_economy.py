"""The action budget: the seed's verbatim examples and the exhaustive classification."""

from __future__ import annotations

import typing

import pytest

from engine import actions as A
from engine.economy import filter_plan


def kinds_kept(*acts, staggered=False):
    kept, results = filter_plan(acts, staggered=staggered)
    dropped = [r.reason for r in results if r is not None]
    return tuple(a.kind for a, k in zip(acts, kept, strict=True) if k), dropped


@pytest.mark.parametrize(
    ("plan", "expected"),
    [
        ((A.AttackAction(), A.AttackAction()), ("attack",)),
        ((A.ChargeAction(), A.AttackAction()), ("charge",)),
        ((A.AttackAction(), A.FullAttackAction(), A.MoveAction()), ("attack", "move")),
        ((A.MoveAction(), A.AttackAction(), A.MoveAction()), ("move", "attack")),
        ((A.FullAttackAction(), A.DeedAction(), A.InspireCourageAction()), ("full_attack", "deed")),
        ((A.MoveAction(), A.StandUpAction()), ("move", "stand_up")),
        ((A.MoveAction(), A.MoveAction()), ("move", "move")),
        ((A.MoveAction(), A.MoveAction(), A.MoveAction()), ("move", "move")),
        ((A.FiveFootStepAction(), A.FullAttackAction()), ("5foot_step", "full_attack")),
        ((A.MoveAction(), A.FiveFootStepAction()), ("move",)),
        ((A.FiveFootStepAction(), A.MoveAction()), ("5foot_step",)),
        ((A.FiveFootStepAction(), A.FiveFootStepAction()), ("5foot_step",)),
        ((A.WaitAction(), A.FullAttackAction(), A.WaitAction()), ("wait", "full_attack", "wait")),
    ],
)
def test_seed_examples(plan, expected):
    kept, dropped = kinds_kept(*plan)
    assert kept == expected
    assert set(dropped) <= {"downgraded:action_economy"}
    assert len(dropped) == len(plan) - len(expected)


def test_staggered_keeps_one_move_or_standard_and_no_full_round():
    assert kinds_kept(A.FullAttackAction(), A.AttackAction(), staggered=True) == (
        ("attack",),
        ["downgraded:staggered"],
    )
    assert kinds_kept(A.MoveAction(), A.AttackAction(), staggered=True) == (
        ("move",),
        ["downgraded:staggered"],
    )
    assert kinds_kept(A.FiveFootStepAction(), A.AttackAction(), A.SwiftAction(), staggered=True)[
        0
    ] == (
        "5foot_step",
        "attack",
        "swift",
    )


def test_every_action_kind_has_a_slot_and_a_class():
    kinds = set(typing.get_args(A.ActionKind))
    assert kinds == set(A.SLOT_OF_KIND)
    classes = {cls().kind for cls in typing.get_args(A.Action)}
    assert classes == kinds
    assert kinds >= A.IMPLEMENTED_KINDS


def test_unimplemented_kinds_answer_unsupported_kind():
    from builders import battle, make_map, make_profile, state

    gmap = make_map(["...."])
    a = state("a", "A", make_profile(), gmap, (0, 0), 0)
    t = state("t", "B", make_profile(), gmap, (0, 3), 1)
    b = battle(gmap, [a, t])
    for cls in typing.get_args(A.Action):
        action = cls()
        if action.kind in A.IMPLEMENTED_KINDS:
            continue
        res = b.dispatch(a, action)
        assert (res.kind, res.ok, res.reason) == (action.kind, False, "unsupported_kind")


def test_action_json_round_trip_and_schema():
    act = A.MoveAction(target_id="orc", destination=(2, 3))
    data = A.action_to_dict(act)
    assert data == {"kind": "move", "target_id": "orc", "destination": [2, 3], "tumble": False}
    assert A.parse_action(data) == act
    schema = A.action_json_schema()
    assert schema["$id"] == "pf1e-sim/action@1"
    assert set(schema["discriminator"]["mapping"]) == set(A.SLOT_OF_KIND)
