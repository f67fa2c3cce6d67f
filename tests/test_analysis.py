"""The deterministic analysis of a report object: facts, verdict, placeholders."""

from __future__ import annotations

import json
from pathlib import Path

from engine.run.stats import CombatantInfo, FightSummary, build_report
from harness.analysis import BALANCED, UNBALANCED, UNDECIDED, Thresholds, analyse, fill
from harness.narrative import template_narrative

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "tests" / "reports"


def load(name):
    return json.loads((REPORTS / f"{name}.json").read_text(encoding="utf-8"))


def report(wins, runs=1000, draws=0, rounds=5, cap=100, hits=(1, 1), damage=(5, 5), melee=(1, 1)):
    """Two sides of one combatant each: ``wins`` = (a's wins, b's wins)."""
    infos = (CombatantInfo("fighter", "a", "Fighter", 20), CombatantInfo("rogue", "b", "Rogue", 18))
    summaries = []
    for i in range(runs):
        winner = 0 if i < wins[0] else 1 if i < wins[0] + wins[1] else -1
        r = cap if winner == -1 and i < wins[0] + wins[1] + draws else rounds
        down = (int(winner != 0), int(winner != 1))
        summaries.append(
            FightSummary(
                winner,
                r,
                (
                    (hits[0], 0, damage[0], 3, 0, down[0], 0, melee[0]),
                    (hits[1], 0, damage[1], 3, 0, down[1], 0, melee[1]),
                ),
            )
        )
    return build_report(
        map_name="m",
        sides=("a", "b"),
        combatants=infos,
        runs=runs,
        seed=1,
        round_cap=cap,
        summaries=summaries,
    )


def test_separated_bands_give_an_unbalanced_verdict_for_the_side_ahead():
    a = analyse(report((590, 380)))
    assert (a.verdict, a.favoured) == (UNBALANCED, "a")
    verdict = a.facts[0]
    assert verdict.id == "verdict"
    assert "déséquilibrée" in verdict.opening and "en faveur de a" in verdict.opening
    assert "avance nette" in verdict.opening  # 59 % against 38 %: a gap of 0.20 or more


def test_overlapping_bands_give_a_balanced_verdict_and_no_side_favoured():
    a = analyse(report((500, 480)))
    assert (a.verdict, a.favoured) == (BALANCED, None)
    assert a.facts[0].opening.startswith("La rencontre est équilibrée")
    assert "levier:aucun" in [f.id for f in a.facts]


def test_the_side_ahead_is_found_whatever_its_position():
    a = analyse(report((150, 840)))
    assert a.favoured == "b"
    assert "avance écrasante" in a.facts[0].opening


def test_few_runs_make_the_verdict_fragile_and_advise_more_runs():
    a = analyse(report((6, 4), runs=10))
    ids = [f.id for f in a.facts]
    assert "precision" in ids and "levier:runs" in ids
    # 60 % against 40 % on 10 fights: the bands overlap, but wide bands show no balance
    assert a.verdict == UNDECIDED and a.favoured is None
    assert a.facts[0].opening == "Aucun camp ne se détache significativement"
    assert "équilibr" not in a.facts[0].template
    assert "levier:aucun" not in ids


def test_a_side_apart_from_another_is_never_called_balanced():
    # 3 sides, 40 fights: a wins 20, b 0, c 8. a's interval overlaps c's, so no side is
    # ahead of every other; but a is ahead of b beyond noise: no balance either
    a = analyse(_three_sides((20, 0, 8), runs=40))
    assert a.verdict == UNDECIDED and a.favoured is None
    verdict = a.facts[0]
    assert verdict.opening == "Aucun camp ne se détache seul en tête"
    assert verdict.rest.endswith("a devant b.")
    assert verdict.clause == "verdict:indecis"
    assert "levier:aucun" not in [f.id for f in a.facts]


def test_an_outsider_among_three_sides_is_no_balance_and_asks_for_no_no_change_lever():
    a = analyse(load("trois_camps_outsider"))
    assert a.verdict == UNDECIDED
    assert "bandits" in a.facts[0].rest.split("seuls ces écarts")[1]
    ids = [f.id for f in a.facts]
    assert "outsider" in ids and "levier:aucun" not in ids


def test_a_balanced_report_with_many_capped_fights_advises_the_cap_and_nothing_else():
    a = analyse(report((350, 350), draws=300, cap=20))
    ids = [f.id for f in a.facts]
    assert a.verdict == BALANCED
    assert "levier:plafond" in ids and "levier:aucun" not in ids


