"""Data the engine does not play is never silently ignored (docs/rules.md, « Unmodelled data »).

A misspelled field or skill name is a loading error naming the closest known
name; what is accepted without effect (spells, resources, feats no rule reads …)
is listed once per run under « Non modélisé », in the terminal report, the JSON
object and the HTML page. Feats whose effect is in the file's printed numbers
(Weapon Focus, Improved Initiative …) and feats a rule reads are not listed.
"""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.content.creatures import CombatantProfile, load_combatant, parse_combatant
from engine.content.modelled import (
    INTEGRATED_FEATURES,
    READ_FEATURES,
    ROLLED_SKILLS,
    SKILL_FEATS,
    UNMODELLED_ATTACK_FIELDS,
    UNMODELLED_FIELDS,
    Unmodelled,
    feature_status,
    unmodelled,
)
from engine.content.spellbook import build_spellbook
from engine.content.spells import default_registry
from engine.core.errors import DataError
from engine.rules.skills import SKILL_ROLL
from harness.cli.main import main
from harness.encounter_file import load_encounter_file
from harness.report import UNMODELLED_INTRO
from harness.reporter import load_report, parse_report

ROOT = Path(__file__).resolve().parents[1]
ORC = json.loads((ROOT / "data" / "monsters" / "orc.json").read_text(encoding="utf-8"))
ARENA = str(ROOT / "data" / "maps" / "sample_arena.yaml")
GOBLIN = str(ROOT / "data" / "monsters" / "goblin.json")


