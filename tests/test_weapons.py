"""Weapons in play: firearm misfire and repair (Ultimate Combat « Firearms »), splash
weapons (SRD « Throw Splash Weapon »), and touch attacks with a range increment
treated as ranged attacks (inventory §3.21, §3.22, §3.29, §3.31).
"""

from __future__ import annotations

import math
from typing import Any

from builders import Plan, battle, make_map, make_profile, melee, messages, state

from engine.content.actions import AttackAction, FullAttackAction, RepairWeaponAction, WaitAction
from engine.content.creatures import load_combatant
from engine.core.rng import SeededRng
from engine.rules.attack import PRONE_EFFECT
from engine.rules.weapons import scatter_landing, scatter_squares
from engine.run.schemas import ObservationModel
from engine.state.effects import add_effect
from policies.llm import HIDDEN_KINDS, shown_options
from policies.scripted import ScriptedPolicy, parse_script

OPEN = make_map(["........"] * 5)
AC = {"total": 18, "touch": 10, "flat_footed": 16}


def pistol(**kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": "pistol",
        "kind": "touch",
        "attack_bonus": 0,
        "damage": [{"formula": "1d8", "types": ["piercing"]}],
        "range_increment_ft": 20,
        "firearm": True,
        "crit_mult": 4,
    }
    out.update(kw)
    return out


def flask(**kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": "fire",
        "kind": "ranged",
        "attack_bonus": 0,
        "damage": [{"formula": "1d6", "types": ["fire"]}],
        "range_increment_ft": 10,
        "splash": {"damage": 1, "type": "fire"},
    }
    out.update(kw)
    return out


def _gunner(
    attacks: list[dict[str, Any]], dice: dict[str, list[int]], foe_pos=(2, 3), bab: int = 1
):
    me = state("me", "A", make_profile(attacks=attacks, bab=bab), OPEN, (2, 0))
    foe = state("foe", "B", make_profile(ac=AC, hp_max=30), OPEN, foe_pos, 1)
    return battle(OPEN, [me, foe], dice), me, foe


# -- misfire -----------------------------------------------------------------
def test_a_natural_1_with_a_firearm_misfires_and_breaks_it_without_another_die():
    b, me, foe = _gunner([pistol()], {"attack": [1]})
    res = b.dispatch(me, AttackAction(target_id="foe"))
    assert (res.ok, res.reason) == (True, None)
    assert messages(b) == [
        "pistol vs foe d20=1+0=1 CA 10 (contact) -> RATÉ",
        "ENRAYEMENT : pistol est cassé (inutilisable avant réparation)",
    ]
    assert me.weapon_broken == {"pistol"}
    assert me.attacks == ()
    assert foe.hp == 30
    assert b.fight.rng.remaining == 0


def test_a_natural_1_with_any_other_weapon_breaks_nothing():
    bow = pistol(name="bow", kind="ranged", firearm=False)
    b, me, _foe = _gunner([bow], {"attack": [1]})
    b.dispatch(me, AttackAction(target_id="foe"))
    assert messages(b) == ["bow vs foe d20=1+0=1 CA 18 -> RATÉ"]
    assert me.weapon_broken == frozenset()


def test_a_misfire_loses_the_remaining_shots_of_a_full_attack():
    b, me, _foe = _gunner([pistol()], {"attack": [1]}, bab=6)  # two shots scripted as one die
    res = b.dispatch(me, FullAttackAction(target_id="foe"))
    assert res.ok
    assert len([m for m in messages(b) if m.startswith("pistol vs")]) == 1
    assert b.fight.rng.remaining == 0


def test_a_broken_firearm_cannot_be_chosen_until_repaired():
    dagger = melee("dagger", dmg="1d4")
    b, me, _foe = _gunner([pistol(), dagger], {})
    me.weapon_broken = frozenset({"pistol"})
    res = b.dispatch(me, AttackAction(target_id="foe", weapon_id="pistol"))
    assert (res.ok, res.reason) == (False, "weapon_unavailable")
    res = b.dispatch(me, AttackAction(target_id="foe"))  # the dagger does not reach
    assert (res.ok, res.reason) == (False, "out_of_range")
    b, me, _foe = _gunner([pistol()], {})
    me.weapon_broken = frozenset({"pistol"})
    res = b.dispatch(me, AttackAction(target_id="foe"))
    assert (res.ok, res.reason) == (False, "no_weapon")
    assert b.fight.rng.remaining == 0


