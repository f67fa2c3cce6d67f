"""Strategies, issue 15: targets by role, « same target as », phases, stances and
the choice of squares. One test per field, each showing it changes play."""

from __future__ import annotations

import pytest
from builders import make_map, make_profile, melee, ranged
from test_strategy import Recorder, first_action, strategy

from engine.core.errors import DataError
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from harness.transcript import lines
from policies.heuristic import HeuristicPolicy
from policies.strategy import StrategyPolicy, StrategySpec, parse_strategy, role_tags


def _plans(enc, text, *, seed=1, cap=4, east=None):
    west = Recorder(strategy(text))
    play_fight(enc, seed, {"west": west, "east": east or HeuristicPolicy()}, round_cap=cap)
    return west.turns


# -- the file ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("target_roles: [wizard]\n", "target_roles"),
        ("stance: rage\n", "stance"),
        ("hold_zone: { rows: [3, 1], cols: [0, 2] }\n", "hold_zone.rows"),
        ("hold_zone: { rows: [1] , cols: [0, 2] }\n", "hold_zone.rows"),
        ("phases:\n  - when: { untill_contact: true }\n    then: {}\n", "until_contact"),
        ("phases:\n  - when: {}\n    then: { stance: rage }\n", "phases[0].then.stance"),
        ("combatant_roles: { orc: [boss] }\n", "combatant_roles"),
    ],
)
def test_bad_new_fields_are_french_data_errors(text, needle):
    with pytest.raises(DataError) as info:
        parse_strategy(text, "s.yaml")
    assert needle in str(info.value)


def test_defaults_of_the_new_fields_take_the_plain_path():
    policy = StrategyPolicy(StrategySpec())
    assert policy._plain  # the zero-cost promise of the unused fields
    assert StrategyPolicy(parse_strategy("flank: true\n"))._compiled("x").ground is not None


# -- roles of the enemies --------------------------------------------------------------


def _line_of_roles():
    """West archer; east in a row, nearest first: a brute, an archer, a wizard, a shaman."""
    gmap = make_map(["............"], zones=["A..B..B...BB"], deployment={"west": "A", "east": "B"})
    archer = make_profile(name="Archer", hp_max=200, initiative_mod=20,
                          attacks=[ranged("bow", bonus=10, dmg="2d6", inc=100)])  # fmt: skip
    brute = make_profile(name="Brute", hp_max=30, attacks=[melee(dmg="2d6")])
    sniper = make_profile(
        name="Sniper", hp_max=8, attacks=[melee("knife", dmg="1d3"), ranged("crossbow", dmg="1d8")]
    )
    wizard = make_profile(name="Wizard", hp_max=8, spells=["magic missile"],
                          attacks=[melee(dmg="1d4")])  # fmt: skip
    shaman = make_profile(name="Shaman", hp_max=8, spells=["cure light wounds"],
                          attacks=[melee(dmg="1d4")], cr=3)  # fmt: skip
    return build_encounter(gmap, [("west", [archer]), ("east", [brute, sniper, wizard, shaman])])


def test_role_tags_are_derived_from_the_creature_files():
    seen = []

    class Peek(HeuristicPolicy):
        def decide(self, obs):
            seen.append(obs.combatants)
            return super().decide(obs)

    play_fight(_line_of_roles(), 1, {"west": Peek(), "east": Peek()}, round_cap=1)
    views = seen[0]
    tags = role_tags(views, {"Brute": ["leader"]})
    assert tags == {
        "archer": ("ranged",),
        "brute": ("brute", "leader"),
        "sniper": ("ranged",),
        "wizard": ("caster",),
        "shaman": ("caster", "healer", "leader"),  # CR 3 above the others' level 1
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("targets: [nearest]\n", "brute"),
        ("target_roles: [caster]\n", "wizard"),
        ("target_roles: [healer]\n", "shaman"),
        ("target_roles: [ranged]\n", "sniper"),
        ("target_roles: [leader]\n", "shaman"),
        ("target_roles: [healer, ranged]\n", "shaman"),
        ("target_roles: [leader]\ncombatant_roles: { wizard: [leader] }\n", "wizard"),
    ],
)
def test_target_roles_pick_the_first_target(text, expected):
    action = first_action(_line_of_roles(), text, "archer", cap=1)
    assert (action.kind, action.target_id) == ("full_attack", expected)