def _three_sides(wins, runs):
    """Three sides of one combatant each, ``wins`` per side (the rest: draws at the cap)."""
    infos = tuple(CombatantInfo(f"c{i}", side, "C", 10) for i, side in enumerate("abc"))
    summaries = []
    for i in range(runs):
        winner, acc = -1, 0
        for k, w in enumerate(wins):
            if acc <= i < acc + w:
                winner = k
            acc += w
        rows = tuple((1, 0, 5, 3, 0, int(winner != k), 0, 1) for k in range(3))
        summaries.append(FightSummary(winner, 5 if winner >= 0 else 10, rows))
    return build_report(
        map_name="m", sides=("a", "b", "c"), combatants=infos, runs=runs, seed=1,
        round_cap=10, summaries=summaries,
    )  # fmt: skip


def test_frequent_round_cap_draws_advise_a_higher_cap():
    a = analyse(report((350, 350), draws=300, cap=20))
    assert a.draws == "frequents"
    assert "levier:plafond" in [f.id for f in a.facts]


def test_no_draws_and_short_fights():
    a = analyse(report((600, 400), rounds=2))
    assert a.draws == "aucun" and a.length == "courts"


def test_a_combatant_that_never_hits_is_an_anomaly():
    a = analyse(report((990, 10), hits=(1, 0), damage=(5, 0)))
    ids = [f.id for f in a.facts]
    assert "inactif:rogue" in ids
    assert "attrition:b" in ids  # b deals no damage at all: one-sided attrition


def test_thresholds_are_settings():
    r = report((2700, 2300), runs=5000)
    assert "légère" in analyse(r).facts[0].opening
    loose = Thresholds(clear_margin=0.05)
    assert "nette" in analyse(r, loose).facts[0].opening


def test_three_sides_name_the_outsider():
    a = analyse(load("trois_camps_outsider"))
    outsider = next(f for f in a.facts if f.id == "outsider")
    assert outsider.subjects == ("bandits",)


def test_placeholders_are_filled_with_the_report_values_as_printed():
    r = load("ecrasant")
    a = analyse(r)
    text = "\n".join(template_narrative(a))
    side = r["sides"][0]
    assert f"{100 * side['rate']:.1f}%" in text
    assert "{" not in text and "}" not in text
    for fact in a.facts:
        assert "%" not in fact.template and "." not in fact.opening  # values come from placeholders
        for name in fact.placeholders:
            assert name in a.values
    assert fill("{taux_players}", a.values) == f"{100 * side['rate']:.1f}%"


def test_analysis_is_deterministic():
    r = load("nuls_plafond")
    assert analyse(r) == analyse(json.loads(json.dumps(r)))


# -- a side that never reaches melee ----------------------------------------------------------
def test_a_side_that_never_makes_a_melee_attack_is_an_anomaly():
    a = analyse(report((700, 280), melee=(1, 0)))
    fact = next(f for f in a.facts if f.kind == "melee")
    assert fact.id == "contact:b"
    assert fact.opening == "Anomalie : le camp b n'atteint jamais le corps à corps"
    assert fact.subjects == ("b", "rogue")
    assert [f.kind for f in a.facts].count("melee") == 1  # side a fights in melee every time


def test_a_side_that_rarely_reaches_melee_gets_its_shares_filled_from_the_report():
    r = report((500, 480))
    rogue = next(c for c in r["combatants"] if c["id"] == "rogue")
    rogue["melee_total"], rogue["melee_mean"] = 20, 0.02
    a = analyse(r)
    fact = next(f for f in a.facts if f.kind == "melee")
    assert "presque jamais" in fact.opening
    assert fill(fact.template, a.values).endswith("rogue 2.0%.")
    # at the threshold (5 % of fights) it is no longer called rare
    rogue["melee_total"], rogue["melee_mean"] = 50, 0.05
    assert not [f for f in analyse(r).facts if f.kind == "melee"]
    assert Thresholds().melee_rare == 0.05


def test_a_report_written_before_the_melee_counter_says_nothing_about_melee():
    r = report((700, 280), melee=(1, 0))
    for c in r["combatants"]:  # as --json wrote it before the counter existed
        del c["melee_total"], c["melee_mean"]
    assert not [f for f in analyse(r).facts if f.kind == "melee"]


