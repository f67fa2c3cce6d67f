"""Ready (SRD « Ready »), scripted dice.

A standard action holding one attack until a trigger happens before the
readier's next turn; fired off-turn, one readied action per event, no cascade;
the readier's initiative moves to just before the trigger's; fired in the next
round it uses up that round's turn; unfired it expires at the readier's next turn.
"""

from __future__ import annotations

from builders import Plan, battle, make_map, make_profile, melee, messages, ranged, state

from engine.content.actions import (
    AttackAction,
    MoveAction,
    ReadyAction,
    Reason,
    TurnPlan,
    WaitAction,
)
from engine.core.rng import ScriptedDice
from engine.turn.battle import Battle
from harness.transcript import lines

ROW = make_map(["........"])
TWO = make_map(["........", "........"])


class Turns:
    """Plays the given plans turn after turn, then waits."""

    def __init__(self, *plans: tuple[object, ...]) -> None:
        self.plans = list(plans)

    def decide(self, obs: object) -> TurnPlan:
        if self.plans:
            return TurnPlan(self.plans.pop(0))  # type: ignore[arg-type]
        return TurnPlan((WaitAction(),))


def test_enemy_entering_reach_is_attacked_and_stops_where_it_falls():
    # a readier with a 10-ft reach: the mover is hit on (0,2), two squares away
    r = state("r", "A", make_profile(attacks=[melee(reach_ft=10)]), ROW, (0, 0))
    m = state("m", "B", make_profile(), ROW, (0, 5), 1, hp=5)
    ready = ReadyAction(ready_trigger="enemy_enters_reach")
    b = battle(
        ROW,
        [r, m],
        {"attack": [15], "damage": [8]},
        policies={"A": Plan(ready), "B": Plan(MoveAction(target_id="r"))},
    )
    r.init_key, m.init_key = 20.0, 10.0
    b.take_turn(r)
    assert r.last_results[0].reason == Reason.READY
    assert b.observe(m).combatant("r").to_dict()["readied"] == {
        "kind": "attack",
        "trigger": "enemy_enters_reach",
        "target_id": None,
    }
    b.take_turn(m)
    assert messages(b)[1:] == [
        "déplacement (0,5)->(0,4)->(0,3)->(0,2)",
        "action préparée (un ennemi entre dans son allonge) : attaque sur m",
        "sword vs m d20=15+0=15 CA 10 -> TOUCHÉ : 8 dégâts (m -3/10 pv, mourant)",
        "tombe, mourant (-3 pv)",
    ]
    assert m.pos == ROW.cell(0, 2) and r.readied is None and not b.fight.readiers
    # SRD: the readier now acts just before the creature that triggered it
    assert r.init_key == 10.5 and b.fight.reorder


def test_a_mover_that_survives_goes_on_and_the_readied_attack_is_one_shot():
    r = state("r", "A", make_profile(attacks=[melee(reach_ft=10)]), ROW, (0, 0))
    m = state("m", "B", make_profile(), ROW, (0, 5), 1)
    ready = ReadyAction(ready_trigger="enemy_enters_reach")
    # readied attack misses (2); leaving (0,2) provokes r's attack of opportunity (miss, 3)
    b = battle(
        ROW,
        [r, m],
        {"attack": [2, 3]},
        policies={"A": Plan(ready), "B": Plan(MoveAction(target_id="r"))},
    )
    b.take_turn(r)
    b.take_turn(m)
    assert m.pos == ROW.cell(0, 1)
    assert messages(b)[1:] == [
        "déplacement (0,5)->(0,4)->(0,3)->(0,2)",
        "action préparée (un ennemi entre dans son allonge) : attaque sur m",
        "sword vs m d20=2+0=2 CA 10 -> RATÉ",
        "attaque d'opportunité contre m (quitte une case menacée)",
        "sword vs m d20=3+0=3 CA 10 -> RATÉ",
        "déplacement (0,2)->(0,1)",
    ]


def test_enemy_attacks_fires_before_the_attack_which_is_lost_if_the_attacker_falls():
    r = state("r", "A", make_profile(), ROW, (0, 0))
    m = state("m", "B", make_profile(), ROW, (0, 1), 1, hp=5)
    ready = ReadyAction(ready_trigger="enemy_attacks")
    # one attack die only: m's own attack roll would exhaust the script
    b = battle(
        ROW,
        [r, m],
        {"attack": [15], "damage": [8]},
        policies={"A": Plan(ready), "B": Plan(AttackAction(target_id="r"))},
    )
    b.take_turn(r)
    b.take_turn(m)
    assert messages(b)[1:3] == [
        "action préparée (un ennemi attaque) : attaque sur m",
        "sword vs m d20=15+0=15 CA 10 -> TOUCHÉ : 8 dégâts (m -3/10 pv, mourant)",
    ]
    assert r.hp == 10 and not m.active