def test_repair_weapon_clears_it_and_reports_misuse():
    b, me, _foe = _gunner([pistol(), melee("dagger")], {})
    res = b.dispatch(me, RepairWeaponAction())
    assert (res.ok, res.reason) == (False, "not_broken")
    me.weapon_broken = frozenset({"pistol"})
    res = b.dispatch(me, RepairWeaponAction(weapon_id="dagger"))
    assert (res.ok, res.reason) == (False, "not_broken")
    res = b.dispatch(me, RepairWeaponAction(weapon_id="musket"))
    assert (res.ok, res.reason) == (False, "weapon_unavailable")
    res = b.dispatch(me, RepairWeaponAction(weapon_id="pistol"))
    assert (res.ok, res.reason) == (True, None)
    assert me.weapon_broken == frozenset()
    assert messages(b)[-1] == "répare pistol"
    me.weapon_broken = frozenset({"pistol"})
    assert b.dispatch(me, RepairWeaponAction()).ok  # the first broken weapon
    assert me.weapon_broken == frozenset()


def test_repair_is_a_move_action_a_shot_may_follow_but_not_a_full_attack():
    b, me, foe = _gunner([pistol()], {"attack": [15], "damage": [3]}, bab=6)
    me.weapon_broken = frozenset({"pistol"})
    b._policies = {
        "A": Plan(RepairWeaponAction(weapon_id="pistol"), AttackAction(target_id="foe")),
        "B": Plan(WaitAction()),
    }
    b.take_turn(me)
    assert [(r.kind, r.ok) for r in me.last_results] == [("repair_weapon", True), ("attack", True)]
    assert foe.hp == 27
    me.weapon_broken = frozenset({"pistol"})
    b._policies["A"] = Plan(RepairWeaponAction(), FullAttackAction(target_id="foe"))
    b.take_turn(me)
    assert [(r.kind, r.reason) for r in me.last_results] == [
        ("repair_weapon", None),
        ("full_attack", "downgraded:action_economy"),
    ]


def test_observation_and_menu_show_the_broken_weapon_and_its_repair():
    b, me, _foe = _gunner([pistol(), melee("dagger")], {})
    me.weapon_broken = frozenset({"pistol"})
    obs = b.observe(me)
    assert [a.id for a in obs.actor.attacks] == ["dagger"]
    assert obs.pair("foe").weapon_for is None
    ids = [o.id for o in obs.legal_options]
    assert "repair_weapon:pistol" in ids
    assert not any(i.endswith(":pistol") and not i.startswith("repair") for i in ids)
    data = obs.to_dict()
    ObservationModel.model_validate(data)
    mine = data["combatants"][0]
    assert mine["weapon_broken"] == ["pistol"]
    assert [a["id"] for a in mine["attacks"]] == ["pistol", "dagger"]  # the file's weapons
    assert data["combatants"][1]["weapon_broken"] == []
    # hidden from the small model (cassettes are keyed by prompt), kept for scripts
    assert "repair_weapon" in HIDDEN_KINDS
    assert all(not o.id.startswith("repair") for o in shown_options(obs, HIDDEN_KINDS))
    script = parse_script("rules:\n  - do: repair_weapon\n    weapon: pistol\n")
    plan = ScriptedPolicy(script).decide(obs)
    assert plan.actions == (RepairWeaponAction(weapon_id="pistol"),)
    me.weapon_broken = frozenset()
    assert not any(o.id.startswith("repair") for o in b.observe(me).legal_options)


def test_a_prone_gunner_is_offered_the_repair_too():
    b, me, _foe = _gunner([pistol()], {})
    me.weapon_broken = frozenset({"pistol"})
    add_effect(me, PRONE_EFFECT)
    assert "repair_weapon:pistol" in [o.id for o in b.observe(me).legal_options]


