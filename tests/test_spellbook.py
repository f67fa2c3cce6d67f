"""A creature's spells resolved when an encounter is built (engine/content/spellbook.py):
the level each is cast at, the caster level, the DC, the slots, the touch attacks,
and what cannot be cast (listed « non modélisé » with why)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import make_map, make_profile

from engine.content.spellbook import build_spellbook, spell_level, unplayable_reason
from engine.content.spells import SpellRegistry, default_registry, parse_spell
from engine.state.casting import Casting
from engine.state.encounter import build_encounter

ROOT = Path(__file__).resolve().parents[1]
SPELLS = ROOT / "data" / "spells"


def spell_file(**changes: Any) -> dict[str, Any]:
    """The shipped Magic Missile file with ``changes`` (a test spell)."""
    data = json.loads((SPELLS / "magic-missile.json").read_text(encoding="utf-8"))
    data.update(changes)
    return data


def caster(**changes: Any):
    base: dict[str, Any] = {
        "name": "Mage",
        "level": 5,
        "abilities": {"str_score": 8, "dex_score": 14, "con_score": 10, "int_score": 17},
        "bab": 2,
        "casting_ability": "int",
        "spell_slots": {"0": 3, "1": 4, "3": 1},
        "spells": ["magic missile", "fireball", "cure light wounds", "sleep"],
    }
    base.update(changes)
    return make_profile(**base)


def test_caster_level_dc_slots_and_touch_attacks():
    book = build_spellbook(caster().spec, default_registry())
    assert book.caster_level == 5  # the file's level
    assert book.ability == "int" and book.ability_mod == 3
    assert book.dc(1) == 14 and book.dc(3) == 16  # 10 + level + Int
    assert book.slots == (3, 4, 0, 1, 0, 0, 0, 0, 0, 0)
    assert [k.spell.id for k in book.known] == [
        "magic-missile", "fireball", "cure-light-wounds", "sleep"
    ]  # fmt: skip
    # melee touch: BAB + Str (−1); ranged touch: BAB + Dex (+2); Medium: no size modifier
    assert book.melee_touch.attack_bonus == 1 and book.melee_touch.reach_ft == 5
    assert book.ranged_touch.attack_bonus == 4 and not book.ranged_touch.is_melee
    small_ac = {"dex": 2, "size": 1}
    small = build_spellbook(caster(size="Small", ac=small_ac).spec, default_registry())
    assert small.ranged_touch.attack_bonus == 5  # +1 for a Small caster
    assert build_spellbook(caster(caster_level=3).spec, default_registry()).caster_level == 3


def test_the_level_a_spell_is_cast_at():
    registry = default_registry()
    cure = registry.resolve("cure light wounds")  # cleric 1 … ranger 2
    assert spell_level(caster().spec, cure) == 1  # no class: the lowest
    assert spell_level(caster(classes=["Ranger"]).spec, cure) == 2
    assert spell_level(caster(classes=["ranger", "cleric"]).spec, cure) == 1
    assert spell_level(caster(classes=["wizard"]).spec, cure) == 1  # none learns it: lowest
    assert spell_level(caster(spell_levels={"Cure Light Wounds": 4}).spec, cure) == 4
    book = build_spellbook(caster(classes=["ranger"]).spec, registry)
    assert book.by_id["cure-light-wounds"].level == 2
    assert book.get("Cure  light wounds") is book.by_id["cure-light-wounds"]


def test_what_cannot_be_cast_is_listed_with_why(tmp_path: Path):
    (tmp_path / "magic-missile.json").write_text(json.dumps(spell_file()), encoding="utf-8")
    unmodelled = spell_file(id="wish", name="Wish", modelled=False, reason="trop vaste")
    (tmp_path / "wish.json").write_text(json.dumps(unmodelled), encoding="utf-8")
    slow = spell_file(id="ritual", name="Ritual", cast_time="long")
    (tmp_path / "ritual.json").write_text(json.dumps(slow), encoding="utf-8")
    registry = SpellRegistry(tmp_path)
    spec = caster(spells=["magic missile", "wish", "ritual", "magik missile"])
    book = build_spellbook(spec.spec, registry)
    assert [k.spell.id for k in book.known] == ["magic-missile"]
    assert book.unplayable == (
        ("wish", "trop vaste"),
        ("ritual", "incantation de plus d'un round : jamais lancé en combat"),
        ("magik missile", "sort inconnu « magik missile » (vouliez-vous dire « Magic Missile » ?)"),
    )
    assert book.unplayable_ids == {"wish"}
    assert book.get("ritual") is not None  # known: refused as it is cast (its cast time)


@pytest.mark.parametrize(
    ("effect", "why"),
    [
        ({"kind": "condition", "conditions": ["bleeding"], "rounds": "@cl", "bleed": 1},
         "saignement : pas encore joué"),
        ({"kind": "condition", "conditions": ["stunned"], "rounds": "1",
          "then": [{"conditions": ["blinded"], "rounds": "1"}]},
         "phases de conditions disjointes : pas encore joué"),
    ],
)  # fmt: skip
def test_unplayable_parts_of_the_schema(effect: dict[str, Any], why: str):
    spell = parse_spell(json.dumps(spell_file(effects=[effect])))
    assert unplayable_reason(spell) == why


def test_nested_phases_are_played():
    phases = {"kind": "condition", "conditions": ["unconscious", "blinded", "stunned"],
              "rounds": "2d4", "then": [{"conditions": ["blinded", "stunned"], "rounds": "1d4"},
                                        {"conditions": ["stunned"], "rounds": "1"}]}  # fmt: skip
    spell = parse_spell(json.dumps(spell_file(effects=[phases])))
    assert unplayable_reason(spell) is None


def test_an_encounter_resolves_each_creature_once_and_each_fight_gets_its_slots():
    gmap = make_map(["....", "...."], zones=["A..B", "A..B"], deployment={"a": "A", "b": "B"})
    mage = caster()
    enc = build_encounter(gmap, [("a", [mage, mage]), ("b", [make_profile()])])
    first, second, other = enc.placements
    assert first.spellbook is not None and first.spellbook is second.spellbook
    assert other.spellbook is None
    states = enc.fresh_states()
    assert states[2].casting is None
    casting = states[0].casting
    assert isinstance(casting, Casting) and casting is not states[1].casting
    assert casting.has_slot(0) and casting.has_slot(3) and not casting.has_slot(2)
    casting.spend(3)
    casting.spend(0)  # a cantrip is free
    assert casting.slots[3] == 0 and casting.slots[0] == 3 and casting.cast == 2
    assert not casting.has_slot(3)
    # the next fight starts again from the file's slots
    assert enc.fresh_states()[0].casting.slots[3] == 1  # type: ignore[union-attr]
