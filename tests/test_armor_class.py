"""Armor Class as a breakdown (engine/content/creatures.py: ``ACBreakdown``, ``ACProfile``,
``derive_breakdown``, ``CombatantProfile.ac``).

CRB « Armor Class »: AC = 10 + armor bonus + shield bonus + Dexterity modifier +
other modifiers; « Touch Attacks »: no armor, shield or natural armor bonus;
« Flat-Footed »: no Dexterity bonus, and « Dodge »: no dodge bonus either.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.content.creatures import (
    AC_COMPONENTS,
    SIZE_MODIFIER,
    ACBreakdown,
    ability_mod,
    derive_breakdown,
    load_combatant,
    parse_combatant,
)
from engine.content.validation import load_json
from engine.core.checks import BonusType, Modifier, stacked_total
from engine.core.errors import DataError

REPO = Path(__file__).resolve().parents[1]

DOC: dict[str, Any] = {
    "name": "Goblin",
    "size": "Small",
    "abilities": {"str_score": 11, "dex_score": 15, "con_score": 12},
    "hp_max": 6,
    "ac": {"armor": 2, "shield": 1, "dex": 2, "size": 1},
    "bab": 1,
    "initiative_mod": 6,
    "speed_land_ft": 30,
    "saves": {"fort": 3, "ref": 2, "will": -1},
}


def doc(ac: dict[str, Any], **extra: Any) -> str:
    data = copy.deepcopy(DOC)
    data["ac"] = ac
    data.update(extra)
    return json.dumps(data)


def error(ac: dict[str, Any], **extra: Any) -> DataError:
    with pytest.raises(DataError) as info:
        parse_combatant(doc(ac, **extra), "gobelin.json")
    return info.value


def totals(b: ACBreakdown) -> tuple[int, int, int]:
    return b.total, b.touch, b.flat_footed


# --------------------------------------------------------------------------- the breakdown


def test_touch_leaves_out_armor_shield_and_natural_armor_only():
    b = ACBreakdown(armor=4, shield=2, natural_armor=3, deflection=1, dex=2, dodge=1, size=-1,
                    other=1)  # fmt: skip
    assert b.total == 10 + 4 + 2 + 3 + 1 + 2 + 1 - 1 + 1
    assert b.touch == b.total - 9
    assert b.flat_footed == b.total - 2 - 1


def test_flat_footed_keeps_a_dex_penalty():
    b = ACBreakdown(armor=5, dex=-1)
    assert totals(b) == (14, 9, 14)


def test_nothing_is_ac_10():
    assert totals(ACBreakdown()) == (10, 10, 10)
    assert ACBreakdown().modifiers() == ()
    assert ACBreakdown().explain() == ""


def test_its_typed_modifiers_stack_back_to_its_total():
    b = ACBreakdown(armor=2, shield=1, natural_armor=1, deflection=1, dex=2, dodge=1, size=1,
                    other=-1)  # fmt: skip
    mods = b.modifiers()
    assert [m.type for m in mods] == [
        BonusType.ARMOR, BonusType.SHIELD, BonusType.NATURAL_ARMOR, BonusType.DEFLECTION,
        BonusType.UNTYPED, BonusType.DODGE, BonusType.SIZE, BonusType.UNTYPED,
    ]  # fmt: skip
    assert 10 + stacked_total(mods) == b.total


def test_an_effect_combines_with_the_breakdown_by_the_stacking_rules():
    """What typed modifiers are for: *shield* (+4 shield) replaces a light shield's +1,
    *mage armor* (+4 armor) a leather armor's +2, a second dodge bonus adds."""
    goblin = ACBreakdown(armor=2, shield=1, dex=2, size=1)
    spells = (
        Modifier(4, "sort bouclier", BonusType.SHIELD),
        Modifier(4, "armure du mage", BonusType.ARMOR),
        Modifier(1, "rapidité", BonusType.DODGE),
    )
    assert 10 + stacked_total((*goblin.modifiers(), *spells)) == 16 - 1 + 4 - 2 + 4 + 1


# --------------------------------------------------------------------------- files with components


def test_components_alone_give_the_totals():
    profile = parse_combatant(doc({"armor": 2, "shield": 1, "dex": 2, "size": 1}))
    assert totals(profile.ac) == (16, 13, 14)
    assert not profile.ac.derived
    assert profile.spec.ac.total is None  # the file's text is kept as written


def test_components_and_agreeing_totals():
    ac = {"total": 16, "touch": 13, "flat_footed": 14, "armor": 2, "shield": 1, "dex": 2, "size": 1}
    profile = parse_combatant(doc(ac))
    assert profile.ac == ACBreakdown(armor=2, shield=1, dex=2, size=1)


def test_some_totals_given_are_checked_the_others_computed():
    profile = parse_combatant(doc({"touch": 13, "armor": 2, "shield": 1, "dex": 2, "size": 1}))
    assert totals(profile.ac) == (16, 13, 14)


