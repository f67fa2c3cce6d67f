"""The shipped monsters match the PRD Bestiary stat blocks.

``psrd-creatures.json`` (shared reference data, OGL) maps keys such as
``bestiary/creature/goblin.json`` to stat blocks whose values are display strings
(``"ac": "16, touch 13, flat-footed 14 (...)"``, ``"melee": "short sword +2
(1d4/19-20)"``). These tests parse the strings and compare them with
``data/monsters/*.json`` as loaded by the engine: identity, AC and its
components, hit points, abilities, saves, CMD, damage reduction, immunities,
attacks (one routine of the stat block's « or » routines) with their riders
(« plus paralysis »), and auras (« fear (60-ft. radius, DC 18) »).
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
from engine.rules.skills import base_cmd

REPO = Path(__file__).resolve().parents[1]
MONSTERS = REPO / "data" / "monsters"
_REFERENCE_CANDIDATES = (
    REPO.parent / "shared" / "reference-data" / "psrd-creatures.json",
    REPO / "shared" / "reference-data" / "psrd-creatures.json",
)

#: data/monsters file stem -> key in psrd-creatures.json
MONSTER_KEYS = {
    "ghoul": "bestiary/creature/ghoul.json",
    "goblin": "bestiary/creature/goblin.json",
    "lich": "bestiary/creature/lich.json",
    "orc": "bestiary/creature/orc.json",
    "troglodyte": "bestiary/creature/troglodyte.json",
}

#: the words of a stat block's attack riders (« plus paralysis ») that the files
#: play, and the condition they give; the others (« disease ») are in the notes
RIDER_CONDITIONS = {"paralysis": "paralyzed", "paralyzing touch": "paralyzed"}
#: the rider words of the stat blocks the files do not play
UNPLAYED_RIDERS = frozenset({"disease"})
#: the stat-block name of each aura → (the file's name of it, the duration of its
#: outcomes when the aura line gives none: the lich's fear aura lasts its Hit
#: Dice in rounds, SRD « Lich », « Fear Aura »)
AURAS = {"fear": ("aura de terreur", "hd"), "stench": ("puanteur", None)}


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


def _clean_line(text: str) -> str:
    """A PSRD attack line with its typos mended (« bite -3 (1d4) or2 claws »)."""
    return re.sub(r"\bor(?=\d)", "or ", text)


def _split_top_level(text: str, separators: tuple[str, ...] = (",", " or ", " and ")) -> list[str]:
    """Split an attack line on ``separators`` outside parentheses."""
    parts: list[str] = []
    depth = 0
    current = ""
    i = 0
    while i < len(text):
        ch = text[i]
        depth += ch == "("
        depth -= ch == ")"
        sep = next((s for s in separators if depth == 0 and text.startswith(s, i)), None)
        if sep is not None:
            parts.append(current)
            current = ""
            i += len(sep)
            continue
        current += ch
        i += 1
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def _routines(line: str) -> list[list[RefAttack]]:
    """The attack routines of a line (« … or … »), each its attacks."""
    return [_attacks(r) for r in _split_top_level(_clean_line(line), (" or ",))]


@dataclass(frozen=True)
class RefAttack:
    name: str
    count: int
    bonus: int
    dice: DiceExpr
    crit_range: int
    crit_mult: int
    #: a touch attack (« touch +5 », « +4 ranged touch »)
    touch: bool = False
    #: the riders after « plus » (« disease », « paralysis »)
    riders: tuple[str, ...] = ()


_ATTACK = re.compile(
    r"^(?:(?P<count>\d+) )?(?P<name>.+?) (?P<bonus>[+-]\d+)(?:/[+-]\d+)*"
    r"(?P<touch> (?:melee |ranged )?touch)? \((?P<body>[^)]*)\)$"
)


def _attacks(line: str) -> list[RefAttack]:
    out: list[RefAttack] = []
    for part in _split_top_level(line):
        match = _ATTACK.match(part)
        assert match, f"unparsed attack {part!r}"
        body, *plus = match.group("body").split(" plus ")
        riders = tuple(r.strip() for p in plus for r in re.split(r",| and ", p) if r.strip())
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
                touch=match.group("touch") is not None or match.group("name").strip() == "touch",
                riders=riders,
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
    (bite, claws) = _attacks("bite +3 (1d6+1 plus disease and paralysis) and 2 claws +3 (1d6+1)")
    assert bite.riders == ("disease", "paralysis") and claws.count == 2 and not claws.riders
    (touch,) = _attacks("touch +5 (1d8+5 plus paralyzing touch)")
    assert touch.touch and touch.riders == ("paralyzing touch",)
    club, routine = _routines(
        "club +2 (1d6+1), bite -3 (1d4) or2 claws +2 (1d4+1), bite +2 (1d4+1)"
    )
    assert [a.name for a in club] == ["club", "bite"] and [a.bonus for a in routine] == [2, 2]
    assert _aura("fear (60-ft. radius, DC 18)") == ("fear", 60, 18, None)
    assert _aura("stench (30 ft., DC 13, 10 rounds)") == ("stench", 30, 13, "10")


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


def _routine(ref: dict[str, str], line: str, ours: list[AttackProfile]) -> list[RefAttack]:
    """The routine of the stat block's ``line`` the file plays: the one whose attack
    names are the file's (a file plays one of « … or … », the notes say which)."""
    if line not in ref:
        return []
    names = sorted(a.name.lower() for a in ours)
    routines = _routines(ref[line])
    if len(routines) == 1 or line == "ranged":  # goblin: « short sword or short bow »
        return [a for r in routines for a in r]
    fits = [r for r in routines if sorted(a.name.lower() for a in r) == names]
    assert len(fits) == 1, f"{ref[line]!r}: no routine with the file's attacks {names}"
    return fits[0]


