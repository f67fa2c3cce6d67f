"""Run endurance (SRD « Run », « Endurance »), scripted dice and one statistical test.

A creature runs for rounds equal to its Constitution score; each further round
needs a Constitution check, DC 10 + 1 per check already made (no natural
results; Endurance +4). A failure stops the run, and running is refused for 10
rounds, the failed one included. A round without running breaks the streak.
Undead and constructs (no Con score) never tire.
"""

from __future__ import annotations

import math

from builders import battle, make_map, make_profile, messages, state

from engine.content.actions import RunAction
from engine.core.rng import SeededRng

ROWS = make_map(["..........", ".........."])


def _runner(con=2, dice=None, **kw):
    abilities = {"str_score": 10, "dex_score": 10, "con_score": con}
    me = state("me", "A", make_profile(abilities=abilities, **kw), ROWS, (0, 0))
    foe = state("foe", "B", make_profile(), ROWS, (1, 9), 1)
    return battle(ROWS, [me, foe], dice), me


def _run(b, me, rnd):
    """Run to the other end of the lane in round ``rnd``."""
    b.fight.round = rnd
    dest = (0, 5) if me.pos == ROWS.cell(0, 0) else (0, 0)
    return b.dispatch(me, RunAction(destination=dest))


def test_beyond_con_rounds_a_check_then_rest_for_ten_rounds():
    b, me = _runner(con=2, dice={"constitution": [14, 14]})
    assert _run(b, me, 1).ok and _run(b, me, 2).ok  # Con 2: two free rounds
    assert len(messages(b)) == 2
    assert _run(b, me, 3).ok
    assert messages(b)[-2] == (
        "continue de courir : Constitution d20=14-4=10 vs DD 10 -> réussite (marge 0)"
    )
    pos = me.pos
    res = _run(b, me, 4)  # DC 11 now
    assert (res.ok, res.reason) == (False, "resting") and me.pos == pos
    assert messages(b)[-1] == (
        "course interrompue : Constitution d20=14-4=10 vs DD 11 -> échec (marge -1)"
    )
    view = b.observe(me).combatant("me").to_dict()
    assert view["run_rest_rounds"] == 10 and view["run_rounds"] == 0
    for rnd in range(5, 14):  # no dice: refused outright
        assert _run(b, me, rnd).reason == "resting"
    assert _run(b, me, 14).ok and me.run_rounds == 1


def test_a_round_without_running_breaks_the_streak():
    b, me = _runner(con=2)
    _run(b, me, 1)
    _run(b, me, 2)
    b.fight.round = 3
    assert b.observe(me).combatant("me").to_dict()["run_rounds"] == 2
    b.fight.round = 4
    assert b.observe(me).combatant("me").to_dict()["run_rounds"] == 0
    assert _run(b, me, 4).ok and me.run_rounds == 1  # no check, no dice


def test_endurance_gives_4_and_the_run_feat_nothing():
    b, me = _runner(con=1, dice={"constitution": [9]}, features=["Endurance"])
    _run(b, me, 1)
    _run(b, me, 2)
    assert messages(b)[-1] == (
        "course interrompue : Constitution d20=9-1=8 vs DD 10 -> échec (marge -2)"
    )
    b, me = _runner(con=1, dice={"constitution": [9]}, features=["Run"])
    _run(b, me, 1)
    _run(b, me, 2)
    assert messages(b)[-1] == (
        "course interrompue : Constitution d20=9-5=4 vs DD 10 -> échec (marge -6)"
    )


def test_no_natural_results_on_the_con_check():
    b, me = _runner(con=1, dice={"constitution": [20]})
    _run(b, me, 1)
    me.run_checks = 16  # DC 26
    assert _run(b, me, 2).reason == "resting"


def test_undead_never_tire():
    profile = make_profile(
        abilities={"str_score": 10, "dex_score": 10, "con_score": None}, creature_type="undead"
    )
    me = state("me", "A", profile, ROWS, (0, 0))
    foe = state("foe", "B", make_profile(), ROWS, (1, 9), 1)
    b = battle(ROWS, [me, foe])
    for rnd in range(1, 31):
        assert _run(b, me, rnd).ok


def test_the_menu_offers_no_run_while_resting():
    far = make_map(["." * 30])
    abilities = {"str_score": 10, "dex_score": 10, "con_score": 1}
    me = state("me", "A", make_profile(abilities=abilities), far, (0, 0))
    foe = state("foe", "B", make_profile(), far, (0, 29), 1)
    b = battle(far, [me, foe], {"constitution": [1]})
    assert "run:foe" in [o.id for o in b.observe(me).legal_options]
    b.fight.round = 1
    assert b.dispatch(me, RunAction(destination=(0, 5))).ok
    b.fight.round = 2
    assert b.dispatch(me, RunAction(destination=(0, 0))).reason == "resting"
    b.fight.round = 3
    assert "run:foe" not in [o.id for o in b.observe(me).legal_options]


def test_con_check_success_rate():
    # Con 10 (+0) on the first check: DC 10, natural 10 or more, 11 faces out of 20
    b, me = _runner(con=10)
    b.fight.log = None
    b.fight.rng = SeededRng(77)
    n = 3000
    kept = 0
    for _ in range(n):
        me.run_rounds, me.run_last_round, me.run_checks, me.run_rest_until = 10, 0, 0, 0
        kept += _run(b, me, 1).ok
    p = 11 / 20
    assert abs(kept / n - p) <= 3 * math.sqrt(p * (1 - p) / n)