def test_enemy_hits_ally_fires_after_a_hit_on_an_ally_only():
    r = state("r", "A", make_profile(), TWO, (1, 1))
    x = state("x", "A", make_profile(), TWO, (0, 1), 1)
    m = state("m", "B", make_profile(), TWO, (0, 2), 2)
    ready = ReadyAction(ready_trigger="enemy_hits_ally")
    # m misses x (nothing), misses r (not an ally of r), then hits x (4 damage): r strikes (miss)
    b = battle(
        TWO, [r, x, m], {"attack": [3, 4, 15, 5], "damage": [4]}, policies={"A": Plan(ready)}
    )
    b.take_turn(r)
    b.dispatch(m, AttackAction(target_id="x"))
    b.dispatch(m, AttackAction(target_id="r"))
    assert r.readied is not None
    b.dispatch(m, AttackAction(target_id="x"))
    assert messages(b)[-2:] == [
        "action préparée (un ennemi touche un allié) : attaque sur m",
        "sword vs m d20=5+0=5 CA 10 -> RATÉ",
    ]
    assert r.readied is None


def test_one_readied_action_per_event_and_no_cascade():
    r1 = state("r1", "A", make_profile(), TWO, (0, 0))
    r2 = state("r2", "A", make_profile(), TWO, (1, 0), 1)
    m = state("m", "B", make_profile(), TWO, (0, 4), 2)
    ready = ReadyAction(ready_trigger="enemy_enters_reach")
    b = battle(
        TWO,
        [r1, r2, m],
        {"attack": [2]},
        policies={"A": Plan(ready), "B": Plan(MoveAction(target_id="r1"))},
    )
    b.take_turn(r1)
    b.take_turn(r2)
    b.take_turn(m)  # ends on (0,1), threatened by both: only r1 (first in order) fires
    assert m.pos == TWO.cell(0, 1)
    assert r1.readied is None and r2.readied is not None
    # no cascade: m's readied attack answering an attack does not set off r2's
    ready_m = ReadyAction(ready_trigger="enemy_attacks")
    b._policies = {"A": Plan(AttackAction(target_id="m")), "B": Plan(ready_m)}
    r2.readied = None
    b.fight.readiers.clear()
    b.take_turn(m)
    r2_ready = ReadyAction(ready_trigger="enemy_attacks")
    b.dispatch(r2, r2_ready)
    b.fight.rng = ScriptedDice({"attack": [2, 3]})  # m's readied attack on r1, then r1's attack
    b.dispatch(r1, AttackAction(target_id="m"))
    assert m.readied is None and r2.readied is not None
    assert messages(b)[-3:] == [
        "action préparée (un ennemi attaque) : attaque sur r1",
        "sword vs r1 d20=2+0=2 CA 10 -> RATÉ",
        "sword vs m d20=3+0=3 CA 10 -> RATÉ",
    ]


def test_a_trigger_the_readier_cannot_answer_lets_it_keep_waiting():
    # a melee readier: an archer shooting from afar triggers enemy_attacks, but
    # no weapon can hit the archer, so the ready stays
    r = state("r", "A", make_profile(), ROW, (0, 0))
    x = state("x", "A", make_profile(), ROW, (0, 6), 1)
    archer = state("a", "B", make_profile(attacks=[ranged()]), ROW, (0, 4), 2)
    ready = ReadyAction(ready_trigger="enemy_attacks")
    b = battle(ROW, [r, x, archer], {"attack": [3]}, policies={"A": Plan(ready)})
    b.take_turn(r)
    b.dispatch(archer, AttackAction(target_id="x"))
    assert r.readied is not None
    assert messages(b)[-1].startswith("bow vs x d20=3")


