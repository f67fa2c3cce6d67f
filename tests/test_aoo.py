"""Attacks of opportunity and threatened squares, with scripted dice.

SRD « Attacks of Opportunity »: leaving a threatened square and making a ranged
attack from one provoke; one AoO per round (Combat Reflexes: 1 + Dex mod);
several squares threatened by the same opponent count as one opportunity per
round; no AoO against a creature with cover; the 5-foot step and a withdraw's
first square never provoke; a reach weapon threatens a ring, not its dead zone.
"""

from __future__ import annotations

from builders import battle, make_map, make_profile, melee, messages, ranged, state

from engine.content.actions import (
    AttackAction,
    ChargeAction,
    FiveFootStepAction,
    MoveAction,
    Reason,
    WithdrawAction,
)
from engine.geometry.los import cover_bonus
from engine.geometry.reach import threat

OPEN = make_map(["........", "........", "........", "........"])


def _aoo_lines(b):
    return [m for m in messages(b) if m.startswith("attaque d'opportunité")]


def test_leaving_a_threatened_square_provokes_once_per_opponent_per_round():
    guard = state("guard", "B", make_profile(), OPEN, (1, 1))
    mover = state("mover", "A", make_profile(hp_max=20), OPEN, (0, 0), 1)
    # the guard's d20 15 hits AC 10, 1d8 = 3
    b = battle(OPEN, [guard, mover], {"attack": [15], "damage": [3]})
    # (0,0), (0,1) and (0,2) are all threatened by the guard: one AoO only
    assert b.dispatch(mover, MoveAction(destination=(0, 5))).ok
    assert _aoo_lines(b) == ["attaque d'opportunité contre mover (quitte une case menacée)"]
    assert mover.pos == OPEN.cell(0, 5) and mover.hp == 17
    assert guard.aoo_used == 1
    text = messages(b)
    # the trail is written up to the interruption, then the rest of the walk
    assert text[0] == "déplacement (0,0)" or text[0].startswith("attaque d'opportunité")
    assert text[-1].startswith("déplacement (0,0)->(0,1)")


def test_one_aoo_per_round_unless_combat_reflexes():
    def run(features, dex):
        guard = state(
            "guard",
            "B",
            make_profile(
                features=features, abilities={"str_score": 10, "dex_score": dex, "con_score": 10}
            ),
            OPEN,
            (1, 1),
        )
        a = state("a", "A", make_profile(hp_max=20), OPEN, (0, 0), 1)
        c = state("c", "A", make_profile(hp_max=20), OPEN, (2, 0), 2)
        b = battle(OPEN, [guard, a, c], {"attack": [15, 15], "damage": [3, 3]})
        b.dispatch(a, MoveAction(destination=(0, 5)))
        b.dispatch(c, MoveAction(destination=(2, 5)))
        return [m.split(" contre ")[1].split(" ")[0] for m in _aoo_lines(b)], guard

    hit, guard = run([], 14)
    assert hit == ["a"] and guard.profile.aoo_per_round == 1
    hit, guard = run(["Combat Reflexes"], 14)  # 1 + Dex mod (+2) = 3
    assert hit == ["a", "c"] and guard.profile.aoo_per_round == 3
    _, guard = run(["Combat Reflexes"], 6)  # Dex mod −2: still at least 1
    assert guard.profile.aoo_per_round == 1


def test_five_foot_step_never_provokes():
    guard = state("guard", "B", make_profile(), OPEN, (1, 1))
    mover = state("mover", "A", make_profile(), OPEN, (0, 0), 1)
    b = battle(OPEN, [guard, mover])
    assert b.dispatch(mover, FiveFootStepAction(destination=(0, 1))).ok
    assert _aoo_lines(b) == [] and guard.aoo_used == 0


def test_withdraw_start_square_is_safe_but_later_squares_provoke():
    row = make_map([".........."])
    # natural reach 10 ft: the square next to the start is still threatened
    ogre = state("ogre", "B", make_profile(size="Large", attacks=[melee("club")]), row, (0, 5))
    mover = state("mover", "A", make_profile(hp_max=30), row, (0, 4), 1)
    b = battle(row, [ogre, mover], {"attack": [15], "damage": [3]})
    assert b.dispatch(mover, WithdrawAction()).ok
    text = messages(b)
    assert text[0] == "retraite (0,4)->(0,3)"  # leaving (0,4) never provokes
    assert text[1] == "attaque d'opportunité contre mover (quitte une case menacée)"
    assert text[3].startswith("retraite (0,3)->(0,2)")
    assert ogre.aoo_used == 1


