"""Total defense, fighting defensively and the surprise round (scripted dice).

SRD « Total Defense » (+4 dodge AC until the next turn, a standard action),
« Fighting Defensively » (−4 on attacks, +2 dodge AC), « Surprise » (aware
combatants get one standard or move action in round 0; the unaware lose it).
"""

from __future__ import annotations

from builders import Plan, battle, make_map, make_profile, messages, state

from engine.content.actions import (
    AttackAction,
    FightDefensivelyAction,
    FullAttackAction,
    MoveAction,
    Reason,
    TotalDefenseAction,
    TurnPlan,
)
from engine.core.checks import BonusType, Modifier
from engine.core.rng import ScriptedDice
from engine.rules.attack import PRONE_EFFECT
from engine.state.effects import (
    ATTACK,
    MELEE_AC,
    RANGED_AC,
    Cond,
    Effect,
    add_effect,
    drop_effect,
    on_ac,
)
from engine.turn.battle import Battle
from policies import HeuristicPolicy

ROW = make_map(["......"])


def test_total_defense_adds_4_ac_until_the_next_turn():
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    b = battle(ROW, [me, foe], {"attack": [13]}, policies={"A": Plan(TotalDefenseAction())})
    b.take_turn(me)
    assert me.effects.conditions == Cond.TOTAL_DEFENSE and messages(b) == ["défense totale (+4 CA)"]
    assert me.effects.total(MELEE_AC) == me.effects.total(RANGED_AC) == 4
    assert b.observe(foe).combatant("me").to_dict()["defense_ac_bonus"] == 4
    # 13 would hit AC 10, not AC 14
    b.dispatch(foe, AttackAction(target_id="me"))
    assert messages(b)[-1] == "sword vs me d20=13+0=13 CA 14 (défense +4) -> RATÉ"
    b._policies = {"A": Plan()}  # the bonus ends when its next turn starts
    b.take_turn(me)
    assert me.effects.cond == 0 and me.effects.total(MELEE_AC) == 0


def test_total_defense_stacks_with_another_dodge_bonus_but_not_with_fighting_defensively():
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    plan = Plan(FightDefensivelyAction(), TotalDefenseAction(), FightDefensivelyAction())
    b = battle(ROW, [me, foe], {"attack": [14, 14], "damage": [3]}, policies={"A": plan})
    b.take_turn(me)
    assert [r.ok for r in me.last_results] == [True, True, True]
    # CRB « Total Defense »: it does not combine with fighting defensively (one
    # « défense » bonus: the best), whatever the order
    assert me.effects.total(MELEE_AC) == 4
    b.dispatch(foe, AttackAction(target_id="me"))
    assert messages(b)[-1].startswith("sword vs me d20=14+0=14 CA 14 (défense +4) -> TOUCHÉ")
    # CRB « Dodge »: dodge bonuses from different sources stack
    add_effect(me, Effect("haste", on_ac(Modifier(1, "rapidité", BonusType.DODGE))))
    b.dispatch(foe, AttackAction(target_id="me"))
    assert messages(b)[-1] == "sword vs me d20=14+0=14 CA 15 (défense +4, rapidité +1) -> RATÉ"
    assert b.observe(foe).combatant("me").to_dict()["defense_ac_bonus"] == 5


def test_total_defense_is_a_standard_action():
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    plan = Plan(TotalDefenseAction(), AttackAction(target_id="foe"))
    b = battle(ROW, [me, foe], policies={"A": plan})
    b.take_turn(me)
    assert [r.reason for r in me.last_results] == [None, Reason.DOWNGRADED_ACTION_ECONOMY]


def test_fighting_defensively_costs_4_to_hit_and_gives_2_ac():
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    plan = Plan(FightDefensivelyAction(), FullAttackAction(target_id="foe"))
    b = battle(ROW, [me, foe], {"attack": [13]}, policies={"A": plan})
    b.take_turn(me)
    assert messages(b) == [
        "combat sur la défensive (-4 à l'attaque, +2 CA)",
        "sword vs foe d20=13-4=9 CA 10 -> RATÉ",
    ]
    assert me.effects.total(MELEE_AC) == 2 and me.effects.conditions == Cond.FIGHTING_DEFENSIVELY
    assert me.effects.total(ATTACK) == -4


def test_the_menu_offers_total_defense_and_defensive_full_attacks():
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    b = battle(ROW, [me, foe])
    ids = [o.id for o in b.observe(me).legal_options]
    assert "defensive_full_attack:foe:sword" in ids and ids[-3:] == [
        "total_defense",
        "delay",
        "wait",
    ]


