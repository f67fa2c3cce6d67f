"""Aid another (SRD « Aid Another »), scripted dice and one statistical test.

In position to make a melee attack on an opponent engaging a friend: an attack
roll against AC 10 (natural 1 and 20 apply) gives the friend +2 on its next
attack roll against that opponent, or +2 AC against that opponent's next attack,
before the start of the aider's next turn. Aids stack.
"""

from __future__ import annotations

import math

from builders import Plan, battle, make_map, make_profile, messages, ranged, state

from engine.content.actions import AidAnotherAction, AttackAction, Reason
from engine.core.rng import ScriptedDice, SeededRng
from engine.rules.readiness import aid_effect
from engine.state.effects import ATTACK, drop_effect

GRID = make_map(["....", "....", "...."])


def _trio(dice, *, aider=None, hp=10, extra=()):
    """Aider ``a`` on (1,1), ally ``x`` on (0,1), opponent ``o`` on (0,2) (adjacent to both)."""
    a = state("a", "A", aider or make_profile(), GRID, (1, 1))
    x = state("x", "A", make_profile(), GRID, (0, 1), 1)
    o = state("o", "B", make_profile(), GRID, (0, 2), 2, hp=hp)
    return battle(GRID, [a, x, o, *extra], dice), a, x, o


def test_attack_aid_gives_2_on_the_next_attack_against_that_opponent_only_once():
    b, a, x, _o = _trio({"aid_another": [10], "attack": [8, 8], "damage": [3]})
    res = b.dispatch(a, AidAnotherAction(target_id="x", opponent_id="o"))
    assert res.ok
    assert messages(b)[-1] == (
        "aide x contre o (attaque) d20=10+0=10 vs CA 10 -> réussite (marge 0) : +2 en attaque"
    )
    view = b.observe(x).combatant("x").to_dict()
    assert view["aid_attack_bonus"] == {"o": 2} and view["aid_ac_bonus"] == {}
    b.dispatch(x, AttackAction(target_id="o"))
    assert messages(b)[-1] == "sword vs o d20=8+2=10 CA 10 -> TOUCHÉ : 3 dégâts (o 7/10 pv)"
    b.dispatch(x, AttackAction(target_id="o"))  # used up: 8 misses now
    assert messages(b)[-1] == "sword vs o d20=8+0=8 CA 10 -> RATÉ"
    assert x.effects.against == ()


def test_ac_aid_protects_against_that_opponents_next_attack_only():
    other = state("p", "B", make_profile(), GRID, (1, 2), 3)
    b, a, x, o = _trio({"aid_another": [12]}, extra=[other])
    b.dispatch(a, AidAnotherAction(target_id="x", aid_mode="ac", opponent_id="o"))
    assert b.observe(x).combatant("x").to_dict()["aid_ac_bonus"] == {"o": 2}
    # another enemy's attack does not use it
    b.fight.rng = ScriptedDice({"attack": [11], "damage": [1]})  # p hits AC 10 (11 + 1 damage)
    b.dispatch(other, AttackAction(target_id="x"))
    assert messages(b)[-1].startswith("sword vs x d20=11+0=11 CA 10 -> TOUCHÉ")
    b.fight.rng = ScriptedDice({"attack": [11, 11], "damage": [1]})
    b.dispatch(o, AttackAction(target_id="x"))
    assert messages(b)[-1] == "sword vs x d20=11+0=11 CA 12 (aide +2) -> RATÉ"
    b.dispatch(o, AttackAction(target_id="x"))
    assert messages(b)[-1].startswith("sword vs x d20=11+0=11 CA 10 -> TOUCHÉ")


def test_aids_stack_and_end_at_the_aiders_next_turn():
    helper = state("h", "A", make_profile(), GRID, (1, 3), 3)
    b, a, x, _o = _trio({"aid_another": [10, 10]}, extra=[helper])
    b.dispatch(a, AidAnotherAction(target_id="x", opponent_id="o"))
    b.dispatch(helper, AidAnotherAction(target_id="x", opponent_id="o"))
    assert x.effects.against_total(ATTACK, "o") == 4
    b._policies = {"A": Plan(), "B": Plan()}
    b.take_turn(x)  # the beneficiary's turn does not end them (SRD: the aider's does)
    assert x.effects.against_total(ATTACK, "o") == 4
    b.take_turn(a)
    assert x.effects.against_total(ATTACK, "o") == 2
    assert [e.source for e in x.effects.against] == [aid_effect("h", "o", "attack").source]