def orc(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(ORC)
    out.update(changes)
    return out


def profile(**changes: Any) -> CombatantProfile:
    return parse_combatant(json.dumps(orc(**changes)))


def listed(**changes: Any) -> list[tuple[str, str]]:
    return [(u.kind, u.name) for u in unmodelled([profile(**changes)])]


# --------------------------------------------------------------------------- the registry


def test_the_shipped_monsters_list_only_what_no_rule_plays() -> None:
    """Improved Initiative (goblin) and Weapon Focus (orc) are in their numbers: the
    quick start's report is unchanged. The lich's auras and riders are played, its
    spells and items are not; the troglodyte's stench and Great Fortitude are."""
    monsters = ROOT / "data" / "monsters"
    quick = [load_combatant(monsters / f"{name}.json") for name in ("goblin", "orc", "troglodyte")]
    assert unmodelled(quick) == ()
    # (the casters' files: tests/test_casters_data.py)
    bestiary = ("ghoul", "goblin", "lich", "orc", "troglodyte")
    shipped = [load_combatant(monsters / f"{name}.json") for name in bestiary]
    lich = next(p for p in shipped if p.spec.name == "Lich")
    # its spells are played but those it cannot cast, each with its reason
    book = build_spellbook(lich.spec, default_registry())
    assert book.known and book.unplayable
    assert [(u.creature, u.name) for u in unmodelled(shipped)] == [
        ("Ghoul", "Channel Resistance +2"),
        *[
            ("Lich", name)
            for name in (
                *(f"spells « {name} »" for name, _ in book.unplayable),
                "metamagic_feats",
                "carried_items",
                "Craft Wondrous Item",
                "Improved Lightning Reflexes",
                "Scribe Scroll",
                "Channel Resistance +4",
            )
        ],
    ]


@pytest.mark.parametrize("feature", sorted(READ_FEATURES))
def test_a_feature_a_rule_reads_is_not_listed(feature: str) -> None:
    written = feature.title()
    assert feature_status(written) == "read"
    assert listed(features=[written]) == []


@pytest.mark.parametrize(
    "feature",
    ["Weapon Focus (falchion)", "improved initiative", "Toughness", "Iron Will", "Dodge",
     "Great Fortitude", "Lightning Reflexes", "Weapon Finesse", "Armor Proficiency (heavy)",
     "Improved Critical (falchion)", "  Weapon  Specialization (falchion) "],
)  # fmt: skip
def test_a_feature_in_the_files_numbers_is_not_listed(feature: str) -> None:
    assert feature_status(feature) == "integrated"
    assert listed(features=[feature]) == []


def test_a_feature_nothing_reads_is_listed_with_why() -> None:
    items = unmodelled([profile(features=["Power Attack", "Multiatack", "Cleave"])])
    assert [(u.name, u.why) for u in items] == [
        ("Power Attack", "aucune règle ne le lit"),
        ("Multiatack", "aucune règle ne le lit (vouliez-vous dire « multiattack » ?)"),
        ("Cleave", "aucune règle ne le lit"),
    ]


def test_a_read_feature_written_otherwise_is_listed() -> None:
    """The rules compare the name stripped and lower-cased: an argument or doubled
    spaces make it another name, which no rule reads."""
    items = unmodelled([profile(features=["Combat Reflexes (B)", "Precise  Shot"])])
    assert [u.why for u in items] == [
        "le moteur ne lit que « combat reflexes », écrit ainsi",
        "le moteur ne lit que « precise shot », écrit ainsi",
    ]
    dex = {"abilities": {**ORC["abilities"], "dex_score": 16}, "ac": {"armor": 3, "dex": 3}}
    assert profile(features=["Combat Reflexes"], **dex).aoo_per_round == 4
    assert profile(features=["Combat Reflexes (B)"], **dex).aoo_per_round == 1  # indeed unread


def test_skill_feats_count_when_the_file_gives_the_totals_of_the_skills_the_engine_rolls() -> None:
    by_ranks = {"Perception": {"rank": 1}}
    by_total = {"Perception": {"rank": 1, "total": 8}}
    for feature in ("Alertness", "Skill Focus (Perception)"):
        assert listed(features=[feature], skills=by_ranks) == [("feature", feature)]
        assert listed(features=[feature], skills=by_total) == []
        assert listed(features=[feature]) == [("feature", feature)]  # untrained roll
    # Intimidate and Knowledge are never rolled: nothing is missed
    assert listed(features=["Intimidating Prowess", "Skill Focus (Knowledge (arcana))"]) == []
    (item,) = unmodelled([profile(features=["Stealthy"])])
    assert item.why == "bonus non compté : donner le « total » de « stealth » dans « skills »"


def test_defensive_combat_training_counts_in_a_printed_cmd_only() -> None:
    assert listed(features=["Defensive Combat Training"], cmd=14) == []
    assert listed(features=["Defensive Combat Training"]) == [
        ("feature", "Defensive Combat Training")
    ]


def test_the_rolled_skills_are_those_the_rules_roll() -> None:
    assert frozenset(SKILL_ROLL) == ROLLED_SKILLS
    assert set(SKILL_FEATS).isdisjoint(INTEGRATED_FEATURES)
    assert set(READ_FEATURES).isdisjoint(INTEGRATED_FEATURES)


def test_every_feature_a_rule_or_a_policy_tests_is_in_the_registry() -> None:
    """A ``"name" in ….features`` test anywhere in the engine or the policies names a
    read feature, and every read feature is tested somewhere."""
    tested: set[str] = set()
    for folder in ("engine", "policies"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "modelled.py":
                continue
            text = path.read_text(encoding="utf-8")
            tested |= set(re.findall(r'"([a-z][a-z -]*)" (?:not )?in [\w.]*features\b', text))
    assert tested == set(READ_FEATURES)


def test_unmodelled_fields_are_listed_when_given() -> None:
    every = {
        "metamagic_feats": ["Extend Spell"],
        "resources": {"ki": 2},
        "carried_items": ["potion"],
        "summon_duration": 3,
    }
    assert set(every) == {name for name, _ in UNMODELLED_FIELDS}
    assert listed(**every) == [("field", name) for name, _ in UNMODELLED_FIELDS]
    # their defaults (and resources all at zero) say nothing
    assert listed(resources={"ki": 0}) == []
    # the casting fields are played: a castable spell and its casting data say nothing
    casting = {"spell_resistance": 12, "spell_slots": {"1": 2}, "casting_ability": "wis",
               "arcane_caster": True, "armor_spell_failure": 10}  # fmt: skip
    assert listed(spells=["magic missile"], **casting) == []
    # a name the registry does not know is listed, with why
    (item,) = unmodelled([profile(spells=["magic missile", "zzyzx qwerty"])])
    assert (item.name, item.why) == ("spells « zzyzx qwerty »", "sort inconnu « zzyzx qwerty »")
    attacks = copy.deepcopy(ORC["attacks"])
    attacks[1].update(hardness=5, hit_points=2)
    assert listed(attacks=attacks) == [
        ("field", f"attacks[1].{name}") for name, _ in UNMODELLED_ATTACK_FIELDS
    ]
    (first, _) = unmodelled([profile(attacks=attacks)])
    assert first.why == "« javelin » : pas d'attaque contre les armes (destruction)"


def test_each_datum_once_in_the_order_of_the_combatants_and_their_files() -> None:
    shaman = profile(name="Shaman", features=["Power Attack", "Toughness", "Cleave"],
                     spells=["zzyzx qwerty"])  # fmt: skip
    brute = profile(name="Brute", features=["Cleave", "Power Attack"])
    once = unmodelled([shaman, brute, shaman, brute])
    assert [(u.creature, u.name) for u in once] == [
        ("Shaman", "spells « zzyzx qwerty »"), ("Shaman", "Power Attack"), ("Shaman", "Cleave"),
        ("Brute", "Cleave"), ("Brute", "Power Attack"),
    ]  # fmt: skip
    assert unmodelled([shaman, brute, shaman, brute]) == once
    assert [u.creature for u in unmodelled([brute, shaman])][:2] == ["Brute", "Brute"]
    assert once[0] == Unmodelled("Shaman", "field", "spells « zzyzx qwerty »", once[0].why)


# --------------------------------------------------------------------------- errors instead


@pytest.mark.parametrize(
    ("field", "suggested"),
    [("spell", "spells"), ("feature", "features"), ("carried_item", "carried_items"),
     ("spel_slots", "spell_slots"), ("resource", "resources")],
)  # fmt: skip
def test_a_misspelled_field_is_an_error_naming_the_known_one(field: str, suggested: str) -> None:
    with pytest.raises(DataError) as info:
        parse_combatant(json.dumps(orc(**{field: []})))
    assert f"champ inconnu « {field} » (vouliez-vous dire « {suggested} » ?)" in str(info.value)


@pytest.mark.parametrize(
    ("skill", "message"),
    [("Stelth", "compétence inconnue « Stelth » (vouliez-vous dire « stealth » ?)"),
     ("Perceptoin", "compétence inconnue « Perceptoin » (vouliez-vous dire « perception » ?)"),
     ("Knowledge ()", "compétence inconnue « Knowledge () » (vouliez-vous dire « knowledge » ?)"),
     ("Listen", "compétence inconnue « Listen » : une compétence de Pathfinder est attendue")],
)  # fmt: skip
def test_an_unknown_skill_is_an_error_not_an_untrained_roll(skill: str, message: str) -> None:
    with pytest.raises(DataError) as info:
        parse_combatant(json.dumps(orc(skills={skill: {"rank": 4}})))
    assert info.value.location == "skills"
    assert message in str(info.value)


def test_skills_with_a_subject_and_odd_spacing_are_known() -> None:
    prof = profile(skills={"Knowledge (arcana)": {"rank": 1}, " sense  motive": {"rank": 1}})
    assert set(prof.spec.skills) == {"Knowledge (arcana)", " sense  motive"}


@pytest.mark.parametrize(
    ("text", "message"),
    [("round_caps: 10", "champ inconnu « round_caps » (vouliez-vous dire « round_cap » ?)"),
     ("sides: {players: {creature: [a.json]}}", "champ inconnu « creature »")],
)  # fmt: skip
def test_a_misspelled_encounter_key_is_an_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rencontre.yaml"
    base = "map: arena.yaml\n" + (
        "" if text.startswith("sides") else "sides: {p: {creatures: [a]}}\n"
    )
    path.write_text(base + text + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_encounter_file(path)
    assert message in str(info.value)


# --------------------------------------------------------------------------- the reports


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, Any], str]:
    shaman = tmp_path / "shaman.json"
    shaman.write_text(
        json.dumps(orc(name="Shaman", features=["Power Attack", "Weapon Focus (falchion)",
                                                "Multiattack", "Cleave"],
                       spells=["zzyzx qwerty"], spell_slots={"1": 1})),
        encoding="utf-8",
    )  # fmt: skip
    stats, page = tmp_path / "stats.json", tmp_path / "rapport.html"
    args = ["--map", ARENA, "--side", "players", GOBLIN, GOBLIN, "--side", "monsters",
            str(shaman), str(shaman), "--runs", "3",
            "--json", str(stats), "--html", str(page)]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    return out, load_report(str(stats)), page.read_text(encoding="utf-8")


def test_the_reports_list_each_datum_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, report, page = _run(tmp_path, capsys)
    section = out.split("=== Non modélisé ===\n", 1)[1]
    assert section.splitlines()[1:] == [
        "- Shaman, spells « zzyzx qwerty » — sort inconnu « zzyzx qwerty »",
        "- Shaman, « Power Attack », « Cleave » — aucune règle ne le lit",
    ]
    assert out.count("Power Attack") == 1 and "Weapon Focus" not in out
    assert "Multiattack" not in out
    assert [(r["creature"], r["kind"], r["name"]) for r in report["unmodelled"]] == [
        ("Shaman", "field", "spells « zzyzx qwerty »"),
        ("Shaman", "feature", "Power Attack"),
        ("Shaman", "feature", "Cleave"),
    ]
    assert page.count("<h2>Non modélisé</h2>") == 1
    assert page.count("Power Attack") == 1 and "Weapon Focus" not in page
    assert "<td>Shaman</td><td>« Power Attack », « Cleave »</td>" in html.unescape(page)
    # the saved object prints the same section again
    assert main(["report", str(tmp_path / "stats.json"), "--no-narrate"]) == 0
    again = capsys.readouterr().out
    assert again.split("=== Non modélisé ===\n", 1)[1] == section


def test_the_same_run_lists_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = _run(tmp_path / "a", capsys), _run(tmp_path / "b", capsys)
    assert first[1]["unmodelled"] == second[1]["unmodelled"]
    assert first[0].split("=== Non modélisé ===")[1] == second[0].split("=== Non modélisé ===")[1]


def test_a_report_without_gaps_has_no_section_and_an_empty_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stats = tmp_path / "stats.json"
    orc_file = str(ROOT / "data" / "monsters" / "orc.json")
    args = ["--map", ARENA, "--side", "players", GOBLIN, "--side", "monsters", orc_file,
            "--runs", "2", "--json", str(stats)]  # fmt: skip
    assert main(args) == 0
    assert "Non modélisé" not in capsys.readouterr().out
    assert load_report(str(stats))["unmodelled"] == []


def test_a_report_listing_a_datum_twice_is_refused() -> None:
    report = json.loads((ROOT / "tests" / "reports" / "ecrasant.json").read_text(encoding="utf-8"))
    assert "unmodelled" not in report  # written before the list: still read
    parse_report(json.dumps(report))
    row = {"creature": "Orc", "kind": "feature", "name": "Cleave", "why": "aucune règle ne le lit"}
    report["unmodelled"] = [row, row]
    with pytest.raises(DataError, match="deux fois"):
        parse_report(json.dumps(report))


# --------------------------------------------------------------------------- PRD stat blocks

_PSRD = ROOT.parent / "shared" / "reference-data" / "psrd-creatures.json"


def _psrd_feats(block: dict[str, Any]) -> list[str]:
    """A PRD block's feats as a file's ``features`` (tags and bonus-feat marks removed)."""
    text = re.sub(r"<[^>]+>B?</[^>]+>|<[^>]+>", "", html.unescape(block.get("feats", "")))
    return [f.strip() for f in re.split(r",(?![^(]*\))", text) if f.strip()]


def _psrd_skills(block: dict[str, Any]) -> dict[str, dict[str, int]]:
    """A PRD block's skills as totals (the printed bonuses), racial notes left out."""
    text = html.unescape(block.get("skills", "")).split(";")[0]
    out: dict[str, dict[str, int]] = {}
    for name, bonus in re.findall(r"([A-Z][A-Za-z ]*(?:\([^)]*\))?) ([+-]\d+)", text):
        out[name.strip()] = {"rank": 1, "total": int(bonus)}
    return out


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("bestiary/creature/goblin.json", []),
        ("bestiary/creature/bugbear.json", []),  # Skill Focus (Perception): in its total
        ("bestiary/creature/ogre.json", []),
        ("bestiary/creature/gnoll.json", ["Power Attack"]),
        ("bestiary/creature/lich.json",
         ["Craft Wondrous Item", "Extend Spell", "Improved Lightning Reflexes", "Maximize Spell",
          "Quicken Spell", "Scribe Scroll"]),
    ],
)  # fmt: skip
def test_prd_stat_blocks_feats(key: str, expected: list[str]) -> None:
    """The feats of real stat blocks, with the block's CMD and skill totals."""
    if not _PSRD.is_file():
        pytest.skip(f"reference data absent ({_PSRD})")
    block = json.loads(_PSRD.read_text(encoding="utf-8"))[key]
    cmd = int(re.match(r"\d+", html.unescape(block["cmd"])).group())  # type: ignore[union-attr]
    prof = profile(features=_psrd_feats(block), skills=_psrd_skills(block), cmd=cmd)
    assert [u.name for u in unmodelled([prof])] == expected


