"""The shipped monsters match the PRD Bestiary stat blocks.

``psrd-creatures.json`` (shared reference data, OGL) maps keys such as
``bestiary/creature/goblin.json`` to stat blocks whose values are display strings
(``"ac": "16, touch 13, flat-footed 14 (...)"``, ``"melee": "short sword +2
(1d4/19-20)"``). These tests parse the strings and compare them with
``data/monsters/*.json`` as loaded by the engine.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.content.creatures import AC_COMPONENTS, AttackProfile, CombatantProfile, load_combatant
from engine.core.dice import DiceExpr, compile_dice

REPO = Path(__file__).resolve().parents[1]
MONSTERS = REPO / "data" / "monsters"
_REFERENCE_CANDIDATES = (
    REPO.parent / "shared" / "reference-data" / "psrd-creatures.json",
    REPO / "shared" / "reference-data" / "psrd-creatures.json",
)

#: data/monsters file stem -> key in psrd-creatures.json
MONSTER_KEYS = {
    "goblin": "bestiary/creature/goblin.json",
    "orc": "bestiary/creature/orc.json",
}


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    for path in _REFERENCE_CANDIDATES:
        if path.is_file():
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return data
    pytest.skip(
        "reference data absent (psrd-creatures.json not found in "
        + ", ".join(str(p) for p in _REFERENCE_CANDIDATES)
        + ")"
    )


@pytest.fixture(params=sorted(MONSTER_KEYS))
def pair(
    request: pytest.FixtureRequest, reference: dict[str, Any]
) -> tuple[dict[str, str], CombatantProfile]:
    stem: str = request.param
    block = reference.get(MONSTER_KEYS[stem])
    if block is None:
        pytest.skip(f"{MONSTER_KEYS[stem]} absent from the reference data")
    text = {k: html.unescape(v).strip() for k, v in block.items() if isinstance(v, str)}
    return text, load_combatant(MONSTERS / f"{stem}.json")


# --------------------------------------------------------------------------- parsing helpers


def _int(text: str) -> int:
    """``"+3"``, ``"-1"``, ``"16"`` -> int (the first signed number in the text)."""
    match = re.search(r"[+-]?\d+", text.replace("–", "-").replace("—", "-"))
    assert match, f"no number in {text!r}"
    return int(match.group())


def _ability(text: str) -> int | None:
    return None if text.strip() in ("—", "-", "") else _int(text)


def _ac(text: str) -> tuple[int, int, int]:
    match = re.match(r"(\d+), touch (\d+), flat-footed (\d+)", text)
    assert match, f"unparsed AC {text!r}"
    total, touch, flat = match.groups()
    return int(total), int(touch), int(flat)


#: PRD component name -> ACBreakdown field
_AC_PARTS = {
    "armor": "armor",
    "shield": "shield",
    "natural": "natural_armor",
    "deflection": "deflection",
    "Dex": "dex",
    "dodge": "dodge",
    "size": "size",
}


def _ac_components(text: str) -> dict[str, int]:
    """``"16, … (+2 armor, +2 Dex, +1 shield, +1 size)"`` -> ``{"armor": 2, "dex": 2, …}``
    (conditional bonuses after ``;`` left out)."""
    match = re.search(r"\(([^)]*)\)", text)
    assert match, f"no components in {text!r}"
    out: dict[str, int] = {}
    for part in match.group(1).split(";")[0].split(","):
        found = re.fullmatch(r"([+-]\d+) (\w+)", part.strip().replace("–", "-"))
        assert found, f"unparsed AC component {part!r} in {text!r}"
        out[_AC_PARTS[found.group(2)]] = int(found.group(1))
    return out


def _split_top_level(text: str) -> list[str]:
    """Split an attack line on commas and " or " outside parentheses."""
    parts: list[str] = []
    depth = 0
    current = ""
    i = 0
    while i < len(text):
        ch = text[i]
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == ",":
            parts.append(current)
            current = ""
        elif depth == 0 and text.startswith(" or ", i):
            parts.append(current)
            current = ""
            i += 3
        else:
            current += ch
        i += 1
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


@dataclass(frozen=True)
class RefAttack:
    name: str
    count: int
    bonus: int
    dice: DiceExpr
    crit_range: int
    crit_mult: int


_ATTACK = re.compile(
    r"^(?:(?P<count>\d+) )?(?P<name>.+?) (?P<bonus>[+-]\d+)(?:/[+-]\d+)*"
    r"(?: (?:melee |ranged )?touch)? \((?P<body>[^)]*)\)$"
)


def _attacks(line: str) -> list[RefAttack]:
    out: list[RefAttack] = []
    for part in _split_top_level(line):
        match = _ATTACK.match(part)
        assert match, f"unparsed attack {part!r}"
        body = match.group("body").split(" plus ")[0]
        dice_text, *extras = body.split("/")
        crit_range, crit_mult = 20, 2
        for extra in extras:
            if found := re.fullmatch(r"(\d+)-20", extra.strip()):
                crit_range = int(found.group(1))
            elif found := re.fullmatch(r"[×x](\d+)", extra.strip()):
                crit_mult = int(found.group(1))
            else:
                raise AssertionError(f"unparsed critical {extra!r} in {part!r}")
        out.append(
            RefAttack(
                name=match.group("name").strip(),
                count=int(match.group("count") or 1),
                bonus=int(match.group("bonus")),
                dice=compile_dice(dice_text.strip()),
                crit_range=crit_range,
                crit_mult=crit_mult,
            )
        )
    return out


def _total_dice(attack: AttackProfile) -> DiceExpr:
    """The attack's damage as one expression: its dice, flats and damage_bonus."""
    terms = tuple(t for part in attack.parts for t in part.dice.terms)
    flat = sum(part.dice.flat for part in attack.parts) + attack.damage_bonus
    return DiceExpr(terms, flat)


