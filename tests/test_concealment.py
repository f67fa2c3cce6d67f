"""Concealment and sight (SRD « Concealment », « Invisibility », « Blinded »):
miss chance rolled on d100 after the hit, the blinded attacker, the invisible
attacker's +2 and the target's lost Dex bonus, no AoO against total concealment.

Conditions come from the combatant file (`conditions`, for the whole fight).
"""

from __future__ import annotations

import math

from builders import battle, make_map, make_profile, messages, state

from engine.content.actions import AttackAction, MoveAction
from engine.core.rng import SeededRng
from engine.rules.attack import miss_chance
from engine.state.effects import Cond, Effect, add_effect, drop_effect

ROW = make_map(["........", "........"])
AC = {"total": 14, "touch": 12, "flat_footed": 12}


def _duel(attacker_conditions=(), target_conditions=(), dice=None):
    me = state("me", "A", make_profile(conditions=list(attacker_conditions)), ROW, (0, 0))
    foe = state(
        "foe", "B", make_profile(ac=AC, hp_max=30, conditions=list(target_conditions)),
        ROW, (0, 1), 1,
    )  # fmt: skip
    return battle(ROW, [me, foe], dice), me, foe


def test_a_blurred_target_makes_a_hit_miss_on_d100_at_most_20():
    b, me, foe = _duel(
        target_conditions=["blurred"],
        dice={"attack": [15, 15], "miss_chance": [20, 21], "damage": [4]},
    )
    b.dispatch(me, AttackAction(target_id="foe"))
    assert messages(b)[-1] == (
        "sword vs foe d20=15+0=15 CA 14 -> TOUCHÉ, mais camouflage : d100=20 ≤ 20 % -> RATÉ"
    )
    assert foe.hp == 30
    b.dispatch(me, AttackAction(target_id="foe"))  # d100 = 21: the hit lands
    assert foe.hp == 26


def test_miss_chances_by_condition_and_the_blinded_attacker():
    def chance(att, tgt):
        _, me, foe = _duel(att, tgt)
        return miss_chance(me, foe)

    assert chance((), ()) == 0
    assert chance((), ["blurred"]) == 20
    assert chance((), ["displaced"]) == 50
    assert chance((), ["invisible", "blurred"]) == 50
    assert chance(["blinded"], ["blurred"]) == 50  # everyone is totally concealed to it


def test_an_invisible_attacker_gets_2_and_the_target_loses_its_dex_bonus():
    b, me, _foe = _duel(attacker_conditions=["invisible"], dice={"attack": [10], "damage": [3]})
    b.dispatch(me, AttackAction(target_id="foe"))
    # AC 14 − 2 (Dex, from flat-footed 12) = 12; 10 + 2 = 12 hits
    assert messages(b)[-1].startswith("sword vs foe d20=10+2=12 CA 12 (sans Dex -2) -> TOUCHÉ")


def test_no_attack_of_opportunity_against_total_concealment_or_from_a_blinded_guard():
    for guard_cond, mover_cond in (((), ["invisible"]), (["blinded"], ())):
        guard = state("guard", "B", make_profile(conditions=list(guard_cond)), ROW, (1, 1))
        mover = state("mover", "A", make_profile(conditions=list(mover_cond)), ROW, (0, 0), 1)
        b = battle(ROW, [guard, mover])
        b.dispatch(mover, MoveAction(destination=(0, 6)))
        assert messages(b)[0] == (
            "attaque d'opportunité impossible contre mover (quitte une case menacée) : "
            "camouflage total"
        )
        assert guard.aoo_used == 0


def test_blur_miss_rate_matches_the_exact_probability():
    # +30 vs AC 14: hits on anything but a natural 1 (19/20), then 80 % survive the blur
    _, _, foe = _duel(target_conditions=["blurred"])
    strong = state("me", "A", make_profile(attacks=[
        {"name": "sword", "kind": "melee", "attack_bonus": 30,
         "damage": [{"formula": "1d4", "types": ["slashing"]}]}]), ROW, (0, 0))  # fmt: skip
    n = 6000
    hits = 0
    for seed in range(n):
        foe.hp, foe.dead = 30, False
        foe.refresh()
        b = battle(ROW, [strong, foe], SeededRng(seed), record=False)
        b.dispatch(strong, AttackAction(target_id="foe"))
        hits += foe.hp < 30
    p = 19 / 20 * 0.8
    assert abs(hits / n - p) <= 3 * math.sqrt(p * (1 - p) / n), hits / n


def test_the_files_conditions_are_permanent_effects_and_the_rules_read_the_effects():
    _, me, foe = _duel(target_conditions=["displaced", "blurred"])
    assert [e.source for e in foe.effects.items] == ["file:blurred", "file:displaced"]
    assert foe.effects.conditions == Cond.BLURRED | Cond.DISPLACED and miss_chance(me, foe) == 50
    drop_effect(foe, "file:displaced")
    assert miss_chance(me, foe) == 20
    drop_effect(foe, "file:blurred")
    assert miss_chance(me, foe) == 0
    # a condition that does not come from the file counts the same
    add_effect(me, Effect("blindness", cond=Cond.BLINDED))
    assert miss_chance(me, foe) == 50