def test_target_roles_is_an_ordered_priority_list():
    # « the healer, then the archers, then the rest »: the shaman falls, the sniper is next
    enc = _line_of_roles()
    turns = _plans(enc, "target_roles: [healer, ranged]\n", seed=2, cap=12)
    order = []
    for who, _r, _pct, plan in turns:
        target = plan.actions[0].target_id
        if who == "archer" and (not order or order[-1] != target):
            order.append(target)
    assert order[:2] == ["shaman", "sniper"]


def test_combatant_roles_tags_a_named_enemy():
    enc = _line_of_roles()
    text = "target_roles: [brute]\ncombatant_roles: { Wizard: [brute] }\ntargets: [weakest]\n"
    assert first_action(enc, text, "archer", cap=1).target_id == "wizard"


# -- roles of our own side ------------------------------------------------------------


def _screen():
    """West: an archer and a swordsman side by side; east: one slow foe 35 ft away."""
    gmap = make_map(["........", "........"], zones=["A.......", "A......B"],
                    deployment={"west": "A", "east": "B"})  # fmt: skip
    archer = make_profile(name="Archer", hp_max=20, initiative_mod=20,
                          attacks=[melee("dagger", dmg="1d3"), ranged("bow", inc=100)])  # fmt: skip
    sword = make_profile(name="Sword", hp_max=30, initiative_mod=10)
    foe = make_profile(name="Foe", hp_max=60, attacks=[melee(dmg="1d2")])
    return build_encounter(gmap, [("west", [archer, sword]), ("east", [foe])])


def test_roles_keyed_by_a_role_tag_apply_to_every_ally_with_it():
    enc = _screen()
    text = "engagement: melee\nroles:\n  ranged: { engagement: ranged }\n"
    turns = _plans(enc, text, cap=1)
    kinds = {who: plan.actions[0] for who, _r, _p, plan in turns}
    assert (kinds["archer"].kind, kinds["archer"].weapon_id) == ("full_attack", "bow")
    assert kinds["sword"].kind in {"charge", "move"}
    plain = {who: p.actions[0] for who, _r, _q, p in _plans(enc, "engagement: melee\n", cap=1)}
    assert plain["archer"].kind in {"charge", "move"}
    # an id's role wins over a tag's
    both = text + "  archer: { engagement: melee }\n"
    turns = _plans(enc, both, cap=1)
    assert next(p for w, _r, _q, p in turns if w == "archer").actions[0].kind in {"charge", "move"}


# -- same target as an ally ---------------------------------------------------------


def test_same_target_as_follows_the_named_ally():
    gmap = make_map(["............"], zones=["A..B....B..A"], deployment={"west": "A", "east": "B"})
    lead = make_profile(name="Lead", hp_max=20, attacks=[ranged("bow", inc=100)],
                        initiative_mod=20)  # fmt: skip
    archer = make_profile(name="Archer", hp_max=20, attacks=[ranged("bow", inc=100)])
    foe = make_profile(name="Foe", hp_max=60, attacks=[melee(dmg="1d2")], speed_land_ft=5)
    enc = build_encounter(gmap, [("west", [lead, archer]), ("east", [foe, foe])])

    def targets(text):
        return {(w, r): p.actions[0].target_id for w, r, _q, p in _plans(enc, text, cap=3)}

    plain = targets("targets: [nearest]\n")
    assert plain[("lead", 1)] != plain[("archer", 1)]
    follow = targets("targets: [nearest]\nsame_target_as: Lead\n")
    for r in (1, 2, 3):
        assert follow[("archer", r)] == follow[("lead", r)] == "foe"