# --------------------------------------------------------------------------- parser self-checks


def test_attack_parser() -> None:
    sword, bow = _attacks("short sword +2 (1d4/19-20) or short bow +4 (1d4/×3)")
    assert (sword.name, sword.bonus, str(sword.dice), sword.crit_range, sword.crit_mult) == (
        "short sword",
        2,
        "1d4",
        19,
        2,
    )
    assert (bow.name, bow.crit_range, bow.crit_mult) == ("short bow", 20, 3)
    (claws,) = _attacks("2 claws +5 (1d6+2 plus grab)")
    assert (claws.count, claws.name, str(claws.dice)) == (2, "claws", "1d6+2")
    assert _ac("16, touch 13, flat-footed 14 (+2 armor)") == (16, 13, 14)
    goblin = _ac_components("16, touch 13, flat-footed 14 (+2 armor, +2 Dex, +1 shield, +1 size)")
    assert goblin == {"armor": 2, "dex": 2, "shield": 1, "size": 1}
    deva = _ac_components("29 (+4 Dex, +15 natural; +4 deflection vs. evil)")
    assert deva == {"dex": 4, "natural_armor": 15}
    assert _int("-1") == -1
    assert _ability("—") is None


# --------------------------------------------------------------------------- comparisons


def test_identity(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    spec = monster.spec
    assert spec.name == ref["name"]
    assert spec.size == ref["size"]
    assert spec.alignment == ref["alignment"]
    assert spec.creature_type == ref["creature_type"].lower()
    assert str(spec.cr) == ref["cr"]
    assert spec.xp == _int(ref["xp"].replace(",", ""))


def test_armor_class(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    ac = monster.ac
    assert (ac.total, ac.touch, ac.flat_footed) == _ac(ref["ac"])
    # the file gives the stat block's components, not only its totals
    assert not ac.derived
    given = {name: value for name in AC_COMPONENTS if (value := getattr(ac, name))}
    assert given == _ac_components(ref["ac"])


def test_hit_points(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    assert monster.spec.hp_max == _int(ref["hp"])


def test_abilities(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    scores = monster.spec.abilities
    assert scores.str_score == _ability(ref["strength"])
    assert scores.dex_score == _ability(ref["dexterity"])
    assert scores.con_score == _ability(ref["constitution"])
    assert scores.int_score == _ability(ref["intelligence"])
    assert scores.wis_score == _ability(ref["wisdom"])
    assert scores.cha_score == _ability(ref["charisma"])


def test_saves(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    saves = monster.spec.saves
    assert (saves.fort, saves.ref, saves.will) == (
        _int(ref["fortitude"]),
        _int(ref["reflex"]),
        _int(ref["will"]),
    )


def test_initiative_and_bab(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    assert monster.spec.initiative_mod == _int(ref["init"])
    assert monster.spec.bab == _int(ref["base_attack"])


def test_speed(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    speed = ref["speed"]
    land = re.match(r"(\d+) ft", speed)
    assert land, f"unparsed speed {speed!r}"
    assert monster.spec.speed_land_ft == int(land.group(1))
    fly = re.search(r"fly (\d+) ft", speed)
    assert monster.spec.speed_fly_ft == (int(fly.group(1)) if fly else None)


@pytest.mark.parametrize("line", ["melee", "ranged"])
def test_attacks(pair: tuple[dict[str, str], CombatantProfile], line: str) -> None:
    ref, monster = pair
    expected = _attacks(ref[line]) if line in ref else []
    ours = [a for a in monster.attacks if a.is_melee == (line == "melee")]
    assert sorted(a.name.lower() for a in ours) == sorted(a.name.lower() for a in expected)
    for ref_attack in expected:
        (attack,) = [a for a in ours if a.name.lower() == ref_attack.name.lower()]
        label = f"{monster.name} / {attack.name}"
        assert attack.attack_bonus == ref_attack.bonus, label
        assert attack.count == ref_attack.count, label
        assert _total_dice(attack) == ref_attack.dice, label
        assert attack.crit_range == ref_attack.crit_range, label
        assert attack.crit_mult == ref_attack.crit_mult, label
        assert attack.kind == ("melee" if line == "melee" else "ranged"), label
