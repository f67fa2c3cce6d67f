"""The shipped monsters match the PRD Bestiary stat blocks.

``psrd-creatures.json`` (shared reference data, OGL) maps keys such as
``bestiary/creature/goblin.json`` to stat blocks whose values are display strings
(``"ac": "16, touch 13, flat-footed 14 (...)"``, ``"melee": "short sword +2
(1d4/19-20)"``). These tests parse the strings and compare them with
``data/monsters/*.json`` as loaded by the engine: identity, AC and its
components, hit points, abilities, saves, CMD, damage reduction, immunities,
attacks (one routine of the stat block's « or » routines) with their riders
(« plus paralysis »), auras (« fear (60-ft. radius, DC 18) »), skills, feats, and
the casters' spells: slots per level, the spells listed, caster level, casting
ability (from « concentration »), class, each spell's level and DC against the
Foundry spell records, and for the NPCs Foundry also has, the actor's spellbook.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.content.creatures import (
    AC_COMPONENTS,
    AttackProfile,
    CombatantProfile,
    ability_mod,
    load_combatant,
)
from engine.content.modelled import ROLLED_SKILLS
from engine.content.spells import spell_key
from engine.core.dice import DiceExpr, compile_dice
from engine.rules.skills import base_cmd, skill_bonus

REPO = Path(__file__).resolve().parents[1]
MONSTERS = REPO / "data" / "monsters"
_REFERENCE_CANDIDATES = (
    REPO.parent / "shared" / "reference-data" / "psrd-creatures.json",
    REPO / "shared" / "reference-data" / "psrd-creatures.json",
)

#: data/monsters file stem -> key in psrd-creatures.json
MONSTER_KEYS = {
    "acolyte": "game_mastery_guide/creature/npc/acolyte.json",
    "battle_mage": "npc_codex/creature/npc/battle_mage.json",
    "cultist": "game_mastery_guide/creature/npc/cultist.json",
    "ghoul": "bestiary/creature/ghoul.json",
    "goblin": "bestiary/creature/goblin.json",
    "lich": "bestiary/creature/lich.json",
    "mercenary_magician": "npc_codex/creature/npc/mercenary_magician.json",
    "orc": "bestiary/creature/orc.json",
    "shaman": "npc_codex/creature/npc/shaman.json",
    "street_magician": "npc_codex/creature/npc/street_magician.json",
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
    """A PSRD attack line with its typos mended (« bite -3 (1d4) or2 claws ») and its
    dashes as hyphens (the NPC Codex prints « 1d4–1/19–20 »)."""
    return re.sub(r"\bor(?=\d)", "or ", text.replace("–", "-").replace("—", "-"))


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


# --------------------------------------------------------------------------- skills and feats


def _skills(text: str) -> dict[str, int]:
    """``"Knowledge (arcana, history) +7, Spellcraft +9 (+11 to identify …)"`` ->
    ``{"knowledge (arcana)": 7, "knowledge (history)": 7, "spellcraft": 9}`` (lower-case
    names; a skill's conditional bonus in brackets after its total left out)."""
    out: dict[str, int] = {}
    for part in _split_top_level(text, (",",)):
        found = re.fullmatch(r"(.+?)(?: \(([^)]*)\))? ([+-]\d+)(?: \(.*\))?", _clean_line(part))
        assert found, f"unparsed skill {part!r}"
        name, subjects, total = found.groups()
        for subject in subjects.split(",") if subjects else [None]:
            key = name.lower() if subject is None else f"{name.lower()} ({subject.strip()})"
            out[key] = int(total)
    return out


def test_skill_parser() -> None:
    assert _skills("Knowledge (arcana, history, planes) +7, Linguistics +7") == {
        "knowledge (arcana)": 7,
        "knowledge (history)": 7,
        "knowledge (planes)": 7,
        "linguistics": 7,
    }
    spellcraft = "Spellcraft +9 (+11 to identify magic item properties), Stealth +4"
    assert _skills(spellcraft) == {"spellcraft": 9, "stealth": 4}
    assert _skills("Stealth +5 (+9 in rocky areas)") == {"stealth": 5}


def test_skills(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    """The file lists the block's skills; each total it copies is the block's, and so
    is the bonus of each skill a rule rolls (Perception from the block's senses when
    its skills leave it out: the acolyte's Wisdom +2)."""
    ref, monster = pair
    expected = _skills(ref["skills"]) if "skills" in ref else {}
    perception = re.search(r"Perception ([+-]\d+)", ref["senses"])
    assert perception, f"no Perception in {ref['senses']!r}"
    senses = int(perception.group(1))
    assert expected.setdefault("perception", senses) == senses
    ours = {name.lower(): entry for name, entry in monster.spec.skills.items()}
    assert set(ours) <= set(expected)
    assert set(expected) - set(ours) <= {"perception"}
    for name, total in expected.items():
        entry = ours.get(name)
        if name in ROLLED_SKILLS or (entry is not None and entry.total is not None):
            assert skill_bonus(monster, name) == total, f"{monster.name} / {name}"


def _feats(text: str) -> list[str]:
    """The block's feats, without the « B » of a bonus feat."""
    return [re.sub(r"\s*B$", "", f.strip()) for f in _split_top_level(text, (",",))]


def test_feats(pair: tuple[dict[str, str], CombatantProfile]) -> None:
    """The file's features are the block's feats (metamagic ones in
    ``metamagic_feats``) and some of its defensive abilities (« channel resistance +4 »)."""
    ref, monster = pair
    feats = {f.lower() for f in _feats(ref.get("feats", ""))}
    ours = {f.lower() for f in (*monster.spec.features, *monster.spec.metamagic_feats)}
    assert feats <= ours
    defensive = {d.lower() for d in _split_top_level(ref.get("defensive_abilities", ""), (",",))}
    assert ours - feats <= defensive


# --------------------------------------------------------------------------- spells

#: the stat blocks' name of an arcane school's specialist -> the class (Foundry's name)
_SCHOOLS = {
    "abjurer": "wizard",
    "conjurer": "wizard",
    "diviner": "wizard",
    "enchanter": "wizard",
    "evoker": "wizard",
    "illusionist": "wizard",
    "necromancer": "wizard",
    "transmuter": "wizard",
}
#: the classes whose spells are arcane (CRB « Arcane Spells »); the others' are divine
#: (the adept's too: CRB « Adept », « divine spells »)
_ARCANE = frozenset({"bard", "magus", "sorcerer", "witch", "wizard"})
#: the metamagic words of a prepared list (« maximized fireball ») and the slot levels
#: they add (CRB « Metamagic Feats »)
_METAMAGIC = {
    "empowered": 2,
    "enlarged": 1,
    "extended": 1,
    "maximized": 3,
    "quickened": 4,
    "silent": 1,
    "still": 1,
    "widened": 3,
}
#: a DC a stat block prints that the engine does not compute (10 + the spell's level +
#: the casting ability's modifier), and why: (file stem, spell) -> the block's extra
_DC_EXTRAS = {
    # gnome magic, +1 to the DC of illusion spells (CRB « Gnomes »); the notes say so
    ("street_magician", "color spray"): 1,
    ("street_magician", "ghost sound"): 1,
}


@dataclass(frozen=True)
class RefSpell:
    """One entry of a stat block's spell list."""

    name: str
    #: the level of the list it is in (the slot it takes)
    slot_level: int
    #: how many times it is prepared (« ghost sound (2, DC 13) »)
    count: int
    dc: int | None
    #: the slot levels its metamagic adds (« maximized fireball »: 3)
    metamagic: int
    #: a domain spell (« cure light wounds D »)
    domain: bool


@dataclass(frozen=True)
class RefSpells:
    """A stat block's spells (not its spell-like abilities)."""

    #: the class named before « spells » (« cleric spells prepared »), or None
    cls: str | None
    prepared: bool
    caster_level: int
    concentration: int | None
    #: the casts per day the block prints for a spontaneous caster (« 1st (4/day) »)
    per_day: dict[int, int]
    entries: tuple[RefSpell, ...]


def _ref_spells(block: dict[str, Any]) -> RefSpells | None:
    """The spells of a PSRD block (``spells`` holds HTML lists), or None."""
    lists = [
        (kind, html.unescape(text))
        for entry in block.get("spells", [])
        for kind, text in entry.items()
        if "spell-like" not in kind
    ]
    if not lists:
        return None
    ((kind, text),) = lists
    head = re.fullmatch(r"(?:(\w+) )?spells (prepared|known)", kind)
    assert head, f"unparsed spell list kind {kind!r}"
    cls = _SCHOOLS.get(head.group(1) or "", head.group(1))
    found = re.search(r"CL (\d+)\w*(?:; concentration \+(\d+))?", text)
    assert found, f"no caster level in {text!r}"
    per_day: dict[int, int] = {}
    entries: list[RefSpell] = []
    for para in re.findall(r"<p[^>]*>(.*?)</p>", text):
        line = re.sub(r"<[^>]+>", "", para.replace("</i>", " ")).replace("–", "-")
        level_line = re.fullmatch(r"(\d)(?:st|nd|rd|th)?(?: \((at will|\d+/day)\))?\s*-(.*)", line)
        if level_line is None:  # « D domain spell; Domains … », « Opposition Schools … »
            continue
        level, uses, rest = level_line.groups()
        if uses and uses.endswith("/day"):
            per_day[int(level)] = int(uses.split("/")[0])
        for part in _split_top_level(" ".join(rest.split()), (",",)):
            meta, _, bare = part.partition(" ")
            if meta not in _METAMAGIC:
                meta, bare = "", part
            spell = re.fullmatch(r"(.+?)( D)?(?: \(([^)]*)\))?( D)?", bare)
            assert spell, f"unparsed spell {part!r}"
            name, d1, paren, d2 = spell.groups()
            paren = paren or ""
            count = re.match(r"(\d+)\b(?! ?DC)", paren)
            dc = re.search(r"DC ?(\d+)", paren)
            entries.append(
                RefSpell(
                    name=name.lower(),
                    slot_level=int(level),
                    count=int(count.group(1)) if count else 1,
                    dc=int(dc.group(1)) if dc else None,
                    metamagic=_METAMAGIC.get(meta, 0),
                    domain=bool(d1 or d2),
                )
            )
    return RefSpells(
        cls=cls,
        prepared=head.group(2) == "prepared",
        caster_level=int(found.group(1)),
        concentration=int(found.group(2)) if found.group(2) else None,
        per_day=per_day,
        entries=tuple(entries),
    )


def test_spell_list_parser() -> None:
    block = {
        "spells": [
            {"domain spell-like abilities": "(CL 3rd) 6/day-touch of evil"},
            {
                "cleric spells prepared": "(CL 3rd; concentration +5)"
                '<p class="stat-block-2">2nd-<i>cure moderate wounds</i>D, '
                "<i>hold person </i>(DC 14)</p>"
                '<p class="stat-block-2">1st-<i>bane </i>(DC13), <i>grease, sleep</i> (DC 13)</p>'
                '<p class="stat-block-2">0 (at will)-<i>ghost sound</i> (2, DC 13)</p>'
                '<p class="stat-block-2"><b>D </b>domain spell; <b>Domains </b>Evil</p>'
            },
        ]
    }
    spells = _ref_spells(block)
    assert spells is not None
    assert (spells.cls, spells.prepared, spells.caster_level, spells.concentration) == (
        "cleric",
        True,
        3,
        5,
    )
    assert [(e.name, e.slot_level, e.count, e.dc, e.domain) for e in spells.entries] == [
        ("cure moderate wounds", 2, 1, None, True),
        ("hold person", 2, 1, 14, False),
        ("bane", 1, 1, 13, False),
        ("grease", 1, 1, None, False),
        ("sleep", 1, 1, 13, False),
        ("ghost sound", 0, 2, 13, False),
    ]
    lich = _ref_spells(
        {
            "spells prepared": None,
            "spells": [
                {
                    "spells prepared": "(CL 11th)<p>6th-<i>globe of invulnerability, </i>"
                    "maximized <i>fireball</i> (DC 19)</p>"
                }
            ],
        }
    )
    assert lich is not None and lich.cls is None and lich.concentration is None
    assert [(e.name, e.metamagic, e.dc) for e in lich.entries] == [
        ("globe of invulnerability", 0, None),
        ("fireball", 3, 19),
    ]
    sorcerer = _ref_spells(
        {"spells": [{"sorcerer spells known": "(CL 1st)<p>1st (4/day)-<i>magic missile</i></p>"}]}
    )
    assert sorcerer is not None and not sorcerer.prepared and sorcerer.per_day == {1: 4}


def _lists_spells(stem: str) -> bool:
    data: dict[str, Any] = json.loads((MONSTERS / f"{stem}.json").read_text(encoding="utf-8"))
    return bool(data.get("spells"))


#: the files with spells (each has a stat block with a spell list, and only they:
#: ``test_casters_are_the_blocks_with_spells``)
CASTERS = sorted(stem for stem in MONSTER_KEYS if _lists_spells(stem))


def _block(reference: dict[str, Any], stem: str) -> dict[str, Any]:
    block: dict[str, Any] | None = reference.get(MONSTER_KEYS[stem])
    if block is None:
        pytest.skip(f"{MONSTER_KEYS[stem]} absent from the reference data")
    return block


def test_casters_are_the_blocks_with_spells(reference: dict[str, Any]) -> None:
    """A file lists spells exactly when its stat block has a spell list (the
    spell-like abilities aside)."""
    with_lists = sorted(s for s in MONSTER_KEYS if _ref_spells(_block(reference, s)) is not None)
    assert with_lists == CASTERS


@pytest.fixture(params=CASTERS)
def caster(
    request: pytest.FixtureRequest, reference: dict[str, Any]
) -> tuple[str, RefSpells, CombatantProfile]:
    """A file with spells and its stat block's spells."""
    stem: str = request.param
    spells = _ref_spells(_block(reference, stem))
    assert spells is not None
    return stem, spells, load_combatant(MONSTERS / f"{stem}.json")


def test_spell_slots(caster: tuple[str, RefSpells, CombatantProfile]) -> None:
    """Slots per level: a prepared caster's entries of each level (« ghost sound (2) »
    twice, the domain or school slot included); a spontaneous caster's casts per day
    (« 1st (4/day) ») and, at level 0 (« at will »), its cantrips known."""
    _, ref, monster = caster
    expected: dict[str, int] = {}
    for entry in ref.entries:
        level = str(entry.slot_level)
        expected[level] = expected.get(level, 0) + entry.count
    for level, uses in ref.per_day.items():
        expected[str(level)] = uses
    assert monster.spec.spell_slots == expected


def test_spells_listed(caster: tuple[str, RefSpells, CombatantProfile]) -> None:
    """The file lists each spell of the block once (a metamagic one by its own name)."""
    _, ref, monster = caster
    ours = [spell_key(name) for name in monster.spec.spells]
    assert len(ours) == len(set(ours))
    assert set(ours) == {spell_key(e.name) for e in ref.entries}


def test_caster_level_and_ability(caster: tuple[str, RefSpells, CombatantProfile]) -> None:
    """Caster level; concentration = caster level + the casting ability's modifier
    (what names the ability: CRB « Concentration »); class and arcane or divine."""
    _, ref, monster = caster
    spec = monster.spec
    caster_level = spec.caster_level if spec.caster_level is not None else spec.level
    assert caster_level == ref.caster_level
    if ref.concentration is not None:
        assert spec.casting_ability is not None
        score = getattr(spec.abilities, f"{spec.casting_ability}_score")
        assert ref.caster_level + ability_mod(score) == ref.concentration
    if ref.cls is not None:
        assert spec.classes == [ref.cls]
        assert spec.arcane_caster == (ref.cls in _ARCANE)


@pytest.fixture(scope="module")
def foundry_spells() -> dict[str, dict[str, Any]]:
    """The Foundry pf1 spell records (the registry's source), by spell id."""
    for base in _REFERENCE_CANDIDATES:
        path = base.with_name("foundry-pf1-spells.json")
        if path.is_file():
            records: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
            return {spell_key(r["name"]): r for r in records}
    pytest.skip("reference data absent (foundry-pf1-spells.json)")


def test_spell_levels_and_dcs(
    caster: tuple[str, RefSpells, CombatantProfile], foundry_spells: dict[str, dict[str, Any]]
) -> None:
    """Each spell of the block is a Foundry record; the level the block lists it at is
    its level for the file's classes (``learnedAt.class``, the lowest if several) plus
    its metamagic; each printed DC is 10 + that level + the casting ability's modifier
    (``_DC_EXTRAS``: what the engine leaves out). A file without classes (the lich,
    « spells prepared » without a class) casts each spell at its lowest level of any
    class (``engine/content/spellbook.py``): only the records are checked."""
    stem, ref, monster = caster
    spec = monster.spec
    mod = 0
    if spec.casting_ability is not None:
        mod = ability_mod(getattr(spec.abilities, f"{spec.casting_ability}_score"))
    for entry in ref.entries:
        record = foundry_spells.get(spell_key(entry.name))
        assert record is not None, f"{stem}: « {entry.name} » is no Foundry spell"
        if not spec.classes:
            continue
        learned: dict[str, int] = record["system"].get("learnedAt", {}).get("class", {})
        levels = [learned[c] for c in spec.classes if c in learned]
        assert levels, f"{stem}: no class of {spec.classes} learns « {entry.name} »"
        level = min(levels)
        assert level + entry.metamagic == entry.slot_level, f"{stem} / {entry.name}"
        if entry.dc is not None:
            extra = _DC_EXTRAS.get((stem, entry.name), 0)
            assert 10 + level + mod + extra == entry.dc, f"{stem} / {entry.name}"


def test_dc_extras_name_printed_dcs(reference: dict[str, Any]) -> None:
    """Each DC left to the notes is one the block prints."""
    for stem, name in _DC_EXTRAS:
        spells = _ref_spells(_block(reference, stem))
        assert spells is not None
        assert any(e.name == name and e.dc is not None for e in spells.entries), (stem, name)


#: data/monsters file stem -> the Foundry actor of the same NPC
#: (``foundry-pf1-basic-monsters.json``), whose spellbook gives the same spells
FOUNDRY_ACTORS = {
    "acolyte": "Acolyte",
    "battle_mage": "Battle Mage",
    "street_magician": "Street Magician",
}


@pytest.fixture(scope="module")
def foundry_actors() -> dict[str, dict[str, Any]]:
    for base in _REFERENCE_CANDIDATES:
        path = base.with_name("foundry-pf1-basic-monsters.json")
        if path.is_file():
            actors: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
            return {a["name"]: a for a in actors}
    pytest.skip("reference data absent (foundry-pf1-basic-monsters.json)")


@pytest.mark.parametrize("stem", sorted(FOUNDRY_ACTORS))
def test_foundry_spellbooks(stem: str, foundry_actors: dict[str, dict[str, Any]]) -> None:
    """The Foundry actor's primary spellbook: its class, ability (pf1's default
    ``int``), kind, spells, and prepared copies per level (``preparation.max``; a
    spell's level absent means 1) are the file's."""
    actor = foundry_actors[FOUNDRY_ACTORS[stem]]
    spec = load_combatant(MONSTERS / f"{stem}.json").spec
    book = actor["system"]["attributes"]["spells"]["spellbooks"]["primary"]
    assert spec.classes == [book["class"]]
    assert spec.casting_ability == book.get("ability", "int")
    assert spec.arcane_caster == (book["kind"] == "arcane")
    items = [i for i in actor["items"] if i["type"] == "spell"]
    items = [i for i in items if i["system"].get("spellbook") == "primary"]
    assert sorted(spell_key(n) for n in spec.spells) == sorted(spell_key(i["name"]) for i in items)
    slots: dict[str, int] = {}
    for item in items:
        level = str(item["system"].get("level", 1))
        slots[level] = slots.get(level, 0) + item["system"]["preparation"]["max"]
    assert spec.spell_slots == slots