# -- phases and stances --------------------------------------------------------------


def _duel(zones="A............B", foe_speed=30):
    gmap = make_map(["." * len(zones)], zones=[zones], deployment={"west": "A", "east": "B"})
    p = make_profile(name="Brawler", hp_max=40, initiative_mod=20)
    q = make_profile(name="Foe", hp_max=40, speed_land_ft=foe_speed)
    return build_encounter(gmap, [("west", [p]), ("east", [q])])


@pytest.mark.parametrize(("stance", "kind"), [("total_defense", "total_defense"),
                                              ("withdraw", "withdraw")])  # fmt: skip
def test_stance(stance, kind):
    enc = _duel("....AB....")
    assert first_action(enc, "{}\n", "brawler").kind == "full_attack"
    assert first_action(enc, f"stance: {stance}\n", "brawler").kind == kind


def test_total_defense_until_contact_then_attack():
    enc = _duel()
    text = "phases:\n  - when: { until_contact: true }\n    then: { stance: total_defense }\n"
    turns = _plans(enc, text, cap=6)
    kinds = [p.actions[0].kind for *_x, p in turns]
    assert kinds[0] == "total_defense"
    assert "full_attack" in kinds
    first_blow = kinds.index("full_attack")
    assert set(kinds[:first_blow]) == {"total_defense"}
    assert "total_defense" not in kinds[first_blow:]
    assert _plans(enc, "{}\n", cap=1)[0][3].actions[0].kind in {"move", "charge"}


def test_phase_when_part_of_the_side_is_down():
    # two brawlers against a killer: once one falls, the other withdraws
    gmap = make_map(["..........", ".........."], zones=["...AB.....", "...A......"],
                    deployment={"west": "A", "east": "B"})  # fmt: skip
    p = make_profile(name="Brawler", hp_max=8, attacks=[melee(dmg="1d2")])
    killer = make_profile(name="Killer", hp_max=200, attacks=[melee(bonus=20, dmg="3d6")],
                          initiative_mod=30)  # fmt: skip
    enc = build_encounter(gmap, [("west", [p, p]), ("east", [killer])])
    text = "phases:\n  - when: { side_down_pct_at_least: 50 }\n    then: { stance: withdraw }\n"

    class Down(Recorder):
        def decide(self, obs):
            side = [c for c in obs.combatants if c.side == obs.actor.side]
            plan = super().decide(obs)
            self.turns[-1] = (*self.turns[-1], sum(not c.active for c in side) / len(side))
            return plan

    seen = 0
    for seed in range(10):
        west = Down(strategy(text))
        play_fight(enc, seed, {"west": west, "east": HeuristicPolicy()}, round_cap=6)
        for (_who, _r, _pct, plan, down), legal in zip(west.turns, west.withdraw_legal,
                                                       strict=True):  # fmt: skip
            if legal:
                assert (plan.actions[0].kind == "withdraw") == (down >= 0.5)
                seen += down >= 0.5
        baseline = _plans(enc, "{}\n", seed=seed, cap=6)
        assert all(pl.actions[0].kind != "withdraw" for *_x, pl in baseline)
    assert seen > 0


@pytest.mark.parametrize(
    ("when", "rounds"),
    [("round_at_least: 2", {2, 3}), ("round_at_most: 1", {1}),
     ("round_at_least: 2, round_at_most: 2", {2})],
)  # fmt: skip
def test_phase_rounds(when, rounds):
    enc = _duel("....AB....")
    text = f"phases:\n  - when: {{ {when} }}\n    then: {{ stance: total_defense }}\n"
    turns = _plans(enc, text, cap=3)
    assert {r for _w, r, _p, plan in turns if plan.actions[0].kind == "total_defense"} == rounds