@pytest.mark.parametrize(
    ("total", "value", "expected", "how"),
    [
        ("total", 17, 16, "10 +2 armor +1 shield +2 dex +1 size"),
        ("touch", 14, 13, "16 − armor 2 − shield 1 : sans armure, bouclier ni armure naturelle"),
        ("flat_footed", 16, 14, "16 − dex 2 : sans bonus de Dextérité ni d'esquive"),
    ],
)
def test_a_total_that_disagrees_is_a_french_error(total, value, expected, how):
    err = error({total: value, "armor": 2, "shield": 1, "dex": 2, "size": 1})
    assert err.location == "ac"
    assert err.message == (
        f"« {total} » vaut {value} mais les composantes en donnent {expected} ({how})"
    )
    assert str(err).startswith("gobelin.json : champ « ac » : ")


def test_totals_without_components_must_all_be_there():
    err = error({"total": 16, "touch": 13})
    assert err.location == "ac"
    assert err.message.startswith("« flat_footed » manquant : donner « total », « touch » et")
    assert "armor, shield, natural_armor, deflection, dex, dodge, size, other" in err.message
    assert "« total », « touch », « flat_footed » manquants : " in error({}).message


@pytest.mark.parametrize("name", ["armor", "shield", "natural_armor", "deflection", "dodge"])
def test_bonuses_cannot_be_negative(name):
    err = error({"dex": 2, "size": 1, name: -1})
    assert err.location == f"ac.{name}"
    assert "supérieur ou égal à 0" in err.message


def test_an_unknown_component_suggests_the_closest_name():
    err = error({"natural": 1, "dex": 2, "size": 1})
    assert "champ inconnu « natural »" in err.message
    assert "natural_armor" in err.message


def test_the_size_component_is_the_creature_size_modifier():
    err = error({"armor": 2, "dex": 2})
    assert err.location == "ac"
    assert err.message == (
        "composante « size » manquante : une créature Small a un modificateur de taille de +1"
    )
    assert "« size » vaut -1" in error({"armor": 2, "dex": 2, "size": -1}).message
    big = parse_combatant(doc({"natural_armor": 5, "dex": 2, "size": -1}, size="Large"))
    assert totals(big.ac) == (16, 11, 14)
    medium = parse_combatant(doc({"armor": 3, "dex": 2}, size="Medium"))
    assert totals(medium.ac) == (15, 12, 13)


def test_the_dex_component_follows_the_dexterity_modifier():
    err = error({"armor": 2, "size": 1})
    assert err.location == "ac"
    assert "« dex » manquante : le modificateur de Dextérité est +2" in err.message
    assert "hors de 0 à +2" in error({"dex": 3, "size": 1}).message
    assert "hors de 0 à +2" in error({"dex": -1, "size": 1}).message
    # armor may cap the bonus (full plate: +1)
    capped = parse_combatant(doc({"armor": 9, "dex": 1, "size": 1}))
    assert totals(capped.ac) == (21, 12, 20)
    clumsy = {"str_score": 11, "dex_score": 8, "con_score": 12}
    err = error({"armor": 2, "size": 1}, abilities=clumsy)
    assert "« dex » manquante : le modificateur de Dextérité est -1" in err.message
    assert "un malus s'applique" in err.message
    err = error({"armor": 2, "dex": 0, "size": 1}, abilities=clumsy)
    assert "« dex » : +0, mais le modificateur de Dextérité est -1" in err.message
    assert "jamais un malus" in err.message
    assert totals(parse_combatant(doc({"dex": -1, "size": 1}, abilities=clumsy)).ac) == (10, 10, 10)


def test_a_dexterity_of_10_needs_no_dex_component():
    even = {"str_score": 11, "dex_score": 10, "con_score": 12}
    assert totals(parse_combatant(doc({"armor": 3, "size": 1}, abilities=even)).ac) == (14, 11, 14)


# --------------------------------------------------------------------------- files with totals only


def test_a_file_with_totals_only_gets_a_derived_breakdown():
    profile = parse_combatant(doc({"total": 16, "touch": 13, "flat_footed": 14}))
    assert profile.ac == ACBreakdown(armor=3, dex=2, size=1, derived=True)
    assert profile.ac.modifiers()[0] == Modifier(
        3, "armure, bouclier et armure naturelle", BonusType.ARMOR
    )


def test_derivation_infers_dodge_a_dex_cap_and_the_rest():
    # Dex +3, but only 2 lost when flat-footed: the armor caps Dex at +2
    assert derive_breakdown(17, 12, 15, 3, "Medium") == ACBreakdown(
        armor=5, dex=2, other=0, derived=True
    )
    # 3 lost flat-footed with Dex +2: a dodge bonus of +1
    assert derive_breakdown(15, 13, 12, 2, "Medium") == ACBreakdown(
        armor=2, dex=2, dodge=1, derived=True
    )
    # a Dex penalty stays flat-footed; deflection and the like end in other
    assert derive_breakdown(12, 11, 12, -1, "Large") == ACBreakdown(
        armor=1, dex=-1, size=-1, other=3, derived=True
    )


