"""Casting under threat (`engine/rules/concentration.py`): the concentration check and
its DCs, Combat Casting, nauseated casters, arcane spell failure and a deafened caster's
verbal components — exact probabilities, and no die drawn when a rule does not apply."""

from __future__ import annotations

import math

from builders import battle, make_map, make_profile, state

from engine.content.actions import Reason
from engine.core.events import Concentration, SpellFailure
from engine.core.rng import ScriptedDice, SeededRng
from engine.rules.concentration import (
    cast_defensively,
    concentrate,
    concentration_modifiers,
    damage_dc,
    defensive_dc,
    grapple_dc,
    grappled_casting,
    hurt_while_casting,
    spell_failure,
    verify_can_cast,
)
from engine.rules.readiness import HOOKS
from engine.state.fight import FightState
from harness.transcript import lines

ROW = make_map(["...."])
#: a 3rd-level caster with Int 16: concentration +6
ABILITIES = {"str_score": 10, "dex_score": 10, "con_score": 14, "int_score": 16}


def wizard(*, feats=(), conditions=(), asf=0, arcane=True, level=3, casting="int"):
    prof = make_profile(
        name="Magicien",
        level=level,
        abilities=ABILITIES,
        casting_ability=casting,
        features=list(feats),
        conditions=list(conditions),
        armor_spell_failure=asf,
        arcane_caster=arcane,
    )
    return state("mage", "A", prof, ROW, (0, 0))


def fight_of(caster, rng):
    return FightState(ROW, [caster], ("A",), rng, HOOKS)


def texts(b):
    return [m for _r, _a, m, _rolls in lines(b.fight.log)]


def test_the_dcs():
    assert [defensive_dc(n) for n in (0, 1, 2, 9)] == [15, 17, 19, 33]
    assert damage_dc(7, 2) == 19
    assert grapple_dc(9, 3) == 22


def test_the_check_is_caster_level_plus_the_casting_ability_never_constitution():
    mods = concentration_modifiers(wizard())
    assert [(m.value, m.source) for m in mods] == [(3, "niveau de lanceur"), (3, "Intelligence")]
    cha = make_profile(level=5, abilities={**ABILITIES, "cha_score": 19}, casting_ability="cha")
    sorcerer = state("s", "A", cha, ROW, (0, 0))
    assert [(m.value, m.source) for m in concentration_modifiers(sorcerer)] == [
        (5, "niveau de lanceur"),
        (4, "Charisme"),
    ]
    # a caller's own caster level (a multiclass caster) replaces the file's level
    assert concentration_modifiers(wizard(), level=7)[0].value == 7


def test_combat_casting_counts_when_asked_and_only_with_the_feat():
    with_feat = wizard(feats=["Combat Casting"])
    assert [m.value for m in concentration_modifiers(with_feat, combat_casting=True)] == [3, 3, 4]
    assert [m.value for m in concentration_modifiers(with_feat)] == [3, 3]
    assert [m.value for m in concentration_modifiers(wizard(), combat_casting=True)] == [3, 3]


def test_no_natural_result_on_a_concentration_check():
    # a natural 1 with +6 against DC 7 succeeds; a natural 20 with +6 against DC 27 fails
    b = battle(ROW, [wizard()], {"concentration": [1, 20]})
    assert concentrate(b.fight, b.fight.combatants[0], "defensive", 7, spell="sommeil")
    assert not concentrate(b.fight, b.fight.combatants[0], "defensive", 27, spell="sommeil")


def defensive_successes(caster_kw, spell_level=1):
    """How many of the 20 faces of the d20 let the caster cast defensively."""
    wins = 0
    for face in range(1, 21):
        caster = wizard(**caster_kw)
        fight = fight_of(caster, ScriptedDice({"concentration": [face]}))
        wins += cast_defensively(fight, caster, spell_level, spell="sommeil")
    return wins


def test_defensive_casting_exact_chances_by_enumeration():
    # +6 against DC 17 (a 1st-level spell): 11–20 succeed; Combat Casting +4: 7–20
    assert defensive_successes({}) / 20 == 0.50
    assert defensive_successes({"feats": ["Combat Casting"]}) / 20 == 0.70