def test_phase_own_hit_points_and_enemies_down():
    enc = _duel("....AB....")
    low = "phases:\n  - when: { own_hp_pct_below: 70 }\n    then: { stance: total_defense }\n"
    turns = []
    for seed in range(6):
        turns += _plans(enc, low, seed=seed, cap=8)
    assert any(pl.actions[0].kind == "total_defense" for *_x, pl in turns)
    assert all((pl.actions[0].kind == "total_defense") == (pct < 70) for _w, _r, pct, pl in turns)


def test_phase_when_part_of_the_enemies_is_down():
    gmap = make_map(["........", "........"], zones=["...AB...", "....B..."],
                    deployment={"west": "A", "east": "B"})  # fmt: skip
    p = make_profile(name="Brawler", hp_max=60, attacks=[melee(bonus=10, dmg="2d6")],
                     initiative_mod=20)  # fmt: skip
    weak = make_profile(name="Foe", hp_max=4, attacks=[melee(dmg="1d2")])
    enc = build_encounter(gmap, [("west", [p]), ("east", [weak, weak])])
    text = (
        "phases:\n  - when: { enemies_down_pct_at_least: 50 }\n"
        "    then: { stance: total_defense }\n"
    )
    turns = _plans(enc, text, cap=4)
    kinds = [p.actions[0].kind for *_x, p in turns]
    assert kinds[0] == "full_attack" and kinds[1:] and set(kinds[1:]) == {"total_defense"}
    assert "total_defense" not in [p.actions[0].kind for *_x, p in _plans(enc, "{}\n", cap=4)]


def test_the_first_phase_that_holds_applies():
    enc = _duel("....AB....")
    text = (
        "phases:\n"
        "  - when: { round_at_most: 1 }\n    then: { stance: withdraw }\n"
        "  - when: {}\n    then: { stance: total_defense }\n"
    )
    kinds = [(r, p.actions[0].kind) for _w, r, _q, p in _plans(enc, text, cap=3)]
    assert kinds == [(1, "withdraw"), (2, "total_defense"), (3, "total_defense")]


# -- charges ----------------------------------------------------------------------


def test_prefer_charge_charges_before_shooting():
    gmap = make_map(["........"], zones=["A......B"], deployment={"west": "A", "east": "B"})
    skirm = make_profile(name="Skirm", hp_max=30, initiative_mod=20,
                         attacks=[melee("axe", dmg="1d12"), ranged("bow", inc=100)])  # fmt: skip
    foe = make_profile(name="Foe", hp_max=40, attacks=[melee(dmg="1d2")])
    enc = build_encounter(gmap, [("west", [skirm]), ("east", [foe])])
    assert first_action(enc, "{}\n", "skirm").kind == "full_attack"
    assert first_action(enc, "prefer_charge: true\n", "skirm").kind == "charge"
    assert first_action(enc, "prefer_charge: true\ncharge: false\n", "skirm").kind == "full_attack"


# -- squares: provoking, flanking, cover, zone ----------------------------------------


def _opportunities(enc, text, fights=20, cap=6):
    """Attacks of opportunity made against the west side over ``fights`` fights."""
    west_ids = [c.id for c in enc.fresh_states() if c.side == "west"]
    total = 0
    for seed in range(fights):
        policy = strategy(text)
        log = play_fight(enc, seed, {"west": policy, "east": HeuristicPolicy()},
                         round_cap=cap, record=True).log  # fmt: skip
        for _r, _a, message, _rolls in lines(log or ()):
            if "attaque d'opportunité contre" in message:
                total += any(f"contre {i} " in message for i in west_ids)
    return total