@given(
    st.integers(-20, 80),
    st.integers(-20, 80),
    st.integers(-20, 80),
    st.integers(-5, 10),
    st.sampled_from(sorted(SIZE_MODIFIER)),
)
def test_derivation_reproduces_any_totals(total, touch, flat, dex_mod, size):
    b = derive_breakdown(total, touch, flat, dex_mod, size)
    assert totals(b) == (total, touch, flat)
    assert b.size == SIZE_MODIFIER[size]
    if touch <= total and flat <= total:  # every PRD stat block (checked: 1857 of them)
        assert b.armor >= 0
        assert b.dodge >= 0
        assert b.dex <= dex_mod


# --------------------------------------------------------------------------- shipped creatures

#: the breakdown of every shipped creature, written out: components from the file
#: (data/monsters, from the PRD) or derived from its totals (bench/devset)
SHIPPED = {
    "data/monsters/goblin.json": ACBreakdown(armor=2, shield=1, dex=2, size=1),
    "data/monsters/orc.json": ACBreakdown(armor=3),
    "data/monsters/lich.json": ACBreakdown(armor=4, natural_armor=5, deflection=2, dex=2),
    "data/monsters/ghoul.json": ACBreakdown(natural_armor=2, dex=2),
    "data/monsters/troglodyte.json": ACBreakdown(natural_armor=6, dex=-1),
    "data/monsters/acolyte.json": ACBreakdown(armor=5, shield=2),
    # mage armor cast before the fight (its notes)
    "data/monsters/battle_mage.json": ACBreakdown(armor=4, dex=2),
    "data/monsters/cultist.json": ACBreakdown(armor=6, shield=1, dex=1),
    "data/monsters/mercenary_magician.json": ACBreakdown(dex=2),
    "data/monsters/shaman.json": ACBreakdown(armor=2, dex=-1),
    "data/monsters/street_magician.json": ACBreakdown(dex=1, dodge=1, size=1),
    "bench/devset/bugbear.json": ACBreakdown(armor=3, derived=True),
    "bench/devset/gnoll.json": ACBreakdown(armor=3, derived=True),
    # its totals are the goblin's, but it is Medium: the goblin's +1 size is left over
    "bench/devset/hobgoblin.json": ACBreakdown(armor=3, dex=2, other=1, derived=True),
    "bench/devset/kobold.json": ACBreakdown(armor=3, dex=2, size=1, derived=True),
    "bench/devset/norg.json": ACBreakdown(armor=3, derived=True),
}


def _shipped() -> list[Path]:
    return sorted((REPO / "data" / "monsters").glob("*.json")) + sorted(
        (REPO / "bench" / "devset").glob("*.json")
    )


def test_every_shipped_creature_is_listed():
    assert sorted(str(p.relative_to(REPO)) for p in _shipped()) == sorted(SHIPPED)


@pytest.mark.parametrize(
    "path",
    [
        *_shipped(),
        *sorted((REPO / "tests" / "scenarios" / "creatures").glob("*.json")),
    ],
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_a_creature_breakdown_gives_its_stated_ac(path: Path):
    """The totals the file states (the AC the fights have always used) are exactly
    the totals of its breakdown, which the engine now reads."""
    raw: Any = load_json(path.read_text(encoding="utf-8"), str(path))
    stated = raw["ac"]
    profile = load_combatant(path)
    b = profile.ac
    assert (stated["total"], stated["touch"], stated["flat_footed"]) == totals(b)
    assert 10 + stacked_total(b.modifiers()) == b.total
    assert b.size == SIZE_MODIFIER[profile.spec.size]
    assert b.dex <= max(ability_mod(profile.spec.abilities.dex_score), 0)
    components = {k for k in stated if k in AC_COMPONENTS}
    assert b.derived == (not components)
    rel = str(path.relative_to(REPO))
    if rel in SHIPPED:
        assert b == SHIPPED[rel]


def test_the_observation_shows_the_three_totals_as_before():
    from engine.state.state import CombatantState
    from engine.view.snapshot import ProfileView, build_views

    profile = load_combatant(REPO / "data" / "monsters" / "goblin.json")
    goblin = CombatantState("goblin", "players", profile, 0, 0, profile.spec.hp_max)
    (view,) = build_views({"goblin": ProfileView("goblin", "players", profile)}, 8, [goblin])
    assert view.to_dict()["ac"] == {"total": 16, "touch": 13, "flat_footed": 14}
    assert (view.ac.total, view.ac.touch, view.ac.flat_footed) == (16, 13, 14)