def test_withdraw_from_an_ordinary_reach_does_not_provoke():
    row = make_map([".........."])
    guard = state("guard", "B", make_profile(), row, (0, 5))
    mover = state("mover", "A", make_profile(), row, (0, 4), 1)
    b = battle(row, [guard, mover])
    assert b.dispatch(mover, WithdrawAction()).ok
    assert _aoo_lines(b) == [] and mover.pos == row.cell(0, 0)


def test_ranged_attack_from_a_threatened_square_provokes_before_the_shot():
    guard = state("guard", "B", make_profile(), OPEN, (0, 1))
    archer = state(
        "archer", "A", make_profile(hp_max=20, attacks=[ranged("bow", inc=60)]), OPEN, (0, 0), 1
    )
    # the AoO hits (15) for 3, then the shot (12) for 2
    b = battle(OPEN, [guard, archer], {"attack": [15, 12], "damage": [3, 2]})
    assert b.dispatch(archer, AttackAction(target_id="guard", weapon_id="bow")).ok
    text = messages(b)
    assert text[0] == "attaque d'opportunité contre archer (tir depuis une case menacée)"
    assert text[1].startswith("sword vs archer")
    assert text[2].startswith("bow vs guard")


def test_melee_attack_does_not_provoke():
    guard = state("guard", "B", make_profile(), OPEN, (0, 1))
    fighter = state("fighter", "A", make_profile(), OPEN, (0, 0), 1)
    b = battle(OPEN, [guard, fighter], {"attack": [12], "damage": [2]})
    assert b.dispatch(fighter, AttackAction(target_id="guard")).ok
    assert _aoo_lines(b) == []


def test_no_aoo_against_a_creature_with_cover_and_the_budget_is_kept():
    gmap = make_map(["#.......", "........", "........"])
    guard = state("guard", "B", make_profile(), gmap, (1, 0))
    mover = state("mover", "A", make_profile(), gmap, (0, 1), 1)
    assert threat(gmap, guard, mover.pos) is not None
    assert cover_bonus(gmap, guard.pos, mover.pos, melee=True) > 0
    b = battle(gmap, [guard, mover])
    assert b.dispatch(mover, MoveAction(destination=(0, 6))).ok
    assert _aoo_lines(b) == ["attaque d'opportunité impossible contre mover "
                             "(quitte une case menacée) : abri"]  # fmt: skip
    assert guard.aoo_used == 0


def test_a_mover_that_falls_stops_where_it_fell_and_loses_the_rest_of_its_plan():
    guard = state("guard", "B", make_profile(), OPEN, (1, 1))
    mover = state("mover", "A", make_profile(hp_max=2), OPEN, (0, 0), 1)
    b = battle(OPEN, [guard, mover], {"attack": [15], "damage": [8]})
    assert b.dispatch(mover, MoveAction(destination=(0, 5))).ok
    assert mover.pos == OPEN.cell(0, 0) and not mover.active
    assert "tombe, mourant (-6 pv)" in messages(b)


def test_charging_past_an_enemy_provokes():
    gmap = make_map(["........", "........"])
    guard = state("guard", "B", make_profile(), gmap, (1, 1))
    target = state("target", "B", make_profile(), gmap, (0, 6), 1)
    charger = state("charger", "A", make_profile(hp_max=20), gmap, (0, 0), 2)
    b = battle(gmap, [guard, target, charger], {"attack": [15, 12], "damage": [3, 4]})
    assert b.dispatch(charger, ChargeAction(target_id="target")).ok
    text = messages(b)
    assert text[0] == "attaque d'opportunité contre charger (quitte une case menacée)"
    assert text[-1].startswith("sword vs target")