def rate(trials, n=20_000):
    """The success rate of ``trials(rng)`` over ``n`` seeded runs."""
    rng = SeededRng(1018)
    return sum(trials(rng) for _ in range(n)) / n


def within_3_sigma(observed, p, n=20_000):
    return abs(observed - p) <= 3 * math.sqrt(p * (1 - p) / n)


def test_defensive_casting_rates_within_three_sigma():
    plain, feat = wizard(), wizard(feats=["Combat Casting"])

    def plain_trial(rng):
        return cast_defensively(fight_of(plain, rng), plain, 1, spell="sommeil")

    def feat_trial(rng):
        return cast_defensively(fight_of(feat, rng), feat, 1, spell="sommeil")

    assert within_3_sigma(rate(plain_trial), 0.50)
    assert within_3_sigma(rate(feat_trial), 0.70)


def test_damage_while_casting_ignores_combat_casting():
    caster = wizard(feats=["Combat Casting"])
    b = battle(ROW, [caster], {"concentration": [10, 11]})
    # +6 against 10 + 6 damage + level 1 = 17: 10 fails, 11 succeeds — no +4
    assert not hurt_while_casting(b.fight, caster, 6, 1, spell="projectile magique")
    assert hurt_while_casting(b.fight, caster, 6, 1, spell="projectile magique")
    assert texts(b) == [
        "blessé en incantant (6 dégâts) (projectile magique) : concentration "
        "d20=10+6=16 vs DD 17 -> échec (marge -1) : sort perdu",
        "blessé en incantant (6 dégâts) (projectile magique) : concentration "
        "d20=11+6=17 vs DD 17 -> réussite (marge 0)",
    ]


def test_no_damage_no_check_and_no_die():
    caster = wizard()
    b = battle(ROW, [caster])  # no die may be rolled
    assert hurt_while_casting(b.fight, caster, 0, 3, spell="boule de feu")
    assert b.fight.log == []


def test_grappled_casting_uses_the_grapplers_cmb_and_combat_casting():
    caster = wizard(feats=["Combat Casting"])
    b = battle(ROW, [caster], {"concentration": [8, 8]})
    # +6 +4 against 10 + CMB 7 + level 2 = 19: 8 gives 18, fails; against CMB 6 (DC 18) it passes
    assert not grappled_casting(b.fight, caster, 7, 2, spell="toile d'araignée")
    assert grappled_casting(b.fight, caster, 6, 2, spell="toile d'araignée")
    assert texts(b)[0] == (
        "incantation en étant agrippé (toile d'araignée) : concentration d20=8+10=18 vs DD 19 "
        "-> échec (marge -1) : sort perdu"
    )
    log = b.fight.log
    assert log is not None
    first = log[0]
    assert isinstance(first, Concentration) and first.roll is not None
    assert [m.source for m in first.roll.modifiers] == [
        "niveau de lanceur",
        "Intelligence",
        "Magie de guerre",
    ]


def test_defensive_casting_line():
    caster = wizard()
    b = battle(ROW, [caster], {"concentration": [12]})
    assert cast_defensively(b.fight, caster, 1, spell="sommeil")
    assert texts(b) == [
        "incantation sur la défensive (sommeil) : concentration d20=12+6=18 vs DD 17 "
        "-> réussite (marge 1)"
    ]


def test_a_nauseated_caster_cannot_cast_nor_concentrate_and_draws_no_die():
    caster = wizard(conditions=["nauseated"])
    assert verify_can_cast(caster) is Reason.DOWNGRADED_NAUSEATED
    assert verify_can_cast(wizard()) is None
    b = battle(ROW, [caster])  # no die may be rolled
    assert not cast_defensively(b.fight, caster, 1, spell="sommeil")
    assert not hurt_while_casting(b.fight, caster, 3, 1, spell="sommeil")
    assert texts(b) == [
        "incantation sur la défensive (sommeil) : nauséeux, ne peut pas se concentrer : sort perdu",
        "blessé en incantant (3 dégâts) (sommeil) : nauséeux, ne peut pas se concentrer : "
        "sort perdu",
    ]


