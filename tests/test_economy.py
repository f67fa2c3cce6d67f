"""The action budget: the seed's verbatim examples and the exhaustive classification."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

from engine.content import actions as A
from engine.rules import table as T
from engine.rules.economy import filter_plan


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


def test_the_table_covers_the_action_union_once_per_kind():
    classes = typing.get_args(A.Action)
    kinds = [cls().kind for cls in classes]
    assert len(set(kinds)) == len(kinds)  # each kind is declared by one class
    assert [row.cls for row in T.ACTIONS.values()] == list(classes)
    assert T.KINDS == tuple(kinds) == tuple(T.ACTIONS)
    assert all(row.kind == kind for kind, row in T.ACTIONS.items())
    assert tuple(T.SLOT_OF_KIND) == T.KINDS
    assert set(T.KINDS) > T.IMPLEMENTED_KINDS
    assert {"move", "5foot_step", "charge", "withdraw", "run"} == T.MOVEMENT_KINDS
    for row in T.ACTIONS.values():  # a rule is judged and done, or neither
        assert (row.verify is None) == (row.do is None) or row.kind == "delay"


def _kind_lists(tree: ast.AST, kinds: set[str]) -> list[int]:
    """Lines of the set, list, tuple or dict literals that name three kinds or more."""
    found: list[int] = []
    for node in ast.walk(tree):
        items: list[ast.expr | None] = []
        if isinstance(node, ast.Set | ast.List | ast.Tuple):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = list(node.keys)
        named = {i.value for i in items if isinstance(i, ast.Constant) and i.value in kinds}
        if len(named) >= 3:
            found.append(node.lineno)
    return found


def test_no_module_of_the_engine_lists_kinds_by_hand():
    # the kinds are written in their classes; every list of them comes from the table
    kinds = set(T.KINDS)
    for path in sorted(Path("engine").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert _kind_lists(tree, kinds) == [], path


def test_unimplemented_kinds_answer_unsupported_kind():
    from builders import battle, make_map, make_profile, state

    gmap = make_map(["...."])
    a = state("a", "A", make_profile(), gmap, (0, 0), 0)
    t = state("t", "B", make_profile(), gmap, (0, 3), 1)
    b = battle(gmap, [a, t])
    for cls in typing.get_args(A.Action):
        action = cls()
        if action.kind in T.IMPLEMENTED_KINDS:
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
    assert sorted(schema["discriminator"]["mapping"]) == sorted(T.KINDS)