def test_avoid_provoking_steps_out_before_shooting():
    gmap = make_map(["..........", ".........."], zones=["...AB.....", ".........."],
                    deployment={"west": "A", "east": "B"})  # fmt: skip
    archer = make_profile(name="Archer", hp_max=40, initiative_mod=20,
                          attacks=[melee("dagger", dmg="1d2"), ranged("bow", inc=100)])  # fmt: skip
    foe = make_profile(name="Foe", hp_max=40, attacks=[melee(dmg="1d4")], speed_land_ft=0)
    enc = build_encounter(gmap, [("west", [archer]), ("east", [foe])])
    assert _opportunities(enc, "engagement: ranged\n") > 0
    assert _opportunities(enc, "engagement: ranged\navoid_provoking: true\n") == 0
    step, shot = first_action_plan(enc, "engagement: ranged\navoid_provoking: true\n").actions
    assert (step.kind, shot.kind, shot.weapon_id) == ("5foot_step", "full_attack", "bow")


def test_avoid_provoking_fights_in_melee_when_no_step_keeps_the_shot():
    gmap = make_map(["#######", "#.....#", "#######"], zones=[".......", ".AB....", "......."],
                    deployment={"west": "A", "east": "B"})  # fmt: skip
    archer = make_profile(name="Archer", hp_max=40, initiative_mod=20,
                          attacks=[melee("dagger", dmg="1d2"), ranged("bow", inc=100)])  # fmt: skip
    foe = make_profile(name="Foe", hp_max=40, attacks=[melee(dmg="1d4")], speed_land_ft=0)
    enc = build_encounter(gmap, [("west", [archer]), ("east", [foe])])
    plain = first_action(enc, "engagement: ranged\n", "archer")
    wary = first_action(enc, "engagement: ranged\navoid_provoking: true\n", "archer")
    assert (plain.kind, plain.weapon_id) == ("full_attack", "bow")
    assert (wary.kind, wary.weapon_id) == ("full_attack", "dagger")


def first_action_plan(enc, text):
    west = Recorder(strategy(text))
    play_fight(enc, 3, {"west": west, "east": HeuristicPolicy()}, round_cap=1)
    return west.turns[0][3]


def test_avoid_provoking_walks_around_a_guard():
    rows = ["." * 14] * 5
    zones = ["." * 14, "." * 14, "A.....B.....B.", "." * 14, "." * 14]
    gmap = make_map(rows, zones=zones, deployment={"west": "A", "east": "B"})
    p = make_profile(name="Brawler", hp_max=40, initiative_mod=20)
    guard = make_profile(name="Guard", hp_max=40, attacks=[melee(dmg="1d4")], speed_land_ft=0)
    enc = build_encounter(gmap, [("west", [p]), ("east", [guard, guard])])
    # the far guard is the target: the charge line and the path brush past the near one
    assert _opportunities(enc, "focus: [guard-2]\n") > 0
    assert _opportunities(enc, "focus: [guard-2]\navoid_provoking: true\n") == 0
    turns = _plans(enc, "focus: [guard-2]\navoid_provoking: true\n", cap=4)
    assert any(plan.actions[-1].kind == "full_attack" and plan.actions[-1].target_id == "guard-2"
               for *_x, plan in turns)  # fmt: skip


class _Flanks(Recorder):
    """Also keeps, per full attack, whether it flanks its target."""

    def __init__(self, inner):
        super().__init__(inner)
        self.flanking = []

    def decide(self, obs):
        plan = super().decide(obs)
        action = plan.actions[0]
        if action.kind == "full_attack":
            self.flanking.append(obs.pair(action.target_id).flanking)
        return plan


def test_flank_moves_to_the_far_side_of_the_target():
    zones = ["........A.", "." * 10, "....AB....", "." * 10, "." * 10]
    gmap = make_map(["." * 10] * 5, zones=zones, deployment={"west": "A", "east": "B"})
    fighter = make_profile(name="Fighter", hp_max=40)
    foe = make_profile(name="Foe", hp_max=80, attacks=[melee(dmg="1d2")], speed_land_ft=0,
                       ac={"total": 18, "touch": 10, "flat_footed": 18})  # fmt: skip
    enc = build_encounter(gmap, [("west", [fighter, fighter]), ("east", [foe])])
    counts = {}
    for text in ("{}\n", "flank: true\n"):
        flanking = []
        for seed in range(10):
            west = _Flanks(strategy(text))
            play_fight(enc, seed, {"west": west, "east": HeuristicPolicy()}, round_cap=5)
            flanking += west.flanking
        counts[text] = sum(flanking)
    assert counts["{}\n"] == 0
    assert counts["flank: true\n"] > 40


