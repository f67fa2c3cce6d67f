"""The legal-options menu: stable ids, and choosing any option is never rejected."""

from __future__ import annotations

import random

from builders import make_map, make_profile, melee, ranged

from engine.actions import (
    AidAnotherAction,
    ChargeAction,
    HideAction,
    MoveAction,
    Reason,
    TurnPlan,
)
from engine.battle import Battle
from engine.creatures import load_combatant
from engine.encounter import build_encounter
from engine.grid import Path
from engine.maps import load_map
from engine.moves import verify_charge, verify_move
from engine.readiness import AidPlan, verify_aid
from engine.rng import SeededRng
from engine.runner import play_fight
from engine.stealth import verify_hide

#: not a refusal: the actor fell mid-plan (an attack of opportunity during its move)
FELL = "actor_down"
#: not a refusal either: the target fell mid-plan (the menu only lists active
#: enemies), e.g. to an ally's readied action set off during the actor's move
TARGET_FELL = "target_down"


class RandomOption:
    """Picks a random legal option and records any rejected action."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rejected: list[tuple[str, str, str | None]] = []
        self.seen_ids: set[str] = set()

    def decide(self, obs):
        for r in obs.last_turn_results:
            if not r.ok and r.reason not in (FELL, TARGET_FELL):
                self.rejected.append((obs.acting_id, r.kind, r.reason))
        options = obs.legal_options
        ids = [o.id for o in options]
        assert len(ids) == len(set(ids)), ids
        assert ids[-1] == "wait"
        self.seen_ids.update(i.split(":")[0] for i in ids)
        choice = self.rng.choice(options)
        return TurnPlan(choice.actions, choice.id)


def _play_many(enc, fights: int) -> RandomOption:
    policy = RandomOption(7)
    for seed in range(fights):
        result = play_fight(enc, seed, dict.fromkeys(enc.sides, policy), round_cap=30)
        for c in result.combatants:
            for r in c.last_results:
                if not r.ok and r.reason not in (FELL, TARGET_FELL):
                    policy.rejected.append((c.id, r.kind, r.reason))
    return policy


def test_random_legal_options_are_never_rejected_on_the_sample_arena():
    gmap = load_map("data/maps/sample_arena.yaml")
    g = load_combatant("data/monsters/goblin.json")
    o = load_combatant("data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    policy = _play_many(enc, 60)
    assert policy.rejected == []
    assert {"full_attack", "attack", "move", "move_attack", "wait"} <= policy.seen_ids


def test_random_legal_options_are_never_rejected_in_close_quarters():
    gmap = make_map(
        ["..........", "..~~..C...", "..........", "....~.....", ".........."],
        zones=["AA........", "A.........", "..........", ".........B", "........BB"],
        deployment={"west": "A", "east": "B"},
    )
    duelist = make_profile(
        name="Duelist", hp_max=14, bab=6, attacks=[melee(bonus=6, dmg="1d8+2"), ranged(bonus=5)]
    )
    brute = make_profile(name="Brute", hp_max=16, attacks=[melee("axe", bonus=4, dmg="1d12+3")])
    enc = build_encounter(gmap, [("west", [duelist] * 3), ("east", [brute] * 3)])
    policy = _play_many(enc, 60)
    assert policy.rejected == []
    assert {"charge", "withdraw", "step_full_attack"} & policy.seen_ids


def test_option_ids_are_stable_for_the_same_situation():
    gmap = load_map("data/maps/sample_arena.yaml")
    g = load_combatant("data/monsters/goblin.json")
    o = load_combatant("data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g]), ("monsters", [o])])
    first, second = RandomOption(1), RandomOption(1)
    menus: list[list[list[str]]] = [[], []]

    class Spy:
        def __init__(self, inner, sink):
            self.inner, self.sink = inner, sink

        def decide(self, obs):
            self.sink.append([x.id for x in obs.legal_options])
            return self.inner.decide(obs)

    for policy, sink in ((first, menus[0]), (second, menus[1])):
        spy = Spy(policy, sink)
        play_fight(enc, 3, {"players": spy, "monsters": spy})
    assert menus[0] == menus[1] and menus[0]
    assert menus[0][0][0].startswith(("full_attack:", "attack:", "charge:", "move"))


def _big_and_small_tumblers():
    """Large creatures (one with a reach weapon), Tiny ones and Medium ones, all
    trained in Acrobatics, around two pillars of wall."""
    acro = {"skills": {"Acrobatics": {"rank": 3}}}
    gmap = make_map(
        ["." * 12] * 4 + ["...#..#....."] * 2 + ["." * 12] * 4,
        zones=["A" * 12] * 2 + ["." * 12] * 6 + ["B" * 12] * 2,
        deployment={"west": "A", "east": "B"},
    )
    ogre = make_profile(name="Ogre", size="Large", hp_max=40, **acro)
    glaive = melee("glaive", reach_weapon=True)
    pike = make_profile(name="Pike", size="Large", hp_max=30, attacks=[glaive], **acro)
    bite = melee("bite", dmg="1d3", natural=True)
    rat = make_profile(name="Rat", size="Tiny", hp_max=6, attacks=[bite], **acro)
    guard = make_profile(name="Guard", hp_max=25, **acro)
    return build_encounter(gmap, [("west", [ogre, rat, guard]), ("east", [pike, guard, rat])])


def test_the_menus_move_tumble_charge_and_aid_are_what_the_engine_verifies():
    # the menu builds these options with the engine's own verify_x functions:
    # asked on the live fight state, they accept each option with the same path
    enc = _big_and_small_tumblers()
    seen: set[str] = set()
    for seed in range(12):
        policy = RandomOption(seed)
        battle: list[Battle] = []

        class Checker:
            def __init__(self, policy: RandomOption, battle: list[Battle]) -> None:
                self.policy, self.battle = policy, battle

            def decide(self, obs):
                fight = self.battle[0].fight
                me = fight.by_id[obs.acting_id]
                for option in obs.legal_options:
                    first = option.actions[0]
                    if isinstance(first, MoveAction):
                        walked = verify_move(fight.gmap, fight, me, first)
                        assert isinstance(walked, Path) and walked.cells == option.path, option
                    elif isinstance(first, ChargeAction):
                        res = verify_charge(fight.gmap, fight, me, first.target_id, first.weapon_id)
                        assert res.ok and res.path is not None and res.path.cells == option.path
                    elif isinstance(first, HideAction):
                        assert not isinstance(verify_hide(fight.gmap, fight, me), Reason)
                    elif isinstance(first, AidAnotherAction):
                        plan = verify_aid(fight.gmap, fight, me, first.target_id, first.opponent_id)
                        assert isinstance(plan, AidPlan), option
                    else:
                        continue
                    seen.add(option.id.split(":")[0])
                return self.policy.decide(obs)

        sides = dict.fromkeys(enc.sides, Checker(policy, battle))
        battle.append(Battle(enc.gmap, enc.fresh_states(), enc.sides, SeededRng(seed), sides))
        battle[0].run()
        assert policy.rejected == []
    assert {"tumble", "charge", "move", "move_attack", "aid_another", "hide"} <= seen
