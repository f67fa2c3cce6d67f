"""The Observation contract: JSON form, schema, isolation from the engine."""

from __future__ import annotations

import copy
import json

from builders import make_map, make_profile, melee, ranged, state

from engine.content.actions import TurnPlan, WaitAction
from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.core.rng import SeededRng
from engine.run.runner import play_fight
from engine.run.schemas import ObservationModel, observation_json_schema
from engine.state.encounter import build_encounter
from engine.turn.battle import Battle
from engine.view.observation import Observation
from harness.transcript import lines
from policies import HeuristicPolicy


def quickstart():
    gmap = load_map("data/maps/sample_arena.yaml")
    g = load_combatant("data/monsters/goblin.json")
    o = load_combatant("data/monsters/orc.json")
    return build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])


class Spy:
    """Heuristic that records every observation it gets, as JSON."""

    def __init__(self):
        self.inner = HeuristicPolicy()
        self.dumps = []

    def decide(self, obs):
        self.dumps.append(obs.to_dict())
        return self.inner.decide(obs)


def test_every_observation_matches_the_exported_schema():
    spy = Spy()
    play_fight(quickstart(), 7, {"players": spy, "monsters": spy})
    assert len(spy.dumps) > 5
    for dump in spy.dumps:
        ObservationModel(**json.loads(json.dumps(dump)))
    schema = observation_json_schema()
    assert schema["$id"] == "pf1e-sim/observation@1"
    assert "pairs" in schema["properties"]


def test_mutating_the_observation_never_changes_the_fight():
    class Vandal(HeuristicPolicy):
        def decide(self, obs):
            plan = super().decide(obs)
            d = obs.to_dict()
            d["combatants"][0]["hp"] = -99
            d["pairs"].clear()
            return plan

    enc = quickstart()
    ref = play_fight(enc, 11, heuristic_everywhere(), record=True)
    vandal = Vandal()
    out = play_fight(enc, 11, {"players": vandal, "monsters": vandal}, record=True)
    assert [e[:3] for e in lines(ref.log)] == [e[:3] for e in lines(out.log)]


def heuristic_everywhere():
    h = HeuristicPolicy()
    return {"players": h, "monsters": h}


def test_pairs_report_weapon_range_charge_and_cover():
    gmap = make_map(["..........", "....C.....", ".........."])
    archer = make_profile(attacks=[melee(), ranged(inc=10)])
    a = state("a", "A", archer, gmap, (1, 0), 0)
    t = state("t", "B", make_profile(), gmap, (1, 8), 1)
    b = Battle(
        gmap, [a, t], ("A", "B"), SeededRng(1), {"A": HeuristicPolicy(), "B": HeuristicPolicy()}
    )
    obs = b.observe(a)
    pair = obs.pair("t")
    assert pair.distance_ft == 40
    assert pair.weapon_for == "bow" and pair.range_penalty == -6
    assert pair.cover_bonus == 4  # the pillar
    assert pair.melee_weapon_for is None
    assert pair.can_charge is False and pair.charge_reason == "no_charge_path"  # pillar in line
    assert obs.movement_cost_ft("t") == 35
    d = obs.to_dict()
    assert d["acting_combatant"] == "a" and d["schema"] == "pf1e-sim/observation@1"
    assert d["threatened"][1][7] is True and d["threatened"][1][1] is False


def test_observation_copies_are_independent():
    enc = quickstart()
    states = enc.fresh_states()
    b = Battle(enc.gmap, states, enc.sides, SeededRng(1), heuristic_everywhere())
    obs = b.observe(states[0])
    before = copy.deepcopy(obs.to_dict())
    states[0].hp = 1
    states[0].pos = enc.gmap.cell(3, 3)
    assert obs.to_dict() == before


def test_wait_when_no_enemy_is_active():
    gmap = make_map(["...."])
    a = state("a", "A", make_profile(), gmap, (0, 0), 0)
    t = state("t", "B", make_profile(), gmap, (0, 3), 1, hp=-5)
    b = Battle(gmap, [a, t], ("A", "B"), SeededRng(1), heuristic_everywhere())
    plan = HeuristicPolicy().decide(b.observe(a))
    assert plan == TurnPlan((WaitAction(),), "aucun ennemi actif")


def _fresh(obs):
    """The same observation with empty caches (nothing computed yet)."""
    return Observation(
        gmap=obs._gmap,
        round=obs.round,
        acting_id=obs.acting_id,
        initiative_order=obs.initiative_order,
        combatants=obs.combatants,
        last_turn_results=obs.last_turn_results,
        menu=obs._menu,
        fight_key=obs.fight_key,
        simple_space=obs._simple,
    )


def _assert_threatened_at_matches_the_grid(obs):
    gmap = obs._gmap
    cells = range(gmap.size)
    one_by_one = _fresh(obs)  # the grid is never built: each square on its own
    alone = [one_by_one.threatened_at(cell) for cell in cells]
    assert one_by_one._threatened is None
    grid = obs.threatened
    assert alone == [grid[cell // gmap.width][cell % gmap.width] for cell in cells]
    assert [obs.threatened_at(cell) for cell in cells] == alone  # read from the built grid
    return sum(alone)


def test_threatened_at_is_the_threatened_grid_square():
    seen = []

    class Checker(HeuristicPolicy):
        def decide(self, obs):
            seen.append(_assert_threatened_at_matches_the_grid(obs))
            return super().decide(obs)

    checker = Checker()
    for seed in (1, 2):
        play_fight(quickstart(), seed, {"players": checker, "monsters": checker})
    # a Large creature with a reach weapon (dead zone), walls and a Tiny one (no reach)
    gmap = make_map(["..........", "..#.......", "..#.......", ".........."])
    giant = make_profile(
        size="Large", attacks=[melee("glaive", reach_weapon=True), melee("slam", reach_ft=5)]
    )
    glaive_only = make_profile(size="Large", attacks=[melee("glaive", reach_weapon=True)])
    tiny = make_profile(size="Tiny", attacks=[melee("bite", reach_ft=0)])
    me = state("me", "A", make_profile(), gmap, (3, 0), 0)
    others = [
        state("giant", "B", giant, gmap, (0, 4), 1),
        state("glaive", "B", glaive_only, gmap, (2, 7), 2),
        state("tiny", "B", tiny, gmap, (3, 9), 3),
    ]
    b = Battle(gmap, [me, *others], ("A", "B"), SeededRng(1), heuristic_everywhere())
    seen.append(_assert_threatened_at_matches_the_grid(b.observe(me)))
    assert min(seen) >= 0 and max(seen) > 8  # squares were threatened, not only free ones