class _Covered(Recorder):
    """Also keeps, per turn, whether the actor starts it in cover from a shooter."""

    def __init__(self, inner):
        super().__init__(inner)
        self.covered = []

    def decide(self, obs):
        shooters = [e.id for e in obs.enemies() if any(not a.is_melee for a in e.attacks)]
        self.covered.append(any(obs.cover_from(obs.actor.cell, e) > 0 for e in shooters))
        return super().decide(obs)


def test_use_cover_steps_behind_a_pillar_before_shooting():
    gmap = make_map(["............", "..C.........", "............"],
                    zones=["............", "...........B", ".A.........."],
                    deployment={"west": "A", "east": "B"})  # fmt: skip
    archer = make_profile(name="Archer", hp_max=40, attacks=[ranged("bow", inc=100)],
                          initiative_mod=20)  # fmt: skip
    shooter = make_profile(name="Shooter", hp_max=40, attacks=[ranged("bow", inc=100)],
                           speed_land_ft=0)  # fmt: skip
    enc = build_encounter(gmap, [("west", [archer]), ("east", [shooter])])
    share = {}
    for text in ("{}\n", "use_cover: true\n"):
        covered = []
        for seed in range(5):
            west = _Covered(strategy(text))
            play_fight(enc, seed, {"west": west, "east": HeuristicPolicy()}, round_cap=5)
            covered += west.covered
        share[text] = sum(covered) / len(covered)
    assert share["{}\n"] == 0
    assert share["use_cover: true\n"] >= 0.7


def test_hold_zone_never_ends_a_move_outside_it():
    enc = _duel("A............B")
    text = "hold_zone: { rows: [0, 0], cols: [0, 4] }\n"
    for seed in range(5):
        positions = _positions(enc, text, seed)
        assert all(col <= 4 for _row, col in positions), positions
        turns = _plans(enc, text, seed=seed, cap=6)
        assert any(p.actions[0].kind in {"ready", "full_attack"} for *_x, p in turns)
    assert max(col for _r, col in _positions(enc, "{}\n", 1)) > 4
    # from outside the zone, it heads into it (not past it), then stays there
    enc = _duel("A............B", foe_speed=0)
    back = _positions(enc, "hold_zone: { rows: [0, 0], cols: [8, 9] }\n", 1)
    assert all(col <= 9 for _r, col in back) and back[-1] in {(0, 8), (0, 9)}, back


def _positions(enc, text, seed):
    """Where the west brawler stands at the start of each of its turns, and at the end."""

    class Where(Recorder):
        def __init__(self, inner):
            super().__init__(inner)
            self.where = []

        def decide(self, obs):
            self.where.append(obs.actor.pos)
            return super().decide(obs)

    west = Where(strategy(text))
    result = play_fight(enc, seed, {"west": west, "east": HeuristicPolicy()}, round_cap=6)
    final = [divmod(c.pos, enc.gmap.width) for c in result.combatants if c.id == "brawler"]
    return west.where + final


# -- the whole spec ------------------------------------------------------------------

EVERYTHING = """\
target_roles: [healer, ranged]
flank: true
same_target_as: goblin
roles:
  ranged: { engagement: ranged, keep_distance_ft: 30, avoid_provoking: true, use_cover: true }
  goblin-3: { hold_zone: { rows: [0, 9], cols: [0, 9] }, prefer_charge: true }
combatant_roles: { orc-2: [leader] }
phases:
  - when: { side_down_pct_at_least: 50 }
    then: { stance: withdraw }
  - when: { until_contact: true }
    then: { stance: total_defense }
"""


