"""The caster files of ``data/monsters`` and ``data/encounters/casters.yaml``.

Their numbers are checked against the stat blocks in ``tests/test_reference_monsters.py``;
here: their spells resolve in the shipped registry (``data/spells``), the encounter
puts casters and martial creatures on both sides and runs, and its report lists
under « Non modélisé » each listed spell the engine does not cast, with its reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.content.creatures import CombatantProfile, load_combatant
from engine.content.spellbook import build_spellbook
from engine.content.spells import default_registry
from engine.core.errors import DataError
from harness.cli.main import main
from harness.encounter_file import load_encounter_file

ROOT = Path(__file__).resolve().parents[1]
MONSTERS = ROOT / "data" / "monsters"
ENCOUNTER = ROOT / "data" / "encounters" / "casters.yaml"

#: the files of data/monsters that list spells
CASTERS = sorted(
    p.stem
    for p in MONSTERS.glob("*.json")
    if json.loads(p.read_text(encoding="utf-8")).get("spells")
)


def _sides() -> dict[str, list[CombatantProfile]]:
    loaded = load_encounter_file(ENCOUNTER)
    return {side: [load_combatant(path) for path, _ in members] for side, members in loaded.sides}


def test_the_shipped_casters() -> None:
    assert CASTERS == [
        "acolyte",
        "battle_mage",
        "cultist",
        "lich",
        "mercenary_magician",
        "shaman",
        "street_magician",
    ]


@pytest.mark.parametrize("stem", CASTERS)
def test_every_spell_resolves_in_the_registry(stem: str) -> None:
    """Each name a caster lists is a spell of ``data/spells`` (modelled or not)."""
    registry = default_registry()
    spec = load_combatant(MONSTERS / f"{stem}.json").spec
    unknown: list[str] = []
    for name in spec.spells:
        try:
            registry.resolve(name)
        except DataError as err:
            unknown.append(err.message)
    assert not unknown, f"{stem} ({len(registry.ids())} spell files in data/spells): {unknown}"


def test_the_encounter_file() -> None:
    """Casters on both sides, arcane and divine, with martial creatures (the
    shipped orcs and goblin); the usual runs and seed."""
    loaded = load_encounter_file(ENCOUNTER)
    assert (loaded.runs, loaded.seed, loaded.round_cap) == (1000, 1, 100)
    assert Path(loaded.map_path) == ROOT / "data" / "maps" / "sample_arena.yaml"
    sides = _sides()
    assert sorted(sides) == ["monsters", "players"]
    for side, profiles in sides.items():
        casters = [p for p in profiles if p.spec.spells]
        martial = [p.spec.name for p in profiles if not p.spec.spells]
        assert {p.spec.arcane_caster for p in casters} == {True, False}, side
        assert martial and set(martial) <= {"Goblin", "Orc"}, side


def test_the_encounter_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--encounter", str(ENCOUNTER), "--runs", "20"]) == 0
    out = capsys.readouterr().out
    assert "20 combats simulés (seed 1, plafond 100 rounds)" in out


def test_the_report_lists_each_spell_not_cast(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each spell a caster of the encounter lists and cannot cast is in the report's
    « Non modélisé » with its reason (the spellbook's), once per creature; no name is
    unknown to the registry; the spells it casts are not listed."""
    out = tmp_path / "report.json"
    assert main(["--encounter", str(ENCOUNTER), "--runs", "1", "--json", str(out)]) == 0
    capsys.readouterr()
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    rows = [
        (row["creature"], row["name"], row["why"])
        for row in report["unmodelled"]
        if row["name"].startswith("spells « ")
    ]
    expected: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for profiles in _sides().values():
        for profile in profiles:
            if not profile.spec.spells or profile.spec.name in seen:
                continue
            seen.add(profile.spec.name)
            book = build_spellbook(profile.spec, default_registry())
            expected += [(profile.spec.name, f"spells « {n} »", why) for n, why in book.unplayable]
    assert sorted(rows) == sorted(expected)
    assert not [row for row in rows if row[2].startswith("sort inconnu")]