@pytest.mark.parametrize(
    ("command", "section"),
    [("experiment", "experiment:\n  side: players\n  arms: {a: heuristic, b: heuristic}\n"),
     ("sweep", "sweep:\n  side: players\n  variants: {zone: {}}\n  strategies: {h: heuristic}\n")],
)  # fmt: skip
def test_experiments_and_sweeps_list_them_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, section: str
) -> None:
    shaman = tmp_path / "shaman.json"
    shaman.write_text(json.dumps(orc(name="Shaman", features=["Cleave"])), encoding="utf-8")
    encounter = tmp_path / "rencontre.yaml"
    encounter.write_text(
        f"map: {ARENA}\nruns: 2\nsides:\n  players: {{creatures: [{GOBLIN}]}}\n"
        f"  monsters: {{creatures: [{shaman}, {shaman}]}}\n{section}",
        encoding="utf-8",
    )
    stats, page = tmp_path / "out.json", tmp_path / "page.html"
    pages = ["--html", str(page)] if command == "sweep" else []  # an experiment has no page
    assert main([command, "--encounter", str(encounter), "--json", str(stats), *pages]) == 0
    out = capsys.readouterr().out
    if pages:
        assert page.read_text(encoding="utf-8").count("<h2>Non modélisé</h2>") == 1
    assert out.endswith("=== Non modélisé ===\n" + UNMODELLED_INTRO + "\n"
                        "- Shaman, « Cleave » — aucune règle ne le lit\n")  # fmt: skip
    saved = json.loads(stats.read_text(encoding="utf-8"))
    assert [r["name"] for r in saved["unmodelled"]] == ["Cleave"]
