"""Dice sources: the seeded RNG ignores the roll kind; scripted dice are read per kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import battle, make_map, make_profile, melee, state

from engine.content.actions import AttackAction
from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.core.checks import CheckKind
from engine.core.errors import DiceScriptError
from engine.core.rng import ROLL_KINDS, RollKind, ScriptedDice, SeededRng
from engine.rules.skills import SKILL_ABILITY, SKILL_ROLL
from engine.state.encounter import build_encounter
from engine.turn.battle import Battle
from policies import HeuristicPolicy

ROW = make_map(["......"])
DATA = Path(__file__).resolve().parents[1] / "data"


def test_the_seeded_rng_does_not_read_the_kind():
    a, b = SeededRng(11), SeededRng(11)
    kinds = list(RollKind)
    assert [a.die(20, kinds[i % len(kinds)]) for i in range(200)] == [
        b.die(20, "attack") for _ in range(200)
    ]


def test_each_kind_is_read_in_order_whatever_is_rolled_in_between():
    dice = ScriptedDice({"attack": [15, 3], "damage": [4, 2], "stealth": [9]})
    assert dice.die(20, "attack") == 15
    assert dice.die(20, "stealth") == 9  # a roll on another path shifts nothing
    assert (dice.die(8, "damage"), dice.die(20, "attack"), dice.die(8, "damage")) == (4, 3, 2)
    assert dice.remaining == 0
    assert dice.history == [
        ("attack", 20, 15),
        ("stealth", 20, 9),
        ("damage", 8, 4),
        ("attack", 20, 3),
        ("damage", 8, 2),
    ]


def test_unscripted_exhausted_impossible_and_unknown_kinds_fail_loudly():
    dice = ScriptedDice({"attack": [15], "damage": [9]})
    with pytest.raises(DiceScriptError, match=r"no scripted dice for 'save' \(d20; "):
        dice.die(20, "save")
    with pytest.raises(DiceScriptError, match="'damage' die #0 is 9, impossible on a d8"):
        dice.die(8, "damage")
    assert dice.left("damage") == 1  # the refused die stays
    dice.die(20, "attack")
    with pytest.raises(DiceScriptError, match="'attack' dice exhausted after 1"):
        dice.die(20, "attack")
    with pytest.raises(DiceScriptError, match=r"unknown roll kind.*'atack'"):
        ScriptedDice({"atack": [15]})
    with pytest.raises(DiceScriptError, match=r"no scripted dice for 'attack'.*scripted: none"):
        ScriptedDice().die(20, "attack")


def test_a_fallback_rolls_only_the_unscripted_kinds():
    dice = ScriptedDice({"attack": [15]}, fallback=SeededRng(3))
    expected = SeededRng(3)
    assert dice.die(20, "attack") == 15
    assert dice.die(6, "damage") == expected.die(6, "damage")
    assert dice.die(100, "miss_chance") == expected.die(100, "miss_chance")
    with pytest.raises(DiceScriptError, match="'attack' dice exhausted"):
        dice.die(20, "attack")  # a scripted kind never falls back


def test_the_vocabularies_agree():
    assert {k.value for k in CheckKind} <= ROLL_KINDS
    assert set(SKILL_ROLL) <= set(SKILL_ABILITY)
    assert all(SKILL_ROLL[name] == name for name in SKILL_ROLL)


def test_a_scripted_attack_reads_attack_then_damage():
    a = state("a", "A", make_profile(attacks=[melee(dmg="1d8")]), ROW, (0, 0))
    t = state("t", "B", make_profile(), ROW, (0, 1), 1)
    b = battle(ROW, [a, t], {"damage": [6], "attack": [15]})  # key order does not matter
    assert b.dispatch(a, AttackAction(target_id="t")).ok
    assert t.hp == 4 and b.fight.rng.remaining == 0


class _Checking:
    """A seeded RNG that records the kind of every die."""

    def __init__(self, seed: int) -> None:
        self.inner = SeededRng(seed)
        self.kinds: set[str] = set()

    def die(self, sides: int, kind: str) -> int:
        self.kinds.add(kind)
        return self.inner.die(sides, kind)


def test_every_die_of_a_fight_names_a_known_kind():
    gmap = load_map(DATA / "maps/sample_arena.yaml")
    g = load_combatant(DATA / "monsters/goblin.json")
    o = load_combatant(DATA / "monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    h = HeuristicPolicy()
    seen: set[str] = set()
    for seed in range(20):
        rng = _Checking(seed)
        states = enc.fresh_states()
        Battle(enc.gmap, states, enc.sides, rng, {"players": h, "monsters": h}).run()
        seen |= rng.kinds
    assert seen <= ROLL_KINDS
    assert {"initiative", "attack", "damage"} <= seen