# -- spell failure ------------------------------------------------------------------


def test_no_die_is_drawn_when_no_failure_rule_applies():
    cases = [
        (wizard(), {"V", "S", "M"}),  # neither deafened nor armored
        (wizard(conditions=["deafened"]), {"S", "M"}),  # deafened, no verbal component
        (wizard(asf=15), {"V", "M"}),  # armored, no somatic component
        (wizard(asf=15, arcane=False), {"V", "S"}),  # not an arcane caster
        (wizard(asf=0), {"V", "S"}),  # arcane, no spell failure
        (wizard(conditions=["deafened"], asf=20), set()),  # components not encoded
    ]
    for caster, components in cases:
        b = battle(ROW, [caster])  # a die would raise
        assert spell_failure(b.fight, caster, components, spell="sort") is None
        assert b.fight.log == []


def test_a_divine_spell_of_an_arcane_caster_rolls_no_arcane_failure():
    caster = wizard(asf=30)
    b = battle(ROW, [caster])
    assert spell_failure(b.fight, caster, {"V", "S"}, spell="soins légers", arcane=False) is None


def failures(caster_kw, components, cause, sides=100):
    """How many of the faces of the d100 make the spell fail for ``cause``."""
    count = 0
    for face in range(1, sides + 1):
        caster = wizard(**caster_kw)
        fight = fight_of(caster, ScriptedDice({"spell_failure": [face]}))
        count += spell_failure(fight, caster, components, spell="sort") == cause
    return count


def test_spell_failure_exact_chances_by_enumeration():
    assert failures({"asf": 15}, {"V", "S"}, "arcane") == 15  # d100 ≤ 15
    assert failures({"conditions": ["deafened"]}, {"V", "S"}, "deafened") == 20  # d100 ≤ 20


def test_spell_failure_rates_within_three_sigma():
    armored, deaf = wizard(asf=15), wizard(conditions=["deafened"])

    def arcane_trial(rng):
        return spell_failure(fight_of(armored, rng), armored, {"V", "S"}, spell="sort") is not None

    def deaf_trial(rng):
        return spell_failure(fight_of(deaf, rng), deaf, {"V", "S"}, spell="sort") is not None

    assert within_3_sigma(rate(arcane_trial), 0.15)
    assert within_3_sigma(rate(deaf_trial), 0.20)


def test_deafened_then_arcane_each_rolled_only_while_the_spell_still_holds():
    caster = wizard(conditions=["deafened"], asf=15)
    # the deafened d100 fails: the arcane one is not drawn
    b = battle(ROW, [caster], {"spell_failure": [20]})
    assert spell_failure(b.fight, caster, {"V", "S"}, spell="sommeil") == "deafened"
    assert texts(b) == [
        "assourdi, composante verbale (sommeil) : d100=20 ≤ 20 % -> échec, sort perdu"
    ]
    # the deafened d100 passes: the arcane one is drawn, and fails
    b = battle(ROW, [caster], {"spell_failure": [21, 15]})
    assert spell_failure(b.fight, caster, {"V", "S"}, spell="sommeil") == "arcane"
    assert texts(b) == [
        "assourdi, composante verbale (sommeil) : d100=21 > 20 % -> le sort passe",
        "échec des sorts profanes (sommeil) : d100=15 ≤ 15 % -> échec, sort perdu",
    ]
    assert b.fight.log == [
        SpellFailure(1, "mage", "sommeil", "deafened", 21, 20, False),
        SpellFailure(1, "mage", "sommeil", "arcane", 15, 15, True),
    ]


def test_both_failures_together_within_three_sigma():
    caster = wizard(conditions=["deafened"], asf=15)

    def trial(rng):
        return spell_failure(fight_of(caster, rng), caster, {"V", "S"}, spell="sort") is None

    assert within_3_sigma(rate(trial), 0.80 * 0.85)