def _fight(aware_a, aware_b, dice, policies=None):
    a = state("a", "A", make_profile(aware=aware_a), ROW, (0, 0))
    z = state("z", "B", make_profile(aware=aware_b, hp_max=30), ROW, (0, 1), 1)
    for c in (a, z):
        c.aware = c.profile.spec.aware
    pol = policies or {"A": HeuristicPolicy(), "B": HeuristicPolicy()}
    loop = Battle(ROW, [a, z], ("A", "B"), ScriptedDice(dice), pol, round_cap=1, record=True)
    return loop, a, z


def test_surprise_round_the_unaware_lose_their_turn_and_a_full_attack_is_one_attack():
    # initiative a 5, z 15; round 0: z is surprised, a attacks once; round 1: z, then a
    plan = {"A": Plan(FullAttackAction(target_id="z"), MoveAction(target_id="z")),
            "B": Plan()}  # fmt: skip
    loop, _a, _z = _fight(
        True, False, {"initiative": [5, 15], "attack": [12, 11], "damage": [3, 2]}, plan
    )
    out = loop.run()
    text = [(r, who, m) for r, who, m, _x in lines(out.log) if r is not None]
    assert text[0] == (0, "z", "surpris : ne peut pas agir")
    assert text[1][:2] == (0, "a") and text[1][2].startswith("sword vs z d20=12")
    assert (0, "a", "sword vs z d20=11+0=11 CA 10 -> TOUCHÉ : 2 dégâts (z 25/30 pv)") not in text
    # the move of round 0 was dropped: one standard or move action only
    round0 = [m for r, who, m in text if r == 0 and who == "a"]
    assert round0[1:] == ["action refusée : move (downgraded:surprise)"]
    assert "round de surprise" in [m for r, _w, m, _x in lines(out.log) if r is None]


def test_no_surprise_round_when_everyone_or_no_one_is_aware():
    for flags in ((True, True), (False, False)):
        loop, _, _ = _fight(*flags, {"initiative": [5, 15], "attack": [1, 1]})
        out = loop.run()
        assert "round de surprise" not in [m for _r, _w, m, _x in lines(out.log)]
        assert all(r != 0 for r, _w, _m, _x in lines(out.log) if r is not None)


def test_the_surprise_round_menu_has_single_actions_only():
    a = state("a", "A", make_profile(), ROW, (0, 0))
    z = state("z", "B", make_profile(), ROW, (0, 1), 1)
    b = battle(ROW, [a, z])
    b.fight.round = 0
    ids = [o.id for o in b.observe(a).legal_options]
    assert not any(i.startswith(("full_attack", "defensive_full_attack", "charge")) for i in ids)
    assert "attack:z:sword" in ids


# -- prone (SRD « Prone », « Stand Up », « Drop Prone ») ---------------------------------

from builders import ranged  # noqa: E402

from engine.content.actions import DropProneAction, StandUpAction  # noqa: E402
from harness.transcript import lines  # noqa: E402


def test_drop_prone_is_free_and_changes_ac_by_attack_kind():
    me = state("me", "A", make_profile(), ROW, (0, 0))
    sword = state("sword", "B", make_profile(), ROW, (0, 1), 1)
    bow = state("bow", "B", make_profile(attacks=[ranged("bow")]), ROW, (0, 4), 2)
    plan = Plan(DropProneAction(), AttackAction(target_id="sword"), DropProneAction())
    b = battle(ROW, [me, sword, bow], {"attack": [1]}, policies={"A": plan})
    b.take_turn(me)
    assert [r.reason for r in me.last_results] == [None, None, Reason.ALREADY_PRONE]
    assert me.effects.cond & Cond.PRONE and b.observe(sword).combatant("me").prone
    text = messages(b)
    assert text[0] == "se jette à terre"
    assert text[1] == "sword vs sword d20=1-4=-3 CA 10 -> RATÉ"  # −4 to attack while prone
    b.fight.rng = ScriptedDice({"attack": [9, 9], "damage": [2]})
    b.dispatch(sword, AttackAction(target_id="me"))  # 9 vs AC 10 − 4: hits
    b.dispatch(bow, AttackAction(target_id="me"))  # 9 vs AC 10 + 4: misses
    assert messages(b)[-2].startswith("sword vs me d20=9+0=9 CA 6 (à terre -4) -> TOUCHÉ")
    # (the shot also takes −4 into the melee and +4 soft cover from the swordsman)
    assert messages(b)[-1] == "bow vs me d20=9-4=5 CA 18 (abri +4, à terre +4) -> RATÉ"