def test_misfire_rate_matches_one_in_twenty():
    n = 4000
    rng = SeededRng(11)
    broken = 0
    for _ in range(n):
        b, me, _foe = _gunner([pistol()], {})
        b.fight.rng = rng
        b.fight.log = None
        b.dispatch(me, AttackAction(target_id="foe"))
        broken += bool(me.weapon_broken)
    p = 1 / 20
    assert abs(broken / n - p) <= 3 * math.sqrt(p * (1 - p) / n)


# -- splash weapons ------------------------------------------------------------
def _splash_fight(extra: list[tuple[str, str, dict[str, Any], tuple[int, int]]], dice, **kw):
    """The alchemist on (2,0) throws at ``foe`` on (2,2) (10 ft: first increment),
    with Precise Shot (no −4 for a friend next to the target)."""
    prof = make_profile(attacks=[flask(**kw)], features=["precise shot"])
    alch = state("alch", "A", prof, OPEN, (2, 0))
    foe = state("foe", "B", make_profile(ac=AC, hp_max=20), OPEN, (2, 2), 1)
    others = [
        state(ident, side, make_profile(**over), OPEN, pos, i + 2)
        for i, (ident, side, over, pos) in enumerate(extra)
    ]
    b = battle(OPEN, [alch, foe, *others], dice)
    return b, alch, foe, {o.id: o for o in others}


def test_direct_hit_is_a_touch_attack_and_splashes_every_creature_within_5_ft():
    extra = [
        ("ally", "B", {}, (1, 3)),  # diagonal neighbour of the target
        ("friend", "A", {}, (3, 2)),  # the thrower's own side is splashed too
        ("far", "B", {}, (2, 4)),  # 10 ft from the target: untouched
        ("dying", "B", {}, (3, 3)),
        ("corpse", "B", {}, (1, 1)),
    ]
    b, alch, foe, o = _splash_fight(extra, {"attack": [15], "damage": [4]})
    o["dying"].hp = -2
    o["corpse"].hp, o["corpse"].dead = -20, True
    o["dying"].refresh()
    o["corpse"].refresh()
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert messages(b) == [
        "fire vs foe d20=15+0=15 CA 10 (contact) -> TOUCHÉ : 4 dégâts (foe 16/20 pv)",
        "éclaboussure sur ally : 1 dégât (ally 9/10 pv)",
        "éclaboussure sur friend : 1 dégât (friend 9/10 pv)",
        "éclaboussure sur dying : 1 dégât (dying -3/10 pv, mourant)",
    ]
    assert foe.hp == 16  # no extra splash on the target
    assert (o["far"].hp, o["corpse"].hp) == (10, -20)
    assert alch.damage_dealt == 4 + 3  # attrition counts the splash
    assert o["ally"].damage_taken == 1
    assert alch.hits == 1


def test_splash_respects_resistance_and_immunity_but_not_damage_reduction():
    extra = [
        ("resist", "B", {"resistances": {"fire": 5}}, (1, 2)),
        ("immune", "B", {"immunities": ["fire"]}, (3, 2)),
        ("dr", "B", {"dr": {"amount": 5, "bypass": "-"}}, (2, 3)),
    ]
    b, alch, _foe, _o = _splash_fight(extra, {"attack": [15], "damage": [4]})
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert messages(b)[1:] == [
        "éclaboussure sur resist : 0 dégât (fire : résistance 5) (resist 10/10 pv)",
        "éclaboussure sur immune : 0 dégât (fire : immunité) (immune 10/10 pv)",
        "éclaboussure sur dr : 1 dégât (dr 9/10 pv)",
    ]


def test_a_critical_multiplies_the_direct_hit_never_the_splash():
    b, alch, foe, o = _splash_fight(
        [("ally", "B", {}, (1, 2))], {"attack": [20], "confirm": [12], "damage": [4, 5]}
    )
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert foe.hp == 20 - 9  # 1d6 fire rolled twice (×2): the flask's own damage
    assert o["ally"].hp == 9
    assert messages(b)[1] == "éclaboussure sur ally : 1 dégât (ally 9/10 pv)"