def _special(ref: dict[str, str], word: str) -> str:
    """The parenthesis of ``word`` in the block's special attacks (« paralysis (…) »)."""
    found = re.search(rf"{word} \(([^)]*)\)", ref.get("special_attacks", ""))
    assert found, f"no « {word} (…) » in {ref.get('special_attacks')!r}"
    return found.group(1)


@pytest.mark.parametrize("line", ["melee", "ranged"])
def test_attacks(pair: tuple[dict[str, str], CombatantProfile], line: str) -> None:
    ref, monster = pair
    ours = [a for a in monster.attacks if a.is_melee == (line == "melee")]
    expected = _routine(ref, line, ours)
    assert sorted(a.name.lower() for a in ours) == sorted(a.name.lower() for a in expected)
    for ref_attack in expected:
        (attack,) = [a for a in ours if a.name.lower() == ref_attack.name.lower()]
        label = f"{monster.name} / {attack.name}"
        assert attack.attack_bonus == ref_attack.bonus, label
        assert attack.count == ref_attack.count, label
        assert _total_dice(attack) == ref_attack.dice, label
        assert attack.crit_range == ref_attack.crit_range, label
        assert attack.crit_mult == ref_attack.crit_mult, label
        kind = "touch" if ref_attack.touch else "melee" if line == "melee" else "ranged"
        assert attack.kind == kind, label
        played = [r for r in ref_attack.riders if r in RIDER_CONDITIONS]
        assert set(ref_attack.riders) - set(played) <= UNPLAYED_RIDERS, label
        if not played:
            assert attack.rider is None, label
            continue
        (word,) = played
        rider = attack.rider
        assert rider is not None, label
        assert rider.condition == RIDER_CONDITIONS[word], label
        special = _special(ref, word)
        assert rider.dc == _int(special.split("DC")[1]), label
        rounds = re.search(r"(\S+) rounds", special)
        # no duration in the block: the SRD's « permanently paralyzed » (lich)
        assert rider.rounds == (rounds.group(1) if rounds else None), label


def _aura(text: str) -> tuple[str, int, int, str | None]:
    """``"fear (60-ft. radius, DC 18)"`` → (name, radius, DC, rounds or None)."""
    match = re.fullmatch(r"(\w+) \((\d+)[- ]ft\.[^,]*, DC (\d+)(?:, (\S+) rounds)?\)", text)
    assert match, f"unparsed aura {text!r}"
    name, radius, dc, rounds = match.groups()
    return name, int(radius), int(dc), rounds


def test_auras(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    expected = [_aura(a.strip()) for a in ref["aura"].split(";")] if "aura" in ref else []
    assert len(monster.auras) == len(expected)
    for (name, radius, dc, rounds), aura in zip(expected, monster.auras, strict=True):
        ours, default = AURAS[name]
        assert (aura.name, aura.radius_ft, aura.dc) == (ours, radius, dc)
        want = int(rounds) if rounds is not None else monster.spec.level if default else None
        assert {o.rounds for o in aura.outcomes} == {want}


def test_cmd_dr_and_immunities(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    ref, monster = pair
    spec = monster.spec
    assert base_cmd(spec) == _int(ref["cmd"])
    if "dr" in ref:
        amount, bypass = ref["dr"].split("/")
        assert spec.dr is not None and (spec.dr.amount, spec.dr.bypass) == (int(amount), bypass)
    else:
        assert spec.dr is None
    immune = [i.strip() for i in ref.get("immune", "").split(",") if i.strip()]
    # « undead traits » come from the creature type (engine.rules.saves.TYPE_IMMUNITIES)
    assert sorted(spec.immunities) == sorted(i for i in immune if not i.endswith(" traits"))
    if any(i.endswith(" traits") for i in immune):
        assert f"{spec.creature_type} traits" in immune