def test_reach_weapon_threatens_a_ring_not_its_dead_zone():
    spear = make_profile(attacks=[melee("longspear", reach_weapon=True)])
    (attack,) = spear.attacks
    assert attack.reach_ft == 10 and attack.dead_zone_ft == 5
    wielder = state("w", "A", spear, OPEN, (1, 1))
    assert threat(OPEN, wielder, OPEN.cell(1, 2)) is None  # adjacent
    assert threat(OPEN, wielder, OPEN.cell(1, 3)) is attack  # 10 ft
    assert threat(OPEN, wielder, OPEN.cell(1, 1)) is None  # its own square: the dead zone too
    big = make_profile(size="Large", attacks=[melee("longspear", reach_weapon=True)])
    assert (big.attacks[0].reach_ft, big.attacks[0].dead_zone_ft) == (20, 10)
    # an ordinary weapon with natural reach 10 (Large) threatens adjacent squares too
    ogre = state("ogre", "A", make_profile(size="Large", attacks=[melee("club")]), OPEN, (1, 0))
    assert threat(OPEN, ogre, OPEN.cell(1, 2)) is not None
    assert threat(OPEN, ogre, OPEN.cell(1, 3)) is not None
    assert threat(OPEN, ogre, OPEN.cell(1, 4)) is None
    # the spear wielder cannot attack an adjacent enemy either
    guard = state("guard", "B", make_profile(), OPEN, (1, 2))
    pike = state("pike", "A", spear, OPEN, (1, 1), 1)
    b = battle(OPEN, [guard, pike])
    assert b.dispatch(pike, AttackAction(target_id="guard")).reason == Reason.OUT_OF_RANGE


def test_leaving_a_reach_ring_provokes_but_leaving_the_dead_zone_does_not():
    spear = make_profile(attacks=[melee("longspear", reach_weapon=True)])
    row = make_map([".........."])
    pike = state("pike", "B", spear, row, (0, 0))
    mover = state("mover", "A", make_profile(hp_max=20), row, (0, 1), 1)
    b = battle(row, [pike, mover], {"attack": [15], "damage": [3]})
    # (0,1) is in the dead zone; (0,2) is in the ring: leaving it provokes
    assert b.dispatch(mover, MoveAction(destination=(0, 5))).ok
    assert _aoo_lines(b) == ["attaque d'opportunité contre mover (quitte une case menacée)"]
    assert "déplacement (0,1)->(0,2)" in messages(b)


def test_tiny_creatures_threaten_nothing():
    rat = make_profile(size="Tiny", attacks=[melee("bite", dmg="1d3")])
    assert rat.attacks[0].reach_ft == 0
    r = state("rat", "A", rat, OPEN, (1, 1))
    assert threat(OPEN, r, OPEN.cell(1, 2)) is None
    assert threat(OPEN, r, OPEN.cell(1, 1)) is None  # not even its own square


def test_the_observation_counts_the_aoo_left_this_round():
    guard = state("guard", "B", make_profile(), OPEN, (1, 1))
    mover = state("mover", "A", make_profile(hp_max=20), OPEN, (0, 0), 1)
    b = battle(OPEN, [guard, mover], {"attack": [15], "damage": [3]})
    assert b.observe(guard).actor.aoo_remaining == 1
    b.dispatch(mover, MoveAction(destination=(0, 5)))
    obs = b.observe(guard)
    assert obs.actor.aoo_remaining == 0
    assert obs.actor.to_dict()["aoo_remaining"] == 0


def test_a_zero_reach_threatens_nothing_not_even_the_square_it_shares():
    # the attacks of opportunity once took a zero-reach creature sharing the
    # mover's square as threatening, while the pre-check and the Observation
    # did not: a creature whose melee reach is 0 threatens nothing (SRD « Tiny,
    # Diminutive, and Fine Creatures »: no natural reach, no threatened square)
    rat = make_profile(size="Tiny", hp_max=20, attacks=[melee("bite", dmg="1d3")])
    holder = make_profile(attacks=[melee("grip", reach_ft=0)])  # Medium, reach 0
    mover = state("rat", "A", rat, OPEN, (1, 1))
    grip = state("grip", "B", holder, OPEN, (1, 1), 1)
    guard = state("guard", "B", make_profile(), OPEN, (0, 1), 2)
    assert threat(OPEN, grip, mover.pos) is None and threat(OPEN, guard, mover.pos) is not None
    b = battle(OPEN, [mover, grip, guard], {"attack": [2]})
    assert b.observe(mover).threatening(mover.pos) == ("guard",)
    assert b.dispatch(mover, MoveAction(destination=(3, 1))).ok
    assert _aoo_lines(b) == ["attaque d'opportunité contre rat (quitte une case menacée)"]
    assert (grip.aoo_used, guard.aoo_used) == (0, 1)