def test_a_miss_scatters_short_toward_the_thrower_and_splashes_the_landing_area():
    b, alch, _foe, _o = _splash_fight([], {"attack": [2], "scatter": [1]})
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert messages(b) == [
        "fire vs foe d20=2+0=2 CA 10 (contact) -> RATÉ",
        "fire dévie : d8=1 (trop court), 1 case -> tombe en (2,1)",
        "éclaboussure sur alch : 1 dégât (alch 9/10 pv)",
        "éclaboussure sur foe : 1 dégât (foe 19/20 pv)",
    ]
    assert b.fight.rng.remaining == 0


def test_the_scatter_distance_counts_the_increments_of_the_throw():
    # 25 ft with a 10 ft increment: third increment, 3 squares; d8=5: straight beyond
    wide = make_map(["..........."] * 5)
    alch = state("alch", "A", make_profile(attacks=[flask()]), wide, (2, 0))
    foe = state("foe", "B", make_profile(ac=AC), wide, (2, 5), 1)
    b = battle(wide, [alch, foe], {"attack": [3], "scatter": [5]})
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert messages(b)[1:] == ["fire dévie : d8=5, 3 cases -> tombe en (2,8)"]
    assert foe.hp == 10  # 3 squares from the landing square: no splash
    # on the 8-column map the flask stops at the edge, 2 squares away (still no splash)
    alch = state("alch", "A", make_profile(attacks=[flask()]), OPEN, (2, 0))
    foe = state("foe", "B", make_profile(ac=AC), OPEN, (2, 5), 1)
    b = battle(OPEN, [alch, foe], {"attack": [3], "scatter": [5]})
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert messages(b)[1:] == [
        "fire dévie : d8=5, 3 cases -> tombe en (2,7) (arrêtée par un mur ou le bord)"
    ]
    assert foe.hp == 10
    assert [scatter_squares(alch.attacks[0], d) for d in (5, 10, 15, 50)] == [1, 1, 2, 5]


def test_scatter_directions_turn_clockwise_from_the_thrower_and_stop_at_walls():
    gmap = make_map(["......."] * 7)
    centre, west = gmap.cell(3, 3), gmap.cell(3, 0)
    got = [gmap.rc(scatter_landing(gmap, west, centre, d8, 1)) for d8 in range(1, 9)]
    assert got == [(3, 2), (2, 2), (2, 3), (2, 4), (3, 4), (4, 4), (4, 3), (4, 2)]
    # a thrower at a knight's move: direction 1 is the nearest of the eight (north)
    assert gmap.rc(scatter_landing(gmap, gmap.cell(0, 4), centre, 1, 1)) == (2, 3)
    walled = make_map([".....", "..#..", "....."])
    assert walled.rc(scatter_landing(walled, walled.cell(2, 2), walled.cell(0, 2), 1, 2)) == (0, 2)
    assert walled.rc(scatter_landing(walled, walled.cell(0, 0), walled.cell(0, 2), 5, 9)) == (0, 4)


def test_concealment_turns_a_hit_into_a_scatter():
    alch = state("alch", "A", make_profile(attacks=[flask()]), OPEN, (2, 0))
    foe = state("foe", "B", make_profile(ac=AC, conditions=["blurred"]), OPEN, (2, 2), 1)
    b = battle(OPEN, [alch, foe], {"attack": [15], "miss_chance": [10], "scatter": [3]})
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert messages(b)[1:] == [
        "fire dévie : d8=3, 1 case -> tombe en (1,2)",
        "éclaboussure sur foe : 1 dégât (foe 9/10 pv)",
    ]


def test_splash_can_drop_a_creature():
    b, alch, _foe, o = _splash_fight([("weak", "B", {}, (1, 2))], {"attack": [15], "damage": [4]})
    o["weak"].hp = 0
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert messages(b)[-2:] == [
        "éclaboussure sur weak : 1 dégât (weak -1/10 pv, mourant)",
        "tombe, mourant (-1 pv)",
    ]


