"""Scripted policies, per-side policy selection and encounter files."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import make_map, make_profile, melee, ranged

from engine.core.errors import DataError
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from harness.cli.main import main
from harness.encounter_file import load_encounter_file
from harness.transcript import lines
from policies.heuristic import HeuristicPolicy
from policies.scripted import ScriptedPolicy, parse_script

ROOT = Path(__file__).resolve().parent.parent
QUICK = [
    "--map", "data/maps/sample_arena.yaml",
    "--side", "players", "data/monsters/goblin.json", "data/monsters/goblin.json",
    "data/monsters/goblin.json",
    "--side", "monsters", "data/monsters/orc.json", "data/monsters/orc.json",
]  # fmt: skip


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def run(capsys, args):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# -- script files ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("rules:\n  - if: { own_hp_below_pct: 3 }\n    do: wait\n", "own_hp_pct_below"),
        ("rules:\n  - do: dance\n", "valeurs possibles"),
        ("rules:\n  - do: withdraw\n    weapon: bow\n", "weapon"),
        ("rules: []\n", "rules"),
        ("rules:\n  - iff: {}\n    do: wait\n", "vouliez-vous dire « if » ?"),
        ("fallback: flee\nrules:\n  - do: wait\n", "fallback"),
        ("rules: [\n", "YAML invalide"),
        ("rules:\n  - do: attack\n    spell: sleep\n", "« spell » n'a de sens qu'avec cast_spell"),
    ],
)
def test_bad_scripts_are_data_errors(text, needle):
    with pytest.raises(DataError) as info:
        parse_script(text, "s.yaml")
    assert needle in str(info.value)


def _arena():
    gmap = make_map(
        ["..........", "..........", ".........."],
        zones=["A........B", "A.........", ".........B"],
        deployment={"west": "A", "east": "B"},
    )
    archer = make_profile(
        name="Archer", hp_max=20, attacks=[melee("dagger"), ranged("bow", inc=100)]
    )
    weak = make_profile(name="Weak", hp_max=3, attacks=[melee(dmg="1d2")])
    strong = make_profile(name="Strong", hp_max=30, attacks=[melee(dmg="1d2")])
    return build_encounter(gmap, [("west", [archer, archer]), ("east", [strong, weak])])


class Recorder:
    def __init__(self, inner):
        self.inner = inner
        self.plans = []

    def decide(self, obs):
        plan = self.inner.decide(obs)
        self.plans.append((obs.acting_id, plan))
        return plan


def test_target_selector_and_weapon_are_followed():
    enc = _arena()
    script = parse_script(
        "fallback: wait\nrules:\n  - do: full_attack\n    target: weakest\n    weapon: bow\n"
    )
    west = Recorder(ScriptedPolicy(script))
    play_fight(enc, 4, {"west": west, "east": HeuristicPolicy()}, round_cap=3)
    first = next(p for who, p in west.plans if who == "archer")
    action = first.actions[0]
    assert (action.kind, action.target_id, action.weapon_id) == ("full_attack", "weak", "bow")
    assert first.rationale.startswith("règle 1 :")


def test_conditions_gate_rules_and_fallback_wait():
    enc = _arena()
    script = parse_script(
        "fallback: wait\nrules:\n"
        "  - if: { round_at_least: 2 }\n    do: full_attack\n    target: strongest\n"
    )
    west = Recorder(ScriptedPolicy(script))
    play_fight(enc, 4, {"west": west, "east": HeuristicPolicy()}, round_cap=2)
    by_round = [p for who, p in west.plans if who == "archer"]
    assert by_round[0].actions[0].kind == "wait"
    assert by_round[0].rationale == "aucune règle applicable : attendre"
    assert by_round[1].actions[0].target_id == "strong"


def test_withdraw_rule():
    gmap = make_map([".........."], zones=["...A..B..."], deployment={"west": "A", "east": "B"})
    p = make_profile()
    enc = build_encounter(gmap, [("west", [p]), ("east", [p])])
    script = parse_script("rules:\n  - if: { own_hp_pct_at_least: 0 }\n    do: withdraw\n")
    west = Recorder(ScriptedPolicy(script))
    result = play_fight(enc, 2, {"west": west, "east": HeuristicPolicy()}, round_cap=1, record=True)
    assert west.plans[0][1].actions[0].kind == "withdraw"
    assert any("retraite (0,3)->(0,2)->(0,1)->(0,0)" in m for _r, _a, m, _x in lines(result.log))


def test_defensive_rules_total_defense_and_defensive_full_attack():
    gmap = make_map(["......"], zones=["..AB.."], deployment={"west": "A", "east": "B"})
    p = make_profile(hp_max=20)
    enc = build_encounter(gmap, [("west", [p]), ("east", [p])])
    script = parse_script(
        "rules:\n"
        "  - if: { round_at_least: 2 }\n    do: total_defense\n"
        "  - do: defensive_full_attack\n    weapon: sword\n"
    )
    west = Recorder(ScriptedPolicy(script))
    result = play_fight(enc, 3, {"west": west, "east": HeuristicPolicy()}, round_cap=3, record=True)
    kinds = [tuple(a.kind for a in plan.actions) for _who, plan in west.plans]
    assert kinds[:2] == [("fight_defensively", "full_attack"), ("total_defense",)]
    log = [(r, m) for r, who, m, _x in lines(result.log) if who == "dummy"]
    assert (1, "combat sur la défensive (-4 à l'attaque, +2 CA)") in log
    assert (2, "défense totale (+4 CA)") in log


def test_scripted_actions_are_never_rejected():
    enc = _arena()
    script = parse_script(
        "fallback: wait\nrules:\n"
        "  - if: { own_hp_pct_below: 40 }\n    do: withdraw\n"
        "  - do: charge\n  - do: step_full_attack\n  - do: full_attack\n    target: weakest\n"
        "  - do: move_attack\n  - do: move\n"
    )
    policy = ScriptedPolicy(script)
    for seed in range(30):
        result = play_fight(enc, seed, {"west": policy, "east": policy}, round_cap=20)
        for c in result.combatants:
            assert all(r.ok for r in c.last_results), (seed, c.id, c.last_results)


# -- CLI: --policy and --encounter ----------------------------------------------


def test_encounter_file_reproduces_the_quick_start(capsys):
    code, by_file, _ = run(
        capsys, ["--encounter", "data/encounters/quickstart.yaml", "--runs", "200"]
    )
    assert code == 0
    code, by_flags, _ = run(capsys, [*QUICK, "--runs", "200"])
    assert code == 0 and by_file == by_flags


def test_policy_flag_changes_the_outcome_and_is_reported(capsys, tmp_path):
    code, base, _ = run(capsys, [*QUICK, "--runs", "200"])
    report = tmp_path / "r.json"
    code, scripted, _ = run(
        capsys,
        [
            *QUICK,
            "--runs",
            "200",
            "--policy",
            "monsters=scripted:data/scripts/orc_brute.yaml",
            "--json",
            str(report),
        ],
    )
    assert code == 0 and scripted != base
    assert (
        "Politiques : players heuristic, monsters scripted:data/scripts/orc_brute.yaml" in scripted
    )
    assert '"orc-2": "scripted:data/scripts/orc_brute.yaml"' in report.read_text(encoding="utf-8")


def test_scripted_encounter_is_identical_for_any_worker_count(capsys):
    args = ["--encounter", "data/encounters/scripted_brutes.yaml", "--runs", "120"]
    _, one, _ = run(capsys, [*args, "--workers", "1"])
    _, two, _ = run(capsys, [*args, "--workers", "2"])
    assert one == two


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--policy", "monsters=llama"], "politique inconnue"),
        (["--policy", "monsters=llm", "--model", "replay:nope.json"], "cassette introuvable"),
        (["--policy", "monsters=llm", "--model", "martian"], "modèle inconnu"),
        (["--record", "x.json"], "--record n'a de sens"),
        (["--policy", "monsters"], "CAMP=POLITIQUE"),
        (["--policy", "dragons=heuristic"], "camp inconnu « dragons »"),
        (["--policy", "monsters=scripted:nope.yaml"], "fichier introuvable"),
        (["--policy", "monsters=scripted:"], "attend un fichier"),
        (["--encounter", "data/encounters/quickstart.yaml"], "--encounter remplace"),
    ],
)
def test_policy_and_encounter_errors_exit_2(capsys, args, needle):
    code, out, err = run(capsys, [*QUICK, "--runs", "5", *args])
    assert code == 2 and out == ""
    assert err.startswith("pf1e-sim: erreur : ") and err.count("\n") == 1
    assert needle in err


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("sides: {}\n", "map"),
        ("map: m.yaml\nsides: {a: {creatures: []}}\n", "creatures"),
        (
            "map: m.yaml\nsides: {a: {creatures: [x.json]}}\nrunz: 3\n",
            "vouliez-vous dire « runs » ?",
        ),
        ("map: m.yaml\nsides: {a: {creatures: [x.json], policy: bogus}}\n", "politique inconnue"),
    ],
)
def test_bad_encounter_files(tmp_path, text, needle):
    path = tmp_path / "e.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_encounter_file(path)
    assert needle in str(info.value)


def test_encounter_paths_are_relative_to_the_file():
    loaded = load_encounter_file("data/encounters/scripted_brutes.yaml")
    assert loaded.map_path == "data/maps/sample_arena.yaml"
    players = dict(loaded.sides)["players"]
    assert str(players[0][1]) == "scripted:data/scripts/goblin_archer.yaml"
    assert str(players[1][1]) == "heuristic"


def test_a_script_casts_at_the_target_it_selects():
    """``cast_spell`` picks among the menu's casts: a spell by name, at an enemy
    selected as usual, at a dying ally, or the first placement of an area."""
    from builders import battle, make_map, make_profile, state

    from engine.content.actions import CastSpellAction
    from policies.scripted import ScriptedPolicy

    gmap = make_map(["..........", "..........", ".........."])
    mage = make_profile(name="Mage", level=3, casting_ability="int", spell_slots={"1": 2},
                        spells=["cure light wounds", "magic missile", "sleep"],
                        abilities={"str_score": 10, "dex_score": 10, "con_score": 10,
                                   "int_score": 14})  # fmt: skip
    m = state("mage", "a", mage, gmap, (1, 0))
    ally = state("ally", "a", make_profile(name="Ally", hp_max=10), gmap, (1, 1), 1, hp=-2)
    weak = state("weak", "b", make_profile(name="Weak", hp_max=3), gmap, (0, 8), 2)
    strong = state("strong", "b", make_profile(name="Strong", hp_max=30), gmap, (2, 8), 3)
    b = battle(gmap, [m, ally, weak, strong])

    def plan(text: str):
        return ScriptedPolicy(parse_script(text)).decide(b.observe(m)).actions

    cast = "rules:\n  - do: cast_spell\n    spell: {}\n    target: {}\n"
    assert plan(cast.format("cure light wounds", "dying_ally")) == (
        CastSpellAction(spell_name="cure-light-wounds", target_id="ally"),
    )
    assert plan(cast.format("Magic Missile", "strongest")) == (
        CastSpellAction(spell_name="magic-missile", target_id="strong"),
    )
    (sleep,) = plan(cast.format("sleep", "area"))
    assert isinstance(sleep, CastSpellAction) and sleep.target_pos is not None
    # no dying ally: the rule does not apply, the fallback plays
    ally.hp = 5
    ally.refresh()
    assert (
        plan(cast.format("cure light wounds", "dying_ally") + "fallback: wait\n")[0].kind == "wait"
    )
