"""Fleeing in fear (SRD « Frightened », « Panicked »): the engine plays the turn.

A frightened or panicked creature moves away from the source of its fear at the
start of its turn — a withdraw when threatened, else a double move, one move with
one action —; cornered, a frightened one acts normally and a panicked one cowers.
"""

from __future__ import annotations

from builders import battle, make_map, make_profile, messages, state

from engine.content.actions import TurnPlan
from engine.rules.attack import PRONE_EFFECT
from engine.rules.status import give_condition
from engine.state.conditions import condition_effect
from engine.state.effects import Cond, add_effect
from engine.turn.battle import Battle
from policies import HeuristicPolicy

LONG = make_map(["...................."])


class Unasked:
    """A policy that must not be asked: the engine plays the turn."""

    def decide(self, obs: object) -> TurnPlan:
        raise AssertionError("the fleeing creature's policy was asked")


def _fight(gmap, me_at, lich_at, cond="frightened", *, policy=None, others=(), origin=True):
    me = state("orc", "A", make_profile(name="Orc"), gmap, me_at)
    lich = state("lich", "B", make_profile(name="Lich"), gmap, lich_at, 1)
    b = battle(gmap, [me, lich, *others], policies={"A": policy or Unasked(), "B": Unasked()})
    give_condition(b.fight, me, cond, 5, effect="aura de terreur", origin=lich if origin else None)
    return b, me, lich


def _col(b: Battle, c) -> int:
    return b.gmap.rc(c.pos)[1]


def test_threatened_it_withdraws_without_provoking_from_its_first_square():
    b, me, _lich = _fight(LONG, (0, 1), (0, 0))
    b.take_turn(me)
    assert _col(b, me) == 13  # twice its speed: 12 squares
    assert messages(b)[1:] == [
        "fuit lich : retraite",
        "retraite (0,1)->(0,2)->(0,3)->(0,4)->(0,5)->(0,6)->(0,7)->(0,8)->(0,9)->(0,10)"
        "->(0,11)->(0,12)->(0,13)",
    ]
    assert me.last_results == ()


def test_not_threatened_it_double_moves_away():
    b, me, _lich = _fight(LONG, (0, 3), (0, 0))
    b.take_turn(me)
    assert _col(b, me) == 15 and messages(b)[1] == "fuit lich : double déplacement"


def test_half_speed_halves_the_flight():
    b, me, _lich = _fight(LONG, (0, 3), (0, 0))
    give_condition(b.fight, me, "entangled", 3, effect="toile")
    assert me.speed_ft == 15
    b.take_turn(me)
    assert _col(b, me) == 9  # 2 × 15 feet


def test_with_one_action_it_moves_once():
    b, me, _lich = _fight(LONG, (0, 3), (0, 0))
    give_condition(b.fight, me, "staggered", 3, effect="test")
    b.take_turn(me)
    assert _col(b, me) == 9 and messages(b)[2] == "fuit lich : un déplacement"


def test_nauseated_it_moves_once_and_provokes():
    b, me, _lich = _fight(LONG, (0, 1), (0, 0))
    give_condition(b.fight, me, "nauseated", 3, effect="test")
    b.fight.rng = type(b.fight.rng)({"attack": [1]})  # the lich's attack of opportunity
    b.take_turn(me)
    lines = messages(b)
    assert lines[2] == "fuit lich : un déplacement"
    assert lines[3] == "attaque d'opportunité contre orc (quitte une case menacée)"
    assert _col(b, me) == 7


def test_prone_it_stands_up_then_moves():
    b, me, _lich = _fight(LONG, (0, 3), (0, 0))
    add_effect(me, PRONE_EFFECT)
    b.take_turn(me)
    assert not me.effects.cond & Cond.PRONE.value and _col(b, me) == 9
    assert messages(b)[1:3] == ["fuit lich : se relève puis un déplacement", "se relève"]


def test_it_flees_the_nearest_source_or_without_one_the_nearest_enemy():
    gmap = make_map(["...................."])
    far = state("far", "B", make_profile(name="Far"), gmap, (0, 19), 2)
    b, me, _lich = _fight(gmap, (0, 10), (0, 6), others=(far,))
    # two fear effects of two sources (the far one first)
    add_effect(me, condition_effect("frightened", 5, source="aura:far", origin="far"))
    b.take_turn(me)
    # away from the nearest, as long as it does not come closer to the other
    assert messages(b)[-2] == "fuit lich : double déplacement" and _col(b, me) == 12
    b, me, _lich = _fight(LONG, (0, 3), (0, 0), origin=False)
    b.take_turn(me)
    assert messages(b)[1] == "fuit lich : double déplacement"


def test_cornered_a_frightened_creature_fights():
    row = make_map(["..."])
    b, me, _lich = _fight(row, (0, 0), (0, 1), policy=HeuristicPolicy())
    b.fight.rng = type(b.fight.rng)({"attack": [1]})
    b.take_turn(me)
    lines = messages(b)
    assert lines[1] == "fuit lich : acculé, ne peut pas s'éloigner"
    assert lines[2].startswith("sword vs lich")


def test_unable_to_move_it_is_cornered_too():
    b, me, _lich = _fight(LONG, (0, 1), (0, 0), policy=HeuristicPolicy())
    give_condition(b.fight, me, "grappled", 3, effect="test")
    b.fight.rng = type(b.fight.rng)({"attack": [1]})
    b.take_turn(me)
    assert messages(b)[2] == "fuit lich : acculé, ne peut pas s'éloigner"
    assert _col(b, me) == 1


def test_cornered_a_panicked_creature_cowers_until_its_next_turn():
    row = make_map(["..."])
    b, me, _lich = _fight(row, (0, 0), (0, 1), "panicked")
    b.take_turn(me)
    assert messages(b)[1:] == [
        "fuit lich : acculé, ne peut pas s'éloigner",
        "devient recroquevillé (1 round) (panique)",
    ]
    assert me.effects.cond & Cond.COWERING.value
    b.take_turn(me)  # cowering ends as the turn starts; still cornered, it cowers again
    assert messages(b)[-3:] == [
        "n'est plus recroquevillé",
        "fuit lich : acculé, ne peut pas s'éloigner",
        "devient recroquevillé (1 round) (panique)",
    ]
