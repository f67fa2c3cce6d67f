"""The legal-options menu: stable ids, and choosing any option is never rejected (the
menu against the engine's own ``verify`` of every kind: ``test_conformance.py``)."""

from __future__ import annotations

import random

from builders import make_map, make_profile, melee, ranged

from engine.content.actions import TurnPlan
from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter

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
