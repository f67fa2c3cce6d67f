"""Tumbling (SRD « Acrobatics »; seed §3.34): a ``move`` with ``tumble: true`` goes at
half speed and tests Acrobatics against each threatening opponent's CMD (+2 per
opponent already tested in the move) instead of provoking. Dice are scripted."""

from __future__ import annotations

import math

from builders import battle, make_map, make_profile, messages, state

from engine.content.actions import MoveAction
from engine.core.rng import SeededRng
from engine.view.options import legal_options
from policies.llm import HIDDEN_KINDS, shown_options
from policies.scripted import ScriptedPolicy, parse_script

ROW = make_map(["........", "........"])
ACRO = {"skills": {"Acrobatics": {"rank": 1}}}  # Acrobatics +1


def _scene(dice, guards=((0, 0),), tumbler=ACRO, **guard):
    t = state("t", "A", make_profile(**tumbler), ROW, (0, 1))
    gs = [
        state(f"g{i + 1}", "B", make_profile(**guard), ROW, at, i + 1)
        for i, at in enumerate(guards)
    ]
    return battle(ROW, [t, *gs], dice), t, gs


def test_a_success_against_the_cmd_avoids_the_attack_of_opportunity():
    b, t, (g,) = _scene({"acrobatics": [10]})  # 10 + 1 = 11 vs CMD 10 + 1 (BAB) = 11
    assert b.dispatch(t, MoveAction(destination=(0, 4), tumble=True)).ok
    assert t.pos == ROW.cell(0, 4) and g.aoo_used == 0
    assert messages(b) == [
        "acrobaties contre g1 d20=10+1=11 vs DMD 11 -> réussite (marge 0) : passe",
        "déplacement acrobatique (0,1)->(0,2)->(0,3)->(0,4)",
    ]


def test_a_failure_stops_the_move_and_that_opponent_strikes():
    b, t, (g,) = _scene({"acrobatics": [9], "attack": [1]})
    assert b.dispatch(t, MoveAction(destination=(0, 4), tumble=True)).ok
    assert t.pos == ROW.cell(0, 1) and g.aoo_used == 1
    assert messages(b) == [
        "acrobaties contre g1 d20=9+1=10 vs DMD 11 -> échec (marge -1) : échoue, s'arrête",
        "attaque d'opportunité contre t (quitte une case menacée)",
        "sword vs t d20=1+0=1 CA 10 -> RATÉ",
    ]


def test_each_further_opponent_adds_2_and_a_beaten_one_is_not_tested_again():
    # g1 and g2 threaten (0,1); g2 also threatens (0,2): tested once only
    b, t, _ = _scene({"acrobatics": [10, 12]}, guards=((0, 0), (1, 1)))
    assert b.dispatch(t, MoveAction(destination=(0, 4), tumble=True)).ok
    assert messages(b)[1] == (
        "acrobaties contre g2 d20=12+1=13 vs DMD 13 -> réussite (marge 0) (+2 autres adversaires)"
        " : passe"
    )
    assert t.pos == ROW.cell(0, 4)


def test_no_natural_20_and_the_files_cmd():
    b, t, _ = _scene({"acrobatics": [20], "attack": [1]}, cmd=22)
    b.dispatch(t, MoveAction(destination=(0, 4), tumble=True))
    assert messages(b)[0].startswith("acrobaties contre g1 d20=20+1=21 vs DMD 22 -> échec")
    assert t.pos == ROW.cell(0, 1)


def test_half_speed_and_untrained_is_refused():
    b, t, _ = _scene({}, guards=((1, 7),))
    res = b.dispatch(t, MoveAction(destination=(0, 5), tumble=True))  # 20 ft > 15 ft
    assert (res.ok, res.reason) == (False, "unreachable_destination")
    b, t, _ = _scene({}, tumbler={"skills": {"Acrobatics": {"rank": 0, "class_skill": True}}})
    res = b.dispatch(t, MoveAction(destination=(0, 3), tumble=True))
    assert (res.kind, res.ok, res.reason) == ("move", False, "untrained_tumble")
    assert t.pos == ROW.cell(0, 1)