def test_a_failed_aid_gives_nothing_and_natural_results_apply():
    b, a, x, _o = _trio({"aid_another": [9]})
    b.dispatch(a, AidAnotherAction(target_id="x"))  # the opponent defaults to o
    assert messages(b)[-1] == "aide x contre o (attaque) d20=9+0=9 vs CA 10 -> échec (marge -1)"
    assert x.effects.against == ()
    weak = make_profile(attacks=[{**_sword(), "attack_bonus": -15}])
    b, a, x, _o = _trio({"aid_another": [20]}, aider=weak)
    b.dispatch(a, AidAnotherAction(target_id="x"))
    assert messages(b)[-1].endswith("(naturel 20) : +2 en attaque")
    strong = make_profile(attacks=[{**_sword(), "attack_bonus": 15}])
    b, a, x, _o = _trio({"aid_another": [1]}, aider=strong)
    b.dispatch(a, AidAnotherAction(target_id="x"))
    assert "échec (naturel 1)" in messages(b)[-1] and x.effects.against == ()


def _sword():
    return {
        "name": "sword",
        "kind": "melee",
        "attack_bonus": 0,
        "damage": [{"formula": "1d8", "types": ["slashing"]}],
    }


def test_aid_needs_an_ally_a_melee_weapon_and_the_opponent_in_reach():
    b, a, _x, _o = _trio({})
    assert b.dispatch(a, AidAnotherAction()).reason == Reason.MISSING_TARGET
    assert b.dispatch(a, AidAnotherAction(target_id="o")).reason == Reason.MISSING_TARGET
    assert b.dispatch(a, AidAnotherAction(target_id="a")).reason == Reason.MISSING_TARGET
    named = AidAnotherAction(target_id="x", opponent_id="x")
    assert b.dispatch(a, named).reason == Reason.MISSING_TARGET
    b, a, _x, _o = _trio({}, aider=make_profile(attacks=[ranged()]))
    assert b.dispatch(a, AidAnotherAction(target_id="x")).reason == Reason.NO_WEAPON
    # the seed skipped the position check; the SRD requires it
    b, a, x, _o = _trio({})
    a.pos = GRID.cell(2, 0)
    assert b.dispatch(a, AidAnotherAction(target_id="x")).reason == Reason.OUT_OF_RANGE
    # an opponent not engaged with the ally cannot be aided against
    b, a, x, _o = _trio({})
    x.pos = GRID.cell(2, 3)
    a.pos = GRID.cell(1, 2)
    assert b.dispatch(a, AidAnotherAction(target_id="x")).reason == Reason.MISSING_TARGET


def test_the_menu_offers_aid_per_engaged_opponent_and_mode():
    b, a, _x, _o = _trio({"aid_another": [10, 10]})
    ids = [o.id for o in b.observe(a).legal_options if o.id.startswith("aid_another")]
    assert ids == ["aid_another:x:o:attack", "aid_another:x:o:ac"]
    for opt in b.observe(a).legal_options:
        if opt.id.startswith("aid_another"):
            assert b.dispatch(a, opt.actions[0]).ok


def test_aid_success_rate_matches_the_d20_against_ac_10():
    # +3: natural 7 or more succeeds, 14 faces out of 20
    strong = make_profile(attacks=[{**_sword(), "attack_bonus": 3}])
    b, a, x, _o = _trio({}, aider=strong)
    b.fight.log = None
    b.fight.rng = SeededRng(2024)
    n = 4000
    wins = 0
    for _ in range(n):
        b.dispatch(a, AidAnotherAction(target_id="x"))
        wins += bool(x.effects.against)
        for effect in x.effects.against:
            drop_effect(x, effect.source)
    p = 14 / 20
    assert abs(wins / n - p) <= 3 * math.sqrt(p * (1 - p) / n)


def test_a_script_can_aid_and_ready():
    import pytest

    from engine.core.errors import DataError
    from policies.scripted import ScriptedPolicy, parse_script

    b, a, _x, _o = _trio({})
    script = parse_script("rules:\n  - do: aid_another\n    target: o\n    mode: ac\n")
    plan = ScriptedPolicy(script).decide(b.observe(a))
    assert plan.rationale.startswith("règle 1") and plan.actions[0].aid_mode == "ac"
    script = parse_script("rules:\n  - do: ready\n    trigger: enemy_attacks\n")
    plan = ScriptedPolicy(script).decide(b.observe(a))
    assert plan.actions[0].ready_trigger == "enemy_attacks"
    # an ally that is not there: the rule does not apply, the fallback plays
    script = parse_script("rules:\n  - do: aid_another\n    ally: nobody\n")
    assert ScriptedPolicy(script).decide(b.observe(a)).rationale.startswith("aucune règle")
    with pytest.raises(DataError, match="trigger"):
        parse_script("rules:\n  - do: move\n    trigger: enemy_attacks\n")
