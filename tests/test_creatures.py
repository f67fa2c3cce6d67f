"""Combatant loader: ``parse_combatant`` / ``load_combatant`` (engine/content/creatures.py).

Errors must be :class:`DataError` with a French message naming the field path
(``attacks[0].range_increment_ft``); positive tests cover the shipped monsters,
every optional field of the seed schema, attack ids, PC detection, reach and range.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine.content.creatures import CombatantProfile, load_combatant, parse_combatant
from engine.core.errors import DataError

REPO = Path(__file__).resolve().parents[1]
MONSTERS = REPO / "data" / "monsters"


def _melee(name: str = "short sword", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "melee",
        "attack_bonus": 2,
        "damage": [{"formula": "1d6", "types": ["slashing"]}],
        **extra,
    }


def _ranged(name: str = "short bow", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "ranged",
        "attack_bonus": 3,
        "damage": [{"formula": "1d6", "types": ["piercing"]}],
        "range_increment_ft": 60,
        **extra,
    }


def _touch(name: str = "alchemist's fire", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "touch",
        "attack_bonus": 3,
        "damage": [{"formula": "1d6", "types": ["fire"]}],
        **extra,
    }


BASE: dict[str, Any] = {
    "name": "Bandit",
    "abilities": {"str_score": 12, "dex_score": 14, "con_score": 10},
    "hp_max": 9,
    "ac": {"total": 14, "touch": 12, "flat_footed": 12},
    "bab": 1,
    "initiative_mod": 2,
    "speed_land_ft": 30,
    "saves": {"fort": 2, "ref": 2, "will": 0},
    "attacks": [_melee()],
}

#: Every field of the seed's Combatant schema, including all optional ones.
FULL: dict[str, Any] = {
    "name": "Lich Magus",
    "level": 7,
    "size": "Large",
    "cr": "7",
    "xp": 3200,
    "source": "fiches_personnages/lich.json",
    "notes": ["first note", "second note"],
    "pc": False,
    "abilities": {
        "str_score": 14,
        "dex_score": 12,
        "con_score": None,
        "int_score": 18,
        "wis_score": 10,
        "cha_score": 16,
    },
    "hp_max": 60,
    "ac": {"total": 20, "touch": 11, "flat_footed": 19},
    "bab": 5,
    "initiative_mod": 5,
    "speed_land_ft": 30,
    "speed_fly_ft": 60,
    "saves": {"fort": 4, "ref": 3, "will": 7},
    "dr": {"amount": 5, "bypass": "bludgeoning and magic"},
    "aware": False,
    "alignment": "NE",
    "creature_type": "Undead",
    "spell_resistance": 15,
    "resistances": {"fire": 10, "cold": 5},
    "immunities": ["electricity"],
    "spell_slots": {"0": 4, "1": 4, "2": 3},
    "spells": ["Magic Missile", "Shield"],
    "casting_ability": "int",
    "metamagic_feats": ["Empower Spell"],
    "arcane_caster": True,
    "armor_spell_failure": 10,
    "features": ["Power Attack", "Combat Reflexes"],
    "skills": {
        "Stealth": {"rank": 5, "class_skill": True, "armor_penalty": -1},
        "Climb": {"rank": 2},
    },
    "resources": {"arcane_pool": 4},
    "carried_items": ["potion of cure light wounds", "scroll"],
    "summon_duration": 3,
    "attacks": [
        {
            "id": "glaive",
            "name": "Glaive",
            "kind": "melee",
            "attack_bonus": 9,
            "damage": [
                {"formula": "1d10", "types": ["slashing"]},
                {"formula": "1d6", "types": ["fire"]},
            ],
            "damage_bonus": 4,
            "crit_range": 20,
            "crit_mult": 3,
            "count": 1,
            "reach_ft": 20,
            "reach_weapon": True,
            "natural": False,
            "secondary": False,
            "two_handed": True,
            "hardness": 10,
            "hit_points": 10,
        },
        {
            "id": "bite",
            "name": "bite",
            "kind": "melee",
            "attack_bonus": 4,
            "damage": [{"formula": "1d6", "types": ["piercing", "magic"]}],
            "count": 2,
            "natural": True,
            "secondary": True,
        },
        {
            "id": "pistol",
            "name": "pistol",
            "kind": "touch",
            "attack_bonus": 6,
            "damage": [{"formula": "1d8", "types": ["piercing", "bludgeoning"]}],
            "crit_range": 20,
            "crit_mult": 4,
            "range_increment_ft": 20,
            "firearm": True,
        },
        {
            "id": "flask",
            "name": "alchemist's fire",
            "kind": "touch",
            "attack_bonus": 5,
            "damage": [{"formula": "1d6", "types": ["fire"]}],
            "range_increment_ft": 10,
            "splash": {"damage": 1, "type": "fire"},
        },
    ],
}


_DELETE = object()


def doc(**changes: Any) -> dict[str, Any]:
    """A deep copy of BASE with top-level fields replaced (``_DELETE``: key removed)."""
    out = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is _DELETE:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def parse(data: object, source: str | None = None) -> CombatantProfile:
    return parse_combatant(json.dumps(data), source)


def data_error(data: object, source: str | None = None) -> DataError:
    with pytest.raises(DataError) as info:
        parse(data, source)
    return info.value


def attack_error(attack: dict[str, Any], index: int = 0) -> DataError:
    attacks = [_melee(f"other {i}") for i in range(index)] + [attack]
    return data_error(doc(attacks=attacks))


# --------------------------------------------------------------------------- shipped monsters


def test_goblin_loads() -> None:
    goblin = load_combatant(MONSTERS / "goblin.json")
    assert goblin.name == "Goblin"
    assert goblin.base_id == "goblin"
    assert goblin.source_file == str(MONSTERS / "goblin.json")
    assert not goblin.is_pc
    assert not goblin.no_con
    assert (goblin.con_score, goblin.con_mod) == (12, 1)
    spec = goblin.spec
    assert spec.size == "Small"
    assert (spec.ac.total, spec.ac.touch, spec.ac.flat_footed) == (16, 13, 14)
    assert spec.hp_max == 6
    assert [a.id for a in goblin.attacks] == ["short-sword", "short-bow"]
    sword, bow = goblin.attacks
    assert (sword.kind, sword.attack_bonus, sword.crit_range, sword.crit_mult) == (
        "melee",
        2,
        19,
        2,
    )
    assert sword.is_melee
    assert sword.reach_ft == 5
    assert sword.max_range_ft == 5
    assert str(sword.parts[0].dice) == "1d4"
    assert sword.parts[0].physical
    assert sword.bypass == frozenset({"piercing"})
    assert not bow.is_melee
    assert (bow.range_increment_ft, bow.reach_ft, bow.max_range_ft) == (60, 0, 600)
    assert bow.crit_mult == 3
    assert bow.spec.two_handed


def test_orc_loads() -> None:
    orc = load_combatant(str(MONSTERS / "orc.json"))
    assert orc.name == "Orc"
    assert not orc.is_pc
    assert orc.spec.size == "Medium"
    assert orc.spec.alignment == "CE"
    assert orc.spec.creature_type == "humanoid"
    falchion, javelin = orc.attacks
    assert falchion.id == "falchion"
    assert str(falchion.parts[0].dice) == "2d4+4"
    assert (falchion.crit_range, falchion.reach_ft) == (18, 5)
    assert falchion.spec.two_handed
    assert javelin.id == "javelin"
    assert javelin.max_range_ft == 300


# --------------------------------------------------------------------------- full schema


def test_every_seed_field_is_accepted() -> None:
    profile = parse(FULL)
    spec = profile.spec
    assert spec.level == 7
    assert spec.size == "Large"
    assert spec.cr == "7"
    assert spec.xp == 3200
    assert spec.notes == ["first note", "second note"]
    assert spec.pc is False
    assert spec.abilities.int_score == 18
    assert spec.speed_fly_ft == 60
    assert spec.dr is not None
    assert (spec.dr.amount, spec.dr.bypass) == (5, "bludgeoning and magic")
    assert spec.aware is False
    assert spec.alignment == "NE"
    assert spec.creature_type == "undead"  # normalised to lower case
    assert spec.spell_resistance == 15
    assert spec.resistances == {"fire": 10, "cold": 5}
    assert spec.immunities == ["electricity"]
    assert spec.spell_slots == {"0": 4, "1": 4, "2": 3}
    assert spec.spells == ["Magic Missile", "Shield"]
    assert spec.casting_ability == "int"
    assert spec.metamagic_feats == ["Empower Spell"]
    assert spec.arcane_caster is True
    assert spec.armor_spell_failure == 10
    assert spec.features == ["Power Attack", "Combat Reflexes"]
    assert spec.skills["Stealth"].rank == 5
    assert spec.skills["Stealth"].class_skill is True
    assert spec.skills["Stealth"].armor_penalty == -1
    assert (spec.skills["Climb"].class_skill, spec.skills["Climb"].armor_penalty) == (False, 0)
    assert spec.resources == {"arcane_pool": 4}
    assert spec.carried_items == ["potion of cure light wounds", "scroll"]
    assert spec.summon_duration == 3
    # pc: false wins over a fiches_personnages/ source.
    assert not profile.is_pc
    assert profile.no_con
    assert [a.id for a in profile.attacks] == ["glaive", "bite", "pistol", "flask"]
    glaive, bite, pistol, flask = profile.attacks
    assert glaive.reach_ft == 20
    assert glaive.damage_bonus == 4
    assert len(glaive.parts) == 2
    assert glaive.parts[0].physical
    assert not glaive.parts[1].physical
    assert glaive.spec.hardness == 10
    assert glaive.spec.hit_points == 10
    assert glaive.spec.reach_weapon
    assert bite.natural
    assert bite.count == 2
    assert bite.bypass == frozenset({"piercing", "magic"})
    assert bite.reach_ft == 10  # Large natural reach
    assert pistol.spec.firearm
    assert pistol.max_range_ft == 100  # touch: 5 increments
    assert flask.spec.splash is not None
    assert (flask.spec.splash.damage, flask.spec.splash.type) == (1, "fire")
    assert flask.max_range_ft == 50


def test_minimal_document_defaults() -> None:
    profile = parse(doc(attacks=_DELETE))
    spec = profile.spec
    assert (spec.level, spec.size, spec.alignment, spec.aware) == (1, "Medium", "N", True)
    assert spec.attacks == []
    assert profile.attacks == ()
    assert spec.abilities.int_score is None


@pytest.mark.parametrize("notes", ["one note", ["a", "b"], None])
def test_notes_string_or_list(notes: object) -> None:
    assert parse(doc(notes=notes)).spec.notes == notes


@pytest.mark.parametrize("cr", ["1/3", 2, 0.5, None])
def test_cr_string_int_or_float(cr: object) -> None:
    assert parse(doc(cr=cr)).spec.cr == cr


@pytest.mark.parametrize("bypass", ["-", "—", "magic", "good or silver", "cold iron"])
def test_dr_bypass_forms(bypass: str) -> None:
    spec = parse(doc(dr={"amount": 5, "bypass": bypass})).spec
    assert spec.dr is not None
    assert spec.dr.bypass == bypass


def test_dr_bypass_defaults_to_dash() -> None:
    spec = parse(doc(dr={"amount": 10})).spec
    assert spec.dr is not None
    assert spec.dr.bypass == "-"


# --------------------------------------------------------------------------- attack ids


def test_attack_ids_are_slugs() -> None:
    attacks = [_melee("short sword"), _melee("Épée Courte +1"), _ranged("Short  Bow")]
    profile = parse(doc(attacks=attacks))
    assert [a.id for a in profile.attacks] == ["short-sword", "epee-courte-1", "short-bow"]


def test_duplicate_attack_names_get_suffixes() -> None:
    attacks = [_melee("claw"), _melee("claw"), _melee("Claw"), _melee("bite")]
    profile = parse(doc(attacks=attacks))
    assert [a.id for a in profile.attacks] == ["claw", "claw-2", "claw-3", "bite"]


def test_explicit_attack_id_kept_and_derived_ids_avoid_it() -> None:
    attacks = [_melee("claw", id="claw"), _melee("claw")]
    profile = parse(doc(attacks=attacks))
    assert [a.id for a in profile.attacks] == ["claw", "claw-2"]


def test_duplicate_explicit_attack_id() -> None:
    attacks = [_melee("claw", id="strike"), _melee("bite", id="strike")]
    err = data_error(doc(attacks=attacks))
    assert err.location == "attacks[1].id"
    assert "« strike »" in str(err)
    assert "en double" in str(err)


def test_empty_attack_id_rejected() -> None:
    err = attack_error(_melee(id=""))
    assert err.location == "attacks[0].id"


def test_identical_attacks_of_different_files_stay_distinct() -> None:
    # Geometry caches key on attack objects: equality must be identity.
    first = parse(doc(attacks=[_melee("a")]))
    second = parse(doc(attacks=[_melee("a")]))
    assert first.attacks[0] != second.attacks[0]
    assert first.attacks[0] == first.attacks[0]
    assert first.attacks[0].is_melee


# --------------------------------------------------------------------------- PC detection


@pytest.mark.parametrize(
    ("changes", "is_pc"),
    [
        ({"pc": True}, True),
        ({"pc": True, "source": "Bestiary"}, True),
        ({"source": "fiches_personnages/esha.json"}, True),
        ({"pc": False, "source": "fiches_personnages/esha.json"}, False),
        ({"source": "Bestiary > Goblin"}, False),
        ({"source": "summon monster"}, False),
        ({"source": "autres/fiches_personnages/x.json"}, False),
        ({}, False),
        ({"pc": False}, False),
    ],
)
def test_pc_detection(changes: dict[str, Any], is_pc: bool) -> None:
    assert parse(doc(**changes)).is_pc is is_pc


# --------------------------------------------------------------------------- Constitution


@pytest.mark.parametrize("creature_type", ["undead", "construct", "Undead"])
def test_no_con_creature(creature_type: str) -> None:
    abilities = {"str_score": 10, "dex_score": 10, "con_score": None}
    profile = parse(doc(abilities=abilities, creature_type=creature_type))
    assert profile.no_con
    assert (profile.con_score, profile.con_mod) == (0, 0)


@pytest.mark.parametrize("creature_type", [None, "humanoid", "outsider"])
def test_con_null_for_a_living_creature(creature_type: str | None) -> None:
    abilities = {"str_score": 10, "dex_score": 10, "con_score": None}
    err = data_error(doc(abilities=abilities, creature_type=creature_type))
    assert "« con_score »: null" in str(err)
    assert "morts-vivants" in str(err)


def test_con_mod() -> None:
    abilities = {"str_score": 10, "dex_score": 10, "con_score": 7}
    profile = parse(doc(abilities=abilities))
    assert (profile.con_score, profile.con_mod, profile.no_con) == (7, -2, False)


# --------------------------------------------------------------------------- reach & range


@pytest.mark.parametrize(
    ("size", "reach"),
    [("Tiny", 0), ("Small", 5), ("Medium", 5), ("Large", 10), ("Huge", 15), ("Colossal", 30)],
)
def test_default_melee_reach_by_size(size: str, reach: int) -> None:
    profile = parse(doc(size=size, attacks=[_melee(), _ranged()]))
    melee, ranged = profile.attacks
    assert melee.reach_ft == reach
    assert melee.max_range_ft == reach
    assert ranged.reach_ft == 0


def test_explicit_reach_overrides_size() -> None:
    profile = parse(doc(size="Medium", attacks=[_melee(reach_ft=10)]))
    assert profile.attacks[0].reach_ft == 10


def test_melee_touch_without_increment_uses_reach() -> None:
    profile = parse(doc(attacks=[_touch()]))
    touch = profile.attacks[0]
    assert touch.is_melee
    assert touch.reach_ft == 5
    assert touch.max_range_ft == 5


@pytest.mark.parametrize(("increment", "expected"), [(10, 100), (30, 300), (100, 1000)])
def test_ranged_max_range_is_ten_increments(increment: int, expected: int) -> None:
    profile = parse(doc(attacks=[_ranged(range_increment_ft=increment)]))
    assert profile.attacks[0].max_range_ft == expected


@pytest.mark.parametrize(("increment", "expected"), [(10, 50), (20, 100)])
def test_touch_with_increment_max_range_is_five_increments(increment: int, expected: int) -> None:
    profile = parse(doc(attacks=[_touch(range_increment_ft=increment)]))
    attack = profile.attacks[0]
    assert not attack.is_melee
    assert attack.reach_ft == 0
    assert attack.max_range_ft == expected


# --------------------------------------------------------------------------- unknown fields


def test_unknown_attack_field_suggests_closest() -> None:
    err = attack_error(_melee(atack_bonus=3))
    assert err.location == "attacks[0]"
    message = str(err)
    assert "champ inconnu « atack_bonus »" in message
    assert "vouliez-vous dire « attack_bonus » ?" in message


@pytest.mark.parametrize(("field", "suggested"), [("hp_maxx", "hp_max"), ("hp", None)])
def test_unknown_top_level_field(field: str, suggested: str | None) -> None:
    err = data_error(doc(**{field: 6}))
    assert err.location is None
    message = str(err)
    assert f"champ inconnu « {field} »" in message
    assert "vouliez-vous dire" in message
    if suggested is not None:
        assert f"« {suggested} »" in message


def test_unknown_nested_fields_suggest_closest() -> None:
    attack = _melee()
    attack["damage"][0]["typs"] = []
    err = attack_error(attack)
    assert err.location == "attacks[0].damage[0]"
    assert "vouliez-vous dire « types » ?" in str(err)
    err = data_error(doc(dr={"amount": 5, "bypas": "magic"}))
    assert err.location == "dr"
    assert "vouliez-vous dire « bypass » ?" in str(err)
    err = data_error(doc(ac={"total": 1, "touch": 1, "flat_footed": 1, "touhc": 1}))
    assert err.location == "ac"
    assert "vouliez-vous dire « touch » ?" in str(err)


def test_unknown_skill_field_suggests_closest() -> None:
    err = data_error(doc(skills={"Ride": {"rank": 1, "clas_skill": True}}))
    assert "champ inconnu « clas_skill »" in str(err)
    assert "vouliez-vous dire « class_skill » ?" in str(err)


def test_misspelled_required_attack_field_names_the_typo() -> None:
    attack = _melee()
    attack["atack_bonus"] = attack.pop("attack_bonus")
    message = str(attack_error(attack))
    assert "« atack_bonus »" in message
    assert "vouliez-vous dire « attack_bonus » ?" in message


# --------------------------------------------------------------------------- attack rules


@pytest.mark.parametrize("increment", [0, -10])
def test_range_increment_not_positive(increment: int) -> None:
    err = attack_error(_ranged(range_increment_ft=increment), index=1)
    assert err.location == "attacks[1].range_increment_ft"
    assert "strictement supérieur à 0" in str(err)


def test_range_increment_on_melee_attack() -> None:
    err = attack_error(_melee(range_increment_ft=10))
    assert err.location == "attacks[0]"
    message = str(err)
    assert "« range_increment_ft »" in message
    assert "« ranged » ou « touch »" in message


def test_splash_on_melee_attack() -> None:
    err = attack_error(_melee(splash={"damage": 1, "type": "fire"}))
    assert err.location == "attacks[0]"
    assert "« splash »" in str(err)


def test_splash_on_touch_attack_without_increment() -> None:
    err = attack_error(_touch(splash={"damage": 1, "type": "fire"}))
    assert err.location == "attacks[0]"
    message = str(err)
    assert "« splash »" in message
    assert "« range_increment_ft »" in message


def test_splash_unknown_type() -> None:
    attack = _touch(range_increment_ft=10, splash={"damage": 1, "type": "fyre"})
    err = attack_error(attack)
    assert err.location == "attacks[0].splash.type"
    assert "vouliez-vous dire « fire » ?" in str(err)


def test_ranged_attack_without_increment() -> None:
    attack = _ranged()
    del attack["range_increment_ft"]
    err = attack_error(attack)
    assert err.location == "attacks[0]"
    assert "« ranged » exige « range_increment_ft »" in str(err)


def test_firearm_without_increment() -> None:
    err = attack_error(_touch(firearm=True))
    assert err.location == "attacks[0]"
    assert "« firearm »" in str(err)


def test_secondary_attack_must_be_natural() -> None:
    err = attack_error(_melee(secondary=True))
    assert err.location == "attacks[0]"
    assert "« secondary »" in str(err)


def test_reach_not_multiple_of_5() -> None:
    err = attack_error(_melee(reach_ft=7))
    assert err.location == "attacks[0]"
    assert "multiple de 5" in str(err)


@pytest.mark.parametrize("formula", ["1d", "2x4", "d1", "0d6", "1d6 2", "", "abc", "1d6++"])
def test_bad_dice_formula(formula: str) -> None:
    attack = _melee()
    attack["damage"][0]["formula"] = formula
    err = attack_error(attack)
    assert err.location == "attacks[0].damage[0].formula"
    assert "formule de dés" in str(err)


def test_empty_damage_list() -> None:
    err = attack_error(_melee(damage=[]))
    assert err.location == "attacks[0].damage"


def test_unknown_damage_type_with_suggestion() -> None:
    attack = _melee()
    attack["damage"][0]["types"] = ["slashing", "peircing"]
    err = attack_error(attack)
    assert err.location == "attacks[0].damage[0].types"
    message = str(err)
    assert "type de dégâts inconnu « peircing »" in message
    assert "vouliez-vous dire « piercing » ?" in message


@pytest.mark.parametrize(("crit_range", "bound"), [(21, "inférieur ou égal à 20"), (1, "à 2")])
def test_crit_range_out_of_bounds(crit_range: int, bound: str) -> None:
    err = attack_error(_melee(crit_range=crit_range))
    assert err.location == "attacks[0].crit_range"
    assert bound in str(err)
    assert f"reçu {crit_range}" in str(err)


@pytest.mark.parametrize("crit_mult", [1, 0, 7])
def test_crit_mult_out_of_bounds(crit_mult: int) -> None:
    err = attack_error(_melee(crit_mult=crit_mult))
    assert err.location == "attacks[0].crit_mult"


@pytest.mark.parametrize("kind", ["magic", "Melee", ""])
def test_unknown_attack_kind(kind: str) -> None:
    err = attack_error(_melee(kind=kind))
    assert err.location == "attacks[0].kind"
    assert "valeur invalide" in str(err)


# --------------------------------------------------------------------------- types & values


@pytest.mark.parametrize(
    ("field", "value"),
    [("hp_max", "5"), ("bab", "1"), ("initiative_mod", 2.0), ("hp_max", True), ("level", "3")],
)
def test_wrong_type_for_int(field: str, value: object) -> None:
    err = data_error(doc(**{field: value}))
    assert err.location == field
    message = str(err)
    assert "entier attendu" in message
    assert repr(value) in message


def test_wrong_type_nested_int() -> None:
    err = data_error(doc(saves={"fort": "2", "ref": 2, "will": 0}))
    assert err.location == "saves.fort"
    assert "entier attendu" in str(err)


def test_wrong_type_for_bool() -> None:
    err = data_error(doc(aware="yes"))
    assert err.location == "aware"
    assert "booléen" in str(err)


def test_wrong_type_for_list() -> None:
    err = data_error(doc(attacks={"a": 1}))
    assert err.location == "attacks"
    assert "liste" in str(err)


def test_wrong_type_for_string_message_is_french() -> None:
    err = data_error(doc(name=5))
    assert err.location == "name"
    assert "chaîne de caractères" in str(err)


def test_wrong_type_for_object_message_is_french() -> None:
    err = data_error(doc(ac=[16, 13, 14]))
    assert err.location == "ac"
    assert "objet" in str(err)


@pytest.mark.parametrize("field", ["name", "abilities", "hp_max", "ac", "bab", "saves"])
def test_missing_required_field(field: str) -> None:
    err = data_error(doc(**{field: _DELETE}))
    assert err.location == field
    assert "champ obligatoire manquant" in str(err)


@pytest.mark.parametrize("hp", [0, -3])
def test_hp_max_not_positive(hp: int) -> None:
    err = data_error(doc(hp_max=hp))
    assert err.location == "hp_max"


def test_unknown_size() -> None:
    err = data_error(doc(size="Enormous"))
    assert err.location == "size"
    message = str(err)
    assert "valeur invalide 'Enormous'" in message
    assert "'Medium'" in message


def test_unknown_creature_type() -> None:
    err = data_error(doc(creature_type="humanod"))
    assert err.location == "creature_type"
    message = str(err)
    assert "type de créature inconnu « humanod »" in message
    assert "vouliez-vous dire « humanoid » ?" in message


@pytest.mark.parametrize("alignment", ["XX", "ne", "Neutral", ""])
def test_bad_alignment(alignment: str) -> None:
    err = data_error(doc(alignment=alignment))
    assert err.location == "alignment"
    assert "valeur invalide" in str(err)


@pytest.mark.parametrize(
    ("bypass", "expected"),
    [
        ("magic or", "« magic or »"),
        ("magic and good or silver", "ambigu"),
        ("silvr", "vouliez-vous dire « silver » ?"),
    ],
)
def test_bad_dr_bypass(bypass: str, expected: str) -> None:
    err = data_error(doc(dr={"amount": 5, "bypass": bypass}))
    assert err.location == "dr.bypass"
    assert "contournement de RD" in str(err)
    assert expected in str(err)


def test_dr_amount_not_positive() -> None:
    err = data_error(doc(dr={"amount": 0, "bypass": "magic"}))
    assert err.location == "dr.amount"


def test_unknown_resistance_and_immunity_types() -> None:
    err = data_error(doc(resistances={"fir": 5}))
    assert err.location == "resistances"
    assert "vouliez-vous dire « fire » ?" in str(err)
    err = data_error(doc(resistances={"fire": 0}))
    assert err.location == "resistances"
    assert "valeur > 0" in str(err)
    err = data_error(doc(immunities=["colld"]))
    assert err.location == "immunities"
    assert "vouliez-vous dire « cold » ?" in str(err)


@pytest.mark.parametrize("slots", [{"10": 1}, {"x": 1}, {"1": -1}])
def test_bad_spell_slots(slots: dict[str, int]) -> None:
    err = data_error(doc(spell_slots=slots))
    assert err.location == "spell_slots"


def test_speed_not_multiple_of_5() -> None:
    err = data_error(doc(speed_land_ft=32))
    assert "multiples de 5" in str(err)


def test_skill_armor_penalty_positive() -> None:
    err = data_error(doc(skills={"Climb": {"rank": 1, "armor_penalty": 2}}))
    assert err.location == 'skills["Climb"].armor_penalty'


# --------------------------------------------------------------------------- documents & files


def test_invalid_json_mentions_line_and_column() -> None:
    with pytest.raises(DataError) as info:
        parse_combatant('{\n  "name": "x",\n  oops\n}', "bad.json")
    message = str(info.value)
    assert message.startswith("bad.json : ")
    assert "JSON invalide" in message
    assert "ligne 3" in message
    assert "colonne 3" in message


@pytest.mark.parametrize("text", ["[]", "[1, 2]", '"goblin"', "42", "null"])
def test_json_document_not_an_object(text: str) -> None:
    with pytest.raises(DataError) as info:
        parse_combatant(text)
    assert "le document doit être un objet (clé: valeur)" in str(info.value)


def test_error_names_the_source_and_counts_other_errors() -> None:
    err = data_error(doc(hp_max="6", bab="1"), "monstres/x.json")
    assert err.source == "monstres/x.json"
    assert str(err).startswith("monstres/x.json : champ « hp_max » : ")
    assert "(et 1 autre erreur)" in str(err)


def test_load_combatant_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "absent.json"
    with pytest.raises(DataError) as info:
        load_combatant(missing)
    assert info.value.source == str(missing)
    assert "fichier introuvable" in str(info.value)


@pytest.mark.parametrize("path", ["", "   "])
def test_load_combatant_empty_path(path: str) -> None:
    with pytest.raises(DataError, match="chemin de fichier vide"):
        load_combatant(path)


def test_load_combatant_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps(doc(name="Bétail"), ensure_ascii=False).encode("latin-1"))
    with pytest.raises(DataError) as info:
        load_combatant(path)
    assert "UTF-8" in str(info.value)


def test_load_combatant_reads_file(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(FULL), encoding="utf-8")
    profile = load_combatant(path)
    assert profile.source_file == str(path)
    assert profile.base_id == "lich-magus"


def test_huge_integer_is_a_data_error() -> None:
    with pytest.raises(DataError):
        parse_combatant('{"hp_max": ' + "1" * 5000 + "}")


def test_deeply_nested_json_is_a_data_error() -> None:
    outcome = "accepted"
    try:
        parse_combatant("[" * 100_000 + "]" * 100_000)
    except DataError:
        return
    except RecursionError:  # not re-raised: pytest would render thousands of frames
        outcome = "RecursionError"
    pytest.fail(f"deeply nested JSON: {outcome} instead of DataError")
