"""Strategies: the spec file, and one test per field proving it changes the fight."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import make_map, make_profile, melee, ranged

from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.core.errors import DataError
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from policies.heuristic import HeuristicPolicy
from policies.registry import parse_policy_spec
from policies.strategy import (
    StrategyPolicy,
    StrategySpec,
    dump_strategy,
    load_strategy,
    parse_strategy,
)

ROOT = Path(__file__).resolve().parent.parent


class Recorder:
    """Wraps a policy; keeps (actor, round, hp %, plan) for every turn."""

    def __init__(self, inner):
        self.inner = inner
        self.turns = []
        self.withdraw_legal = []

    def decide(self, obs):
        plan = self.inner.decide(obs)
        me = obs.actor
        pct = 100 * max(me.hp, 0) / me.hp_max
        self.turns.append((me.id, obs.round, pct, plan))
        legal = obs.option("withdraw") is not None
        assert obs.can_withdraw() == legal  # the cheap test agrees with the menu
        self.withdraw_legal.append(legal)
        return plan

    def first(self, who):
        return next(plan for ident, _r, _p, plan in self.turns if ident == who)


def strategy(text):
    return StrategyPolicy(parse_strategy(text))


def first_action(enc, text, who, *, seed=3, cap=3, east=None):
    west = Recorder(strategy(text))
    play_fight(enc, seed, {"west": west, "east": east or HeuristicPolicy()}, round_cap=cap)
    return west.first(who).actions[0]


# -- the file ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("engagment: melee\n", "vouliez-vous dire « engagement » ?"),
        ("targets: [closest]\n", "valeurs possibles"),
        ("engagement: sword\n", "engagement"),
        ("keep_distance_ft: -5\n", "keep_distance_ft"),
        ("retreat_below_hp_pct: 150\n", "retreat_below_hp_pct"),
        ("roles:\n  goblin-1: { chrge: false }\n", 'roles["goblin-1"]'),
        ("charge: [\n", "YAML invalide"),
        ("- nearest\n", "objet"),
    ],
)
def test_bad_strategies_are_french_data_errors(text, needle):
    with pytest.raises(DataError) as info:
        parse_strategy(text, "s.yaml")
    assert needle in str(info.value)


def test_example_strategies_load_and_round_trip():
    files = sorted((ROOT / "data/strategies").glob("*.yaml"))
    assert files
    for f in files:
        spec = load_strategy(f)
        assert parse_strategy(dump_strategy(spec)) == spec


def test_registry_names_strategy_files():
    spec = parse_policy_spec("strategy:data/strategies/focus_dangerous.yaml", ROOT)
    assert spec.kind == "strategy" and spec.strategy is not None
    assert str(spec).endswith("data/strategies/focus_dangerous.yaml")
    with pytest.raises(DataError, match="strategy:CHEMIN"):
        parse_policy_spec("strategy:")


def test_default_strategy_plays_exactly_like_the_heuristic():
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    h, s = HeuristicPolicy(), StrategyPolicy(StrategySpec())
    for seed in range(1, 21):
        a = play_fight(enc, seed, {"players": h, "monsters": h}, record=True).log
        b = play_fight(enc, seed, {"players": s, "monsters": s}, record=True).log
        assert a == b, seed


# -- targets and focus ----------------------------------------------------------------


def _two_targets():
    """West archer; east: a near strong brute and a far weak, dangerous archer."""
    gmap = make_map(["............"], zones=["A...B......B"], deployment={"west": "A", "east": "B"})
    archer = make_profile(name="Archer", hp_max=20, attacks=[ranged("bow", inc=100)],
                          initiative_mod=20)  # fmt: skip
    brute = make_profile(name="Brute", hp_max=30, attacks=[melee(dmg="1d2")])
    sniper = make_profile(
        name="Sniper", hp_max=6, attacks=[ranged("crossbow", bonus=8, dmg="2d8", inc=100)]
    )
    return build_encounter(gmap, [("west", [archer]), ("east", [brute, sniper])])


@pytest.mark.parametrize(
    ("targets", "expected"),
    [
        ("[nearest]", "brute"),
        ("[weakest]", "sniper"),
        ("[strongest]", "brute"),
        ("[most_dangerous]", "sniper"),
        ("[ranged_first, strongest]", "sniper"),
    ],
)
def test_targets_pick_the_first_target(targets, expected):
    action = first_action(_two_targets(), f"targets: {targets}\n", "archer")
    assert (action.kind, action.target_id) == ("full_attack", expected)


def test_most_wounded_compares_shares_of_hit_points():
    gmap = make_map(["..........."], zones=["A...B.....B"], deployment={"west": "A", "east": "B"})
    archer = make_profile(name="Archer", hp_max=20, attacks=[ranged("bow", inc=100)])
    big = make_profile(name="Big", hp_max=40, attacks=[melee(dmg="1d2")])
    small = make_profile(name="Small", hp_max=10, attacks=[melee(dmg="1d2")])
    enc = build_encounter(gmap, [("west", [archer]), ("east", [big, small])])
    states = enc.fresh_states()
    # Big at 15/40 (37 %) is more wounded than Small at 6/10 (60 %) though it has more hp
    assert (states[1].id, states[2].id) == ("big", "small")
    policy = Recorder(strategy("targets: [most_wounded]\n"))
    weakest = Recorder(strategy("targets: [weakest]\n"))
    from engine.core.rng import SeededRng
    from engine.turn.battle import Battle

    for rec in (policy, weakest):
        states = enc.fresh_states()
        states[1].hp, states[2].hp = 15, 6
        Battle(
            enc.gmap, states, enc.sides, SeededRng(3), {"west": rec, "east": HeuristicPolicy()},
            round_cap=1,
        ).run()  # fmt: skip
    assert policy.first("archer").actions[0].target_id == "big"
    assert weakest.first("archer").actions[0].target_id == "small"


def test_engaged_targets_the_enemy_an_ally_fights():
    gmap = make_map(
        ["..........", ".........."],
        zones=["A...B...B.", ".........A"],
        deployment={"west": "A", "east": "B"},
    )
    archer = make_profile(name="Archer", hp_max=20, attacks=[ranged("bow", inc=100)],
                          initiative_mod=20)  # fmt: skip
    fighter = make_profile(name="Fighter", hp_max=20)
    foe = make_profile(name="Foe", hp_max=30, attacks=[melee(dmg="1d2")], initiative_mod=-20)
    enc = build_encounter(gmap, [("west", [archer, fighter]), ("east", [foe, foe])])
    # the fighter at (1,9) is next to foe-2 at (0,8); foe at (0,4) is nearer the archer
    assert first_action(enc, "targets: [nearest]\n", "archer").target_id == "foe"
    assert first_action(enc, "targets: [engaged, nearest]\n", "archer").target_id == "foe-2"


def test_engaged_is_the_engines_threat_a_reach_weapons_dead_zone_engages_nobody():
    # « engaged » once meant within the ally's longest melee reach by distance;
    # it is now the engine's threat rule: a longspear adjacent to foe-2 does not
    # threaten it (dead zone), so nearest decides (SRD « Reach Weapons »)
    gmap = make_map(
        ["..........", ".........."],
        zones=["A...B...B.", ".........A"],
        deployment={"west": "A", "east": "B"},
    )
    archer = make_profile(name="Archer", hp_max=20, attacks=[ranged("bow", inc=100)],
                          initiative_mod=20)  # fmt: skip
    pike = make_profile(name="Pike", hp_max=20, attacks=[melee("longspear", reach_weapon=True)])
    foe = make_profile(name="Foe", hp_max=30, attacks=[melee(dmg="1d2")], initiative_mod=-20)
    enc = build_encounter(gmap, [("west", [archer, pike]), ("east", [foe, foe])])
    assert first_action(enc, "targets: [engaged, nearest]\n", "archer").target_id == "foe"


def test_focus_names_a_combatant_by_id_or_creature_name():
    enc = _two_targets()
    for focus in ("[sniper]", "[SNIPER]", "[nobody, sniper]"):
        action = first_action(enc, f"targets: [nearest]\nfocus: {focus}\n", "archer")
        assert action.target_id == "sniper"
    assert first_action(enc, "focus: [nobody]\n", "archer").target_id == "brute"


def test_focus_fire_keeps_one_target_for_the_side():
    # two archers at both ends, one enemy near each: each shoots its nearest without focus fire
    gmap = make_map(["............"], zones=["A..B....B..A"], deployment={"west": "A", "east": "B"})
    archer = make_profile(name="Archer", hp_max=20, attacks=[ranged("bow", inc=100)])
    foe = make_profile(name="Foe", hp_max=60, attacks=[melee(dmg="1d2")], speed_land_ft=5)
    enc = build_encounter(gmap, [("west", [archer, archer]), ("east", [foe, foe])])

    def targets(text):
        west = Recorder(strategy(text))
        play_fight(enc, 2, {"west": west, "east": HeuristicPolicy()}, round_cap=2)
        return {(who, r): p.actions[0].target_id for who, r, _pct, p in west.turns}

    plain = targets("targets: [nearest]\n")
    shared = targets("targets: [nearest]\nfocus_fire: true\n")
    assert plain[("archer", 1)] != plain[("archer-2", 1)]
    assert len(set(shared.values())) == 1
    # a new fight starts from scratch: no target carried over from the previous one
    policy = StrategyPolicy(parse_strategy("targets: [nearest]\nfocus_fire: true\n"))
    first = Recorder(policy)
    play_fight(enc, 2, {"west": first, "east": HeuristicPolicy()}, round_cap=1)
    again = Recorder(policy)
    play_fight(enc, 5, {"west": again, "east": HeuristicPolicy()}, round_cap=1)
    opener = again.turns[0]
    assert opener[3].actions[0].target_id == ("foe" if opener[0] == "archer" else "foe-2")


# -- engagement, distance, positioning, charge ------------------------------------


def _skirmisher(rows, zones):
    gmap = make_map(rows, zones=zones, deployment={"west": "A", "east": "B"})
    skirm = make_profile(
        name="Skirm",
        hp_max=30,
        attacks=[melee("dagger"), ranged("bow", inc=100)],
        initiative_mod=20,
    )
    foe = make_profile(name="Foe", hp_max=40, attacks=[melee(dmg="1d2")])
    return build_encounter(gmap, [("west", [skirm]), ("east", [foe])])


def test_engagement_chooses_the_weapon():
    adjacent = _skirmisher(["........"], ["...AB..."])
    far = _skirmisher(["............"], ["A..........B"])
    assert first_action(adjacent, "engagement: any\n", "skirm").weapon_id == "dagger"
    assert first_action(adjacent, "engagement: ranged\n", "skirm").weapon_id == "bow"
    assert first_action(far, "engagement: any\n", "skirm").weapon_id == "bow"
    melee_first = first_action(far, "engagement: melee\n", "skirm")
    assert melee_first.kind in {"charge", "move"}


def test_keep_distance_withdraws_when_an_enemy_is_close():
    enc = _skirmisher(["..............."], ["......A.B......"])
    assert first_action(enc, "engagement: ranged\n", "skirm").kind == "full_attack"
    assert first_action(enc, "engagement: ranged\nkeep_distance_ft: 15\n", "skirm").kind == (
        "withdraw"
    )
    # farther than the distance: it shoots
    far = _skirmisher(["..............."], ["A.......B......"])
    assert first_action(far, "engagement: ranged\nkeep_distance_ft: 15\n", "skirm").kind == (
        "full_attack"
    )


def _brawlers(row="..............", zones="A............B"):
    gmap = make_map([row], zones=[zones], deployment={"west": "A", "east": "B"})
    p = make_profile(name="Brawler", hp_max=30, initiative_mod=20)
    q = make_profile(name="Foe", hp_max=30)
    return build_encounter(gmap, [("west", [p]), ("east", [q])])


def test_hold_readies_instead_of_advancing():
    enc = _brawlers()
    assert first_action(enc, "positioning: advance\n", "brawler").kind in {"move", "charge"}
    held = first_action(enc, "positioning: hold\n", "brawler")
    assert (held.kind, held.ready_trigger) == ("ready", "enemy_enters_reach")


def test_charge_false_never_charges():
    enc = _brawlers("........", "A......B")  # 35 ft: a charge reaches, a move does not
    assert first_action(enc, "charge: true\n", "brawler").kind == "charge"
    assert first_action(enc, "charge: false\n", "brawler").kind == "move"


def test_avoid_threatened_does_not_walk_into_a_long_reach():
    gmap = make_map(["..............."], zones=["A.............B"],
                    deployment={"west": "A", "east": "B"})  # fmt: skip
    p = make_profile(name="Brawler", hp_max=30)
    whip = make_profile(name="Lasher", hp_max=30, attacks=[melee("lash", reach_ft=30)],
                        speed_land_ft=0)  # fmt: skip
    enc = build_encounter(gmap, [("west", [p]), ("east", [whip])])
    # 70 ft apart: a first move ends 40 ft away (outside the 30 ft reach), a second
    # would end 10 ft away (threatened, too far to attack): the wary one readies instead
    kinds = {}
    for text in ("charge: false\n", "charge: false\navoid_threatened: true\n"):
        west = Recorder(strategy(text))
        play_fight(enc, 1, {"west": west, "east": HeuristicPolicy()}, round_cap=3)
        kinds[text] = [p.actions[0].kind for *_x, p in west.turns]
    plain, wary = kinds.values()
    assert plain[:2] == ["move", "move"]
    assert wary[:2] == ["move", "ready"]


# -- hit point thresholds --------------------------------------------------------------


def _slugfest():
    gmap = make_map(["........"], zones=["...AB..."], deployment={"west": "A", "east": "B"})
    p = make_profile(name="Brawler", hp_max=30, attacks=[melee(dmg="2d6")])
    return build_encounter(gmap, [("west", [p]), ("east", [p])])


@pytest.mark.parametrize(
    ("field", "kind"),
    [("retreat_below_hp_pct", "withdraw"), ("total_defense_below_hp_pct", "total_defense")],
)
def test_hit_point_thresholds(field, kind):
    enc = _slugfest()
    seen = 0
    for seed in range(20):
        west = Recorder(strategy(f"{field}: 60\n"))
        play_fight(enc, seed, {"west": west, "east": HeuristicPolicy()}, round_cap=10)
        for (_who, _r, pct, plan), legal in zip(west.turns, west.withdraw_legal, strict=True):
            if kind == "withdraw" and not legal:
                continue
            if 0 < pct < 60:
                seen += 1
                assert plan.actions[0].kind == kind
            elif pct >= 60:
                assert plan.actions[0].kind != kind
    assert seen > 0
    baseline = Recorder(HeuristicPolicy())
    play_fight(enc, 0, {"west": baseline, "east": HeuristicPolicy()}, round_cap=10)
    assert all(p.actions[0].kind != kind for *_x, p in baseline.turns)


# -- roles -----------------------------------------------------------------------------


def test_roles_override_one_combatant_only():
    gmap = make_map(["........", "........"], zones=["A......B", "A......."],
                    deployment={"west": "A", "east": "B"})  # fmt: skip
    p = make_profile(name="Brawler", hp_max=30, initiative_mod=20)
    q = make_profile(name="Foe", hp_max=30)
    enc = build_encounter(gmap, [("west", [p, p]), ("east", [q])])
    text = "charge: false\nroles:\n  brawler-2: { charge: true }\n"
    west = Recorder(strategy(text))
    play_fight(enc, 4, {"west": west, "east": HeuristicPolicy()}, round_cap=1)
    assert west.first("brawler").actions[0].kind == "move"
    assert west.first("brawler-2").actions[0].kind == "charge"
    off = parse_strategy(
        "retreat_below_hp_pct: 50\nroles:\n  brawler: { retreat_below_hp_pct: 0 }\n"
    )
    assert off.tactics_for("brawler").retreat_below_hp_pct == 0
    assert off.tactics_for("brawler-2").retreat_below_hp_pct == 50
    spec = parse_strategy(text)
    assert spec.tactics_for("brawler-2").charge and not spec.tactics_for("brawler").charge


# -- CLI and encounter files -------------------------------------------------------------


def test_strategy_policy_from_the_cli_is_identical_for_any_worker_count(capsys, monkeypatch):
    from harness.cli.main import main

    monkeypatch.chdir(ROOT)
    args = ["--encounter", "data/encounters/strategy_archers.yaml", "--runs", "120"]
    assert main([*args, "--workers", "1"]) == 0
    one = capsys.readouterr()[0]
    assert main([*args, "--workers", "2"]) == 0
    assert capsys.readouterr()[0] == one
    assert "players strategy:data/strategies/cautious_archers.yaml" in one
    assert main([*args, "--policy", "players=heuristic"]) == 0
    assert capsys.readouterr()[0] != one


def test_strategy_errors_on_the_command_line(capsys, monkeypatch, tmp_path):
    from harness.cli.main import main

    monkeypatch.chdir(ROOT)
    bad = tmp_path / "bad.yaml"
    bad.write_text("charge: maybe\n", encoding="utf-8")
    for value, needle in [
        ("players=strategy:nope.yaml", "nope.yaml"),
        (f"players=strategy:{bad}", "charge"),
        ("players=strategy:", "strategy:CHEMIN"),
    ]:
        code = main(["--encounter", "data/encounters/quickstart.yaml", "--runs", "5",
                     "--policy", value])  # fmt: skip
        err = capsys.readouterr()[1]
        assert code == 2 and needle in err and "Traceback" not in err