def test_splash_weapons_are_thrown_five_increments_and_listed_in_the_observation():
    b, alch, _foe, _o = _splash_fight([], {})
    assert alch.attacks[0].max_range_ft == 50
    data = b.observe(alch).to_dict()
    assert data["combatants"][0]["attacks"][0]["splash"] == {"damage": 1, "type": "fire"}
    assert data["combatants"][1]["attacks"][0]["splash"] is None


def test_bystander_splash_rate_matches_the_exact_probability():
    # +0 vs touch AC 10: hit 1/2. A bystander two squares east of the target is
    # splashed only by a miss landing on the target's east side: d8 ∈ {4, 5, 6}.
    n = 4000
    rng = SeededRng(5)
    splashed = 0
    for _ in range(n):
        b, alch, _foe, o = _splash_fight([("by", "B", {}, (2, 4))], {})
        b.fight.rng = rng
        b.fight.log = None
        b.dispatch(alch, AttackAction(target_id="foe"))
        splashed += o["by"].hp < 10
    p = 0.5 * 3 / 8
    assert abs(splashed / n - p) <= 3 * math.sqrt(p * (1 - p) / n)


# -- touch attacks with an increment are ranged attacks (§3.22) ----------------
def test_a_firearm_shot_provokes_from_a_threatened_square_and_a_melee_touch_does_not():
    me = state("me", "A", make_profile(attacks=[pistol()]), OPEN, (2, 0))
    guard = state("guard", "B", make_profile(), OPEN, (2, 1), 1)
    b = battle(OPEN, [me, guard], {"attack": [2, 11], "damage": [1]})
    b.dispatch(me, AttackAction(target_id="guard"))
    assert messages(b)[0] == "attaque d'opportunité contre me (tir depuis une case menacée)"
    touch = melee("grasp", dmg="1d4", kind="touch")
    me = state("me", "A", make_profile(attacks=[touch]), OPEN, (2, 0))
    guard = state("guard", "B", make_profile(), OPEN, (2, 1), 1)
    b = battle(OPEN, [me, guard], {"attack": [2]})
    b.dispatch(me, AttackAction(target_id="guard"))
    assert messages(b) == ["grasp vs guard d20=2+0=2 CA 10 (contact) -> RATÉ"]


def test_a_thrown_touch_attack_takes_prone_penalties_and_soft_cover_like_any_ranged_one():
    dart = pistol(name="dart", firearm=False, range_increment_ft=10)
    me = state("me", "A", make_profile(attacks=[dart], features=["Precise Shot"]), OPEN, (2, 0))
    between = state("between", "A", make_profile(), OPEN, (2, 1), 1)
    foe = state("foe", "B", make_profile(ac=AC), OPEN, (2, 2), 2)
    add_effect(me, PRONE_EFFECT)
    add_effect(foe, PRONE_EFFECT)
    b = battle(OPEN, [me, between, foe], {"attack": [2]})
    b.dispatch(me, AttackAction(target_id="foe"))
    # −4 prone attacker; touch AC 10 + 4 soft cover + 4 prone target (vs ranged)
    assert messages(b) == ["dart vs foe d20=2-4=-2 CA 18 (contact, abri +4, à terre +4) -> RATÉ"]


def test_reference_creatures_load():
    gun = load_combatant("tests/scenarios/creatures/pistolero.json")
    alch = load_combatant("tests/scenarios/creatures/alchemist.json")
    assert gun.attacks[0].spec.firearm
    assert alch.attacks[0].spec.splash is not None


def test_splash_reaches_a_large_creature_whose_nearest_square_is_adjacent():
    # a 2×2 space anchored on (0,3) covers (1,3), diagonal to the target's (2,2)
    extra = [
        ("ogre", "B", {"size": "Large", "hp_max": 30}, (0, 3)),
        ("far", "B", {"size": "Large", "hp_max": 30}, (3, 4)),  # nearest square (3,4): 10 ft
    ]
    b, alch, _foe, o = _splash_fight(extra, {"attack": [15], "damage": [4]})
    b.dispatch(alch, AttackAction(target_id="foe"))
    assert "éclaboussure sur ogre : 1 dégât (ogre 29/30 pv)" in messages(b)
    assert o["far"].hp == 30