def test_a_named_target_is_attacked_whoever_triggers():
    r = state("r", "A", make_profile(), ROW, (0, 0))
    boss = state("boss", "B", make_profile(), ROW, (0, 1), 1)
    m = state("m", "B", make_profile(attacks=[ranged()]), ROW, (0, 5), 2)
    ready = ReadyAction(ready_trigger="enemy_attacks", target_id="boss")
    b = battle(ROW, [r, boss, m], {"attack": [2, 3]}, policies={"A": Plan(ready)})
    b.take_turn(r)
    b.dispatch(m, AttackAction(target_id="r"))
    assert messages(b)[1:] == [
        "action préparée (un ennemi attaque) : attaque sur boss",
        "sword vs boss d20=2+0=2 CA 10 -> RATÉ",
        "bow vs r d20=3-4=-1 CA 14 (abri +4) -> RATÉ",
    ]


def test_unfired_ready_expires_at_the_readiers_next_turn():
    r = state("r", "A", make_profile(), ROW, (0, 0))
    m = state("m", "B", make_profile(), ROW, (0, 5), 1)
    b = battle(ROW, [r, m], policies={"A": Turns((ReadyAction(ready_trigger="enemy_attacks"),))})
    b.take_turn(r)
    b.take_turn(r)
    assert r.readied is None and not b.fight.readiers
    assert messages(b)[-1] == "action préparée expirée (le déclencheur n'est pas survenu)"


def test_fired_in_the_next_round_it_uses_up_that_turn_and_moves_the_initiative():
    m = state("m", "B", make_profile(), ROW, (0, 1), 1)
    r = state("r", "A", make_profile(), ROW, (0, 0))
    policies = {
        "A": Turns((ReadyAction(ready_trigger="enemy_attacks"),)),
        "B": Turns((WaitAction(),), (AttackAction(target_id="r"),)),
    }
    # initiative m 20, r 10; round 2: r's readied attack (1) then m's (1), both miss
    dice = ScriptedDice({"initiative": [20, 10], "attack": [1, 1]})
    loop = Battle(ROW, [m, r], ("B", "A"), dice, policies, round_cap=3, record=True)
    out = loop.run()
    assert out.log is not None
    log = [(rnd, who, msg) for rnd, who, msg, _ in lines(out.log) if rnd is not None]
    assert (2, "r", "action préparée (un ennemi attaque) : attaque sur m") in log
    assert (2, "r", "a déjà agi ce round (action préparée)") in log
    assert r.init_key == 20.5
    assert [c.id for c in loop.fight.order] == ["r", "m"]  # from round 3 on


def test_ready_validation_and_budget():
    r = state("r", "A", make_profile(), ROW, (0, 0))
    m = state("m", "B", make_profile(), ROW, (0, 5), 1)
    b = battle(ROW, [r, m])
    assert b.dispatch(r, ReadyAction()).reason == Reason.MISSING_TRIGGER
    assert (
        b.dispatch(r, ReadyAction(ready_trigger="enemy_casts", spell_name="fireball")).reason
        == Reason.UNSUPPORTED_KIND
    )
    assert (
        b.dispatch(r, ReadyAction(ready_trigger="enemy_attacks", target_id="zz")).reason
        == Reason.MISSING_TARGET
    )
    # enemy_casts is accepted (no one casts in Phase 0: it never fires)
    assert b.dispatch(r, ReadyAction(ready_trigger="enemy_casts")).ok
    # a standard action: the move action stays usable, an attack does not fit
    plan = Plan(
        ReadyAction(ready_trigger="enemy_attacks"),
        MoveAction(target_id="m"),
        AttackAction(target_id="m"),
    )
    b._policies = {"A": plan}
    b.take_turn(r)
    assert [x.reason for x in r.last_results] == [
        Reason.READY,
        None,
        Reason.DOWNGRADED_ACTION_ECONOMY,
    ]
    # a new ready replaces the old one
    assert r.readied is not None and r.readied.trigger == "enemy_attacks"
    assert b.fight.readiers == [r]


def test_the_menu_offers_ready_triggers():
    r = state("r", "A", make_profile(), ROW, (0, 0))
    x = state("x", "A", make_profile(), ROW, (0, 2), 1)
    m = state("m", "B", make_profile(), ROW, (0, 5), 2)
    b = battle(ROW, [r, x, m])
    ids = [o.id for o in b.observe(r).legal_options]
    assert [i for i in ids if i.startswith("ready:")] == [
        "ready:enemy_enters_reach",
        "ready:enemy_attacks",
        "ready:enemy_hits_ally",
    ]
    archer = state("a", "A", make_profile(attacks=[ranged()]), ROW, (0, 3), 3)
    b = battle(ROW, [archer, m])
    ids = [o.id for o in b.observe(archer).legal_options]
    assert [i for i in ids if i.startswith("ready:")] == ["ready:enemy_attacks"]