def test_standing_up_provokes_while_still_prone_and_a_prone_creature_cannot_move():
    me = state("me", "A", make_profile(hp_max=20), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    add_effect(me, PRONE_EFFECT)
    b = battle(ROW, [me, foe], {"attack": [7], "damage": [3]})
    assert b.dispatch(me, MoveAction(destination=(0, 3))).reason == Reason.PRONE
    assert b.dispatch(me, StandUpAction()).ok
    assert messages(b) == [
        "attaque d'opportunité contre me (se relève)",
        "sword vs me d20=7+0=7 CA 6 (à terre -4) -> TOUCHÉ : 3 dégâts (me 17/20 pv)",
        "se relève",
    ]
    assert not me.effects.cond & Cond.PRONE and foe.aoo_used == 1
    assert b.dispatch(me, StandUpAction()).reason == Reason.NOT_PRONE


def test_a_prone_combatant_gets_the_prone_menu_and_the_heuristic_stands_up_to_attack():
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 1), 1)
    add_effect(me, PRONE_EFFECT)
    b = battle(ROW, [me, foe])
    ids = [o.id for o in b.observe(me).legal_options]
    assert ids == [
        "stand_up",
        "stand_attack:foe:sword",
        "attack:foe:sword",
        "total_defense",
        "wait",
    ]
    plan = HeuristicPolicy().decide(b.observe(me))
    assert [a.kind for a in plan.actions] == ["stand_up", "attack"]
    # no enemy shoots: lying down is not on the menu of a standing combatant
    drop_effect(me, PRONE_EFFECT.source)
    assert "drop_prone" not in [o.id for o in b.observe(me).legal_options]


# -- delay (SRD « Delay ») -----------------------------------------------------------------

from engine.content.actions import DelayAction  # noqa: E402


class Once:
    """Delays on its first turn, then waits (so delaying again would be refused)."""

    def __init__(self, first):
        self.first = first
        self.turns = 0

    def decide(self, obs):
        self.turns += 1
        if self.turns == 1:
            return TurnPlan(self.first)
        if self.turns == 2:
            return TurnPlan((DelayAction(),))
        return TurnPlan(())


def _three(first, dice):
    a = state("a", "A", make_profile(), ROW, (0, 0))
    b_ = state("b", "B", make_profile(), ROW, (0, 5), 1)
    c = state("c", "B", make_profile(), ROW, (0, 4), 2)
    policies = {"A": Once(first), "B": Plan()}
    loop = Battle(ROW, [a, b_, c], ("A", "B"), ScriptedDice(dice), policies, round_cap=2,
                   record=True)  # fmt: skip
    return loop, a


def test_delay_to_the_end_of_the_round_keeps_the_new_place_in_later_rounds():
    # initiative a 20, b 10, c 5
    loop, a = _three((DelayAction(), MoveAction(target_id="c")), {"initiative": [20, 10, 5]})
    out = loop.run()
    turns = [(r, who) for r, who, m, _x in lines(out.log) if r is not None]
    assert turns[0] == (1, "a") and a.init_key == 4.5
    log = [(r, who, m) for r, who, m, _x in lines(out.log) if r is not None]
    assert log[0] == (1, "a", "retarde son tour (en fin de round)")
    # the rest of that turn (the move) was lost; a second delay in the round is refused
    assert (1, "a", "action sans effet : delay (already_delayed)") in log
    assert not any(who == "a" and m.startswith("déplacement") for _r, who, m in log)
    assert [c.id for c in loop.fight.order] == ["b", "c", "a"]  # round 2 order


def test_delay_before_a_named_combatant():
    loop, a = _three((DelayAction(target_id="c"),), {"initiative": [20, 10, 5]})
    loop.run()
    assert a.init_key == 5.5 and [c.id for c in loop.fight.order] == ["b", "a", "c"]


def test_delay_must_open_the_turn():
    me = state("me", "A", make_profile(), ROW, (0, 0))
    foe = state("foe", "B", make_profile(), ROW, (0, 3), 1)
    plan = Plan(MoveAction(target_id="foe"), DelayAction())
    b = battle(ROW, [me, foe], policies={"A": plan})
    b.take_turn(me)
    assert me.last_results[1].reason == Reason.DOWNGRADED_ACTION_ECONOMY and not me.delayed