def test_the_new_fields_round_trip_and_replay_bit_identically():
    from pathlib import Path

    from engine.content.creatures import load_combatant
    from engine.content.maps import load_map
    from policies.strategy import dump_strategy

    spec = parse_strategy(EVERYTHING)
    assert parse_strategy(dump_strategy(spec)) == spec
    root = Path(__file__).resolve().parent.parent
    gmap = load_map(root / "data/maps/sample_arena.yaml")
    g = load_combatant(root / "data/monsters/goblin.json")
    o = load_combatant(root / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    for seed in range(1, 6):
        logs = []
        for _ in range(2):
            policy = StrategyPolicy(spec)
            policies = {"players": policy, "monsters": HeuristicPolicy()}
            logs.append(play_fight(enc, seed, policies, record=True).log)
        assert logs[0] == logs[1]


# -- compiled texts: each new field the compiler produces changes play -----------------


def _compiled(text, enc, **answers):
    """``text`` compiled (scripted answers) for the west side of ``enc``, as YAML."""
    from test_strategy_compile import ByAspect

    from policies.strategy import dump_strategy
    from policies.strategy_compile import Roster, Unit, compile_strategy

    roster = Roster(tuple(Unit(p.id, p.profile.spec.name, p.side == "west")
                          for p in enc.placements))  # fmt: skip
    return dump_strategy(compile_strategy(text, ByAspect(**answers), roster))


def test_compiled_combatant_roles_change_the_first_target():
    enc = _line_of_roles()
    tagged = _compiled("The wizard is their leader; kill their leader first.", enc,
                       targets=["role:leader"])  # fmt: skip
    assert "combatant_roles:\n  Wizard:\n  - leader\n" in tagged
    plain = _compiled("Kill their leader first.", enc, targets=["role:leader"])
    assert "combatant_roles" not in plain
    assert first_action(enc, tagged, "archer", cap=1).target_id == "wizard"
    assert first_action(enc, plain, "archer", cap=1).target_id == "shaman"  # the derived one


def test_compiled_own_hit_point_condition_changes_play_below_it_only():
    enc = _duel("....AB....")
    text = _compiled("Below 70 % of your hit points, keep 10 feet away.", enc)
    assert "own_hp_pct_below: 70" in text and "keep_distance_ft: 10" in text
    seen = 0
    for seed in range(6):
        west = Recorder(strategy(text))
        play_fight(enc, seed, {"west": west, "east": HeuristicPolicy()}, round_cap=8)
        for (_w, _r, pct, plan), legal in zip(west.turns, west.withdraw_legal, strict=True):
            if legal:
                assert (plan.actions[0].kind == "withdraw") == (pct < 70)
                seen += pct < 70
        assert all(p.actions[0].kind != "withdraw" for *_x, p in _plans(enc, "{}\n", seed=seed,
                                                                          cap=8))  # fmt: skip
    assert seen > 0


def test_compiled_stance_fight_ends_the_side_stance():
    enc = _duel("....AB....")
    fight = _compiled("Défendez-vous totalement ; à partir du round 2, battez-vous.", enc,
                      stance=lambda allowed: allowed[1])  # fmt: skip
    assert "stance: fight" in fight
    kinds = [(r, p.actions[0].kind) for _w, r, _q, p in _plans(enc, fight, cap=3)]
    assert kinds == [(1, "total_defense"), (2, "full_attack"), (3, "full_attack")]
    alone = _compiled("Défendez-vous totalement.", enc, stance="total_defense")
    assert {p.actions[0].kind for *_x, p in _plans(enc, alone, cap=3)} == {"total_defense"}


def test_compiled_zone_keeps_the_moves_inside_it():
    enc = _duel("A............B")
    text = _compiled("Ne sortez jamais des colonnes 0 à 4.", enc)
    assert "hold_zone:" in text
    for seed in range(3):
        assert all(col <= 4 for _row, col in _positions(enc, text, seed))
    assert max(col for _r, col in _positions(enc, "{}\n", 1)) > 4