def test_menu_offers_tumble_when_trained_and_threatened_hidden_from_the_llm():
    b, t, _ = _scene({}, guards=((0, 0), (1, 7)))
    obs = b.observe(t)
    ids = [o.id for o in legal_options(obs, ROW)]
    assert "tumble:g2" in ids
    assert not [i for i in (o.id for o in shown_options(obs, HIDDEN_KINDS)) if "tumble" in i]
    plan = ScriptedPolicy(parse_script("rules:\n  - do: tumble\n    target: g2\n")).decide(obs)
    assert plan.actions == (MoveAction(target_id="g2", tumble=True),)
    b, t, _ = _scene({}, guards=((0, 6),))  # not threatened: no tumbling offered
    assert not [o for o in legal_options(b.observe(t), ROW) if o.id.startswith("tumble")]
    b, t, _ = _scene({}, guards=((0, 0),), tumbler={})  # untrained
    assert not [o for o in legal_options(b.observe(t), ROW) if o.id.startswith("tumble")]


def test_tumbling_success_rate_matches_the_exact_probability():
    # +1 vs CMD 11: success on 10..20 = 11/20, no natural 1/20 rule
    n = 4000
    passed = 0
    for seed in range(n):
        b, t, _ = _scene(SeededRng(seed))
        b.fight.log = None
        b.dispatch(t, MoveAction(destination=(0, 4), tumble=True))
        passed += t.pos == ROW.cell(0, 4)
    p = 11 / 20
    assert abs(passed / n - p) <= 3 * math.sqrt(p * (1 - p) / n), passed / n


def test_a_hidden_tumbler_stopped_on_its_first_square_rolls_no_stealth():
    b, t, (g,) = _scene({"acrobatics": [9], "attack": [1]})
    blind = state("o", "B", make_profile(conditions=["blinded"]), ROW, (1, 7), 2)
    b.combatants.append(blind)
    t.hidden_from = {"o"}  # a Stealth re-roll would ask for an unscripted die
    b.dispatch(t, MoveAction(destination=(0, 4), tumble=True))
    assert t.pos == ROW.cell(0, 1) and g.aoo_used == 1 and t.hidden_from == {"o"}


FIELD = make_map(["." * 10] * 6)


def _large_scene(guard_at, acrobatics=(20,)):
    """A trained Large tumbler (2×2, natural reach 10 ft) anchored on (2,2), a
    guard at ``guard_at`` and the target g2 on (2,7)."""
    profile = make_profile(name="Ogre", size="Large", hp_max=30, **ACRO)
    t = state("t", "A", profile, FIELD, (2, 2))
    g1 = state("g1", "B", make_profile(), FIELD, guard_at, 1)
    g2 = state("g2", "B", make_profile(), FIELD, (2, 7), 2)
    return battle(FIELD, [t, g1, g2], {"acrobatics": list(acrobatics)}), t


def test_a_large_creatures_tumble_option_is_the_path_the_engine_walks():
    # the menu once planned a path for a one-square creature (15 ft, to (1,5)),
    # while the engine moves the real 2×2 space, whose squares reach g2 from (1,4)
    b, t = _large_scene((2, 1))
    (option,) = [o for o in legal_options(b.observe(t), FIELD) if o.id == "tumble:g2"]
    assert option.path == (FIELD.cell(1, 3), FIELD.cell(1, 4))
    assert option.label == "acrobaties vers g2 (10 pieds, sans provoquer)"
    assert b.dispatch(t, *option.actions).ok
    assert t.pos == option.path[-1]
    assert messages(b)[-1] == "déplacement acrobatique (2,2)->(1,3)->(1,4)"


def test_a_large_creature_threatened_on_a_square_other_than_its_anchor_may_tumble():
    # g1 on (4,4) threatens (3,3), a square of the tumbler's space, not its anchor:
    # leaving provokes (the engine asks for an Acrobatics check), so tumbling is offered
    b, t = _large_scene((4, 4))
    ids = [o.id for o in legal_options(b.observe(t), FIELD)]
    assert "tumble:g2" in ids
    assert b.dispatch(t, MoveAction(target_id="g2", tumble=True)).ok
    assert messages(b)[0].startswith("acrobaties contre g1 d20=20+1=21 vs DMD 11")
