"""Skill checks and CMD (SRD « Using Skills », « Stealth », « Combat Maneuver Defense »)."""

from __future__ import annotations

import json

import pytest
from builders import BASE, make_map, make_profile, state

from engine.content.creatures import parse_combatant
from engine.core.checks import Modifier
from engine.core.errors import DataError
from engine.core.rng import ScriptedDice
from engine.rules.attack import TOTAL_DEFENSE_EFFECT
from engine.rules.skills import base_cmd, cmd, key_ability, skill_bonus, skill_check, trained
from engine.state.effects import add_effect

ROW = make_map(["...."])


def _profile(**kw):
    return make_profile(**kw)


def test_goblin_stealth_from_ranks_adds_dex_class_skill_and_small_size():
    # Bestiary goblin: 1 rank, class skill, Dex 15, Small → Stealth +10
    goblin = _profile(
        size="Small",
        abilities={"str_score": 11, "dex_score": 15, "con_score": 12},
        skills={"Stealth": {"rank": 1, "class_skill": True}},
    )
    assert skill_bonus(goblin, "Stealth") == 1 + 2 + 3 + 4
    assert skill_bonus(goblin, "stealth") == 10  # names are case-insensitive


def test_size_only_on_stealth_class_skill_needs_a_rank_and_armor_penalty_applies():
    big = _profile(
        size="Large",
        skills={
            "Stealth": {"rank": 0, "class_skill": True},
            "Acrobatics": {"rank": 2, "class_skill": True, "armor_penalty": -3},
        },
    )
    assert skill_bonus(big, "Stealth") == -4  # no +3 without a rank; Large −4
    assert skill_bonus(big, "Acrobatics") == 2 + 3 - 3  # no size on Acrobatics
    tiny = _profile(size="Tiny")
    assert skill_bonus(tiny, "Stealth") == 8


def test_a_stat_block_total_replaces_the_computation_but_not_the_blinded_penalty():
    prof = _profile(size="Small", skills={"Perception": {"rank": 3, "total": 9}})
    assert skill_bonus(prof, "Perception") == 9  # no size, no Wis recomputed
    blind = _profile(conditions=["blinded"], skills={"Perception": {"rank": 3, "total": 9}})
    assert skill_bonus(blind, "Perception") == 5  # SRD « Blinded »: opposed Perception −4
    assert skill_bonus(_profile(conditions=["blinded"]), "Stealth") == -4  # a Dex skill
    assert skill_bonus(_profile(conditions=["blinded"]), "Diplomacy") == 0


def test_untrained_uses_the_key_ability_only():
    wise = _profile(abilities={"str_score": 10, "dex_score": 10, "con_score": 10, "wis_score": 14})
    assert skill_bonus(wise, "Perception") == 2
    assert not trained(wise, "Acrobatics")
    assert trained(_profile(skills={"acrobatics": {"rank": 1}}), "Acrobatics")
    assert key_ability("Knowledge (arcana)") == "int"
    assert key_ability("Sleight of Hand") == "dex"
    assert key_ability("Basket weaving") is None


def test_skill_check_has_no_natural_1_or_20_and_names_its_modifiers():
    prof = _profile(skills={"Acrobatics": {"rank": 2, "class_skill": True}})
    me = state("me", "A", prof, ROW, (0, 0))
    rec = skill_check(ScriptedDice({"acrobatics": [20]}), me, "Acrobatics", 26)
    assert (rec.kind, rec.total, rec.success, rec.automatic) == ("skill", 25, False, False)
    assert [m.source for m in rec.modifiers] == ["rangs", "compétence de classe"]
    rec = skill_check(ScriptedDice({"acrobatics": [1]}), me, "Acrobatics", 6, (Modifier(0, "x"),))
    assert (rec.total, rec.success) == (6, True)
    assert rec.explain("DMD") == "d20=1+5=6 vs DMD 6 -> réussite (marge 0)"


def test_cmd_is_computed_with_the_special_size_modifier_or_read_from_the_file():
    spec = _profile(
        size="Large", bab=3, abilities={"str_score": 18, "dex_score": 8, "con_score": 10}
    ).spec
    assert base_cmd(spec) == 10 + 3 + 4 - 1 + 1
    assert base_cmd(_profile(size="Tiny").spec) == 10 + 1 - 2
    assert base_cmd(_profile(cmd=25).spec) == 25
    guard = state("g", "B", _profile(), ROW, (0, 0))
    add_effect(guard, TOTAL_DEFENSE_EFFECT)  # +4: a dodge bonus, which applies to CMD
    assert cmd(guard) == 11 + 4


@pytest.mark.parametrize(
    ("patch", "needle"),
    [
        ({"cmd": -1}, "cmd"),
        ({"skills": {"Stealth": {"rank": 1, "total": "dix"}}}, 'skills["Stealth"].total'),
        ({"skills": {"Stealth": {"total": 3}}}, 'skills["Stealth"].rank'),
    ],
)
def test_bad_skill_and_cmd_data_are_french_data_errors(patch, needle):
    data = json.loads(json.dumps(BASE))
    data.update(patch)
    with pytest.raises(DataError) as info:
        parse_combatant(json.dumps(data), "x.json")
    assert needle in str(info.value)