def test_the_engine_counts_fights_with_a_melee_attack(tmp_path):
    """Goblins armed with a bow only never strike in melee; an orc without javelins must."""
    from harness.cli.main import main

    def armed(name, kind):
        data = json.loads((ROOT / "data" / "monsters" / f"{name}.json").read_text("utf-8"))
        data["attacks"] = [a for a in data["attacks"] if a["kind"] == kind]
        path = tmp_path / f"{name}_{kind}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return str(path)

    archer, brute = armed("goblin", "ranged"), armed("orc", "melee")
    out = tmp_path / "r.json"
    rc = main(
        [
            "--map", str(ROOT / "data" / "maps" / "sample_arena.yaml"),
            "--side", "players", archer, archer,
            "--side", "monsters", brute,
            "--runs", "40", "--seed", "3", "--workers", "1", "--json", str(out),
        ]
    )  # fmt: skip
    assert rc == 0
    r = json.loads(out.read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in r["combatants"]}
    assert by_id["goblin"]["melee_total"] == by_id["goblin-2"]["melee_total"] == 0
    assert 0 < by_id["orc"]["melee_total"] <= 40
    assert by_id["orc"]["melee_mean"] == by_id["orc"]["melee_total"] / 40
    fact = next(f for f in analyse(r).facts if f.kind == "melee")
    assert fact.opening == "Anomalie : le camp players n'atteint jamais le corps à corps"


# -- intervals, length and the carrier say only what the numbers support (issue 15) --


def test_a_side_that_never_wins_gets_a_wilson_interval_of_some_width():
    """0 wins out of 1000: the 3σ band is [0.0%, 0.0%]; the Wilson interval is not."""
    r = report((1000, 0))
    b = r["sides"][1]
    assert b["band_3sigma"] == [0.0, 0.0]
    z, n = 3.0, 1000
    assert b["wilson_3sigma"][0] == 0.0
    assert abs(b["wilson_3sigma"][1] - z * z / (n + z * z)) < 1e-12  # closed form at p = 0
    a = analyse(r)
    assert a.values["bande_b"] == "[0.0%, 0.9%]"


def test_the_verdict_reads_wilson_intervals_computed_for_older_reports():
    r = report((600, 400), runs=1000)
    old = json.loads(json.dumps(r))
    for s in old["sides"]:
        del s["wilson_3sigma"]
    del old["draws"]["wilson_3sigma"]
    assert analyse(old).values == analyse(r).values


def test_fights_stopped_by_the_cap_are_not_called_short():
    """87 % of fights at a cap of 3 rounds: the mean (3.0) says nothing of their length."""
    r = report((70, 60), runs=1000, draws=870, rounds=2, cap=3)
    a = analyse(r)
    length = next(f for f in a.facts if f.kind == "length")
    assert a.length == "plafonnes"
    text = fill(length.template, a.values)
    assert "courts" not in text
    assert text == (
        "La durée des combats est bornée par le plafond de rounds : 87.0% des combats "
        "l'atteignent (3 rounds) ; les autres durent 2.0 rounds en moyenne."
    )


def test_a_few_capped_fights_do_not_lengthen_the_mean_of_the_others():
    """2 % of fights at a cap of 100: the mean of all is 6.9 rounds, of the others 5.0."""
    r = report((500, 480), runs=1000, draws=20, rounds=5, cap=100)
    assert abs(r["rounds"]["mean"] - 6.9) < 1e-9
    a = analyse(r)
    assert a.length == "moyens"
    assert a.values["rounds_decides"] == "5.0"


def test_the_carrier_is_named_only_beyond_noise():
    """Identical combatants never carry the fight; one dealing twice as much does."""
    from engine.run.stats import Tally

    def with_damage(first, second):
        infos = (
            CombatantInfo("fighter", "a", "Fighter", 20),
            CombatantInfo("rogue", "b", "Rogue", 18),
        )
        tally = Tally(2, 2)
        for i in range(400):
            # deterministic spread: both vary, around their own means
            d1, d2 = first + (i % 5) - 2, second + (i % 7) - 3
            tally.add(
                FightSummary(i % 2, 5, ((1, 0, d1, 3, 0, 0, 0, 1), (1, 0, d2, 3, 0, 0, 0, 1)))
            )
        return build_report(
            map_name="m", sides=("a", "b"), combatants=infos, runs=400, seed=1,
            round_cap=100, summaries=tally,
        )  # fmt: skip

    same = analyse(with_damage(6, 6))
    assert not any(f.kind == "carry" for f in same.facts)
    clear = analyse(with_damage(12, 6))
    carry = next(f for f in clear.facts if f.kind == "carry")
    assert carry.subjects == ("fighter", "a")
