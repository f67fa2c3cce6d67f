"""Saving throws (engine/rules/saves.py): the one check mechanism, natural 1 and 20,
conditioned modifiers, Reflex cover against an area, harmless effects, immunities.

SRD « Saving Throws »: « Saving Throw = base save bonus + ability modifier »
against « DC »; « A natural 1 (the d20 comes up 1) on a saving throw is always a
failure … A natural 20 is always a success. » SRD « Cover »: « Cover and Reflex
Saves: Cover grants you a +2 bonus on Reflex saves against attacks that originate
or burst out from a point on the other side of the cover from you » (half the AC
bonus; « Soft cover … does not give a bonus on Reflex saves »).
"""

from __future__ import annotations

import math

import pytest

from engine.core.checks import BonusType, Modifier
from engine.core.rng import SeededRng
from engine.rules.saves import immune, reflex_cover, roll_save, save_modifiers
from engine.state.conditions import condition_effect
from engine.state.effects import WILL, Effect, add_effect, on_saves
from tests.builders import battle, make_map, make_profile, messages, state

OPEN = ["......", "......", "......"]


def _one(saves: dict[str, int] | None = None, **kw: object):  # type: ignore[no-untyped-def]
    gmap = make_map(OPEN)
    prof = make_profile(saves=saves or {"fort": 0, "ref": 0, "will": 0}, **kw)
    return gmap, state("t", "A", prof, gmap, (0, 0))


def _expected(bonus: int, dc: int) -> float:
    """SRD: success on d20 + bonus ≥ DC, except a natural 1 (fails) and a natural 20
    (succeeds): count the faces."""
    faces = [n for n in range(1, 21) if n == 20 or (n != 1 and n + bonus >= dc)]
    return len(faces) / 20


@pytest.mark.parametrize(("bonus", "dc"), [(-1, 18), (5, 15), (20, 18), (-30, 10), (11, 18)])
def test_save_probability_is_exact_within_three_sigma(bonus: int, dc: int) -> None:
    gmap, t = _one({"fort": 0, "ref": 0, "will": bonus})
    b = battle(gmap, [t], SeededRng(1234 + bonus), record=False)
    n = 20_000
    wins = 0
    for _ in range(n):
        rec = roll_save(b.fight, t, "will", dc, effect="test")
        assert rec is not None
        wins += bool(rec.success)
    p = _expected(bonus, dc)
    # the closed form of the issue: clamp((21 + bonus − DC) / 20, 1/20, 19/20)
    assert p == min(19, max(1, 21 + bonus - dc)) / 20
    sigma = math.sqrt(p * (1 - p) / n)
    assert abs(wins / n - p) <= 3 * sigma


def test_natural_results_decide_against_any_bonus() -> None:
    gmap, t = _one({"fort": 30, "ref": -30, "will": 0})
    b = battle(gmap, [t], {"save": [1, 20]})
    low = roll_save(b.fight, t, "fort", 10, effect="poison")
    high = roll_save(b.fight, t, "ref", 40, effect="boule de feu")
    assert low is not None and high is not None
    assert (low.success, low.automatic, high.success, high.automatic) == (False, True, True, True)
    assert messages(b)[0].startswith("jet de Vigueur contre poison d20=1+30=31 vs DD 10")


def test_the_record_lists_every_modifier_with_its_source() -> None:
    gmap, t = _one({"fort": 2, "ref": 3, "will": 1})
    add_effect(t, condition_effect("shaken"))
    add_effect(t, Effect("bénédiction", on_saves(Modifier(1, "bénédiction", BonusType.MORALE))))
    b = battle(gmap, [t], {"save": [10]})
    rec = roll_save(b.fight, t, "will", 15, effect="terreur")
    assert rec is not None
    assert [(m.value, m.source) for m in rec.modifiers] == [
        (1, "Volonté"),
        (-2, "peur"),
        (1, "bénédiction"),
    ]
    assert rec.total == 10 and rec.success is False


def test_two_morale_bonuses_keep_the_higher_and_penalties_add() -> None:
    _, t = _one()
    add_effect(t, Effect("chant", on_saves(Modifier(1, "chant", BonusType.MORALE))))
    add_effect(t, Effect("rage", on_saves(Modifier(2, "rage", BonusType.MORALE))))
    add_effect(t, condition_effect("shaken"))  # −2 untyped
    add_effect(t, condition_effect("sickened"))  # −2 untyped, another source
    values = sorted(m.value for m in save_modifiers(t, "fort"))
    assert values == [-2, -2, 0, 2]  # the file's +0, rage's +2 (chant dropped), both penalties


def test_a_conditioned_modifier_counts_only_against_its_descriptor() -> None:
    _, t = _one()
    brave = Effect("bravoure", ((WILL, Modifier(2, "bravoure", BonusType.MORALE)),), when="fear")
    add_effect(t, brave)
    assert sum(m.value for m in save_modifiers(t, "will", ("fear", "mind-affecting"))) == 2
    assert sum(m.value for m in save_modifiers(t, "will", ("charm",))) == 0
    # the unconditioned totals never include it (attack rolls and the like)
    assert t.effects.total(WILL) == 0


def test_the_sources_alignment_is_a_descriptor() -> None:
    """Protection from evil: +2 resistance on saves against evil sources only."""
    gmap, t = _one()
    ward = Effect(
        "protection", on_saves(Modifier(2, "protection", BonusType.RESISTANCE)), when="evil"
    )
    add_effect(t, ward)
    evil = state("e", "B", make_profile(alignment="NE"), gmap, (0, 3), 1)
    good = state("g", "B", make_profile(alignment="LG"), gmap, (0, 4), 2)
    b = battle(gmap, [t, evil, good], {"save": [10, 10, 10]})
    totals = [
        roll_save(b.fight, t, "will", 5, effect="x", source=src) for src in (evil, good, None)
    ]
    assert [r.total for r in totals if r is not None] == [12, 10, 10]


def test_a_lowered_dexterity_lowers_reflex() -> None:
    _, t = _one(abilities={"str_score": 10, "dex_score": 15, "con_score": 10})
    add_effect(t, condition_effect("entangled"))  # −4 Dex: 15 → 11, modifier +2 → +0
    mods = save_modifiers(t, "ref")
    assert (mods[-1].value, mods[-1].source) == (-2, "Dextérité")
    add_effect(t, condition_effect("fatigued"))  # −2 more: 9, −1
    assert save_modifiers(t, "ref")[-1].value == -3
    assert all(m.source != "Dextérité" for m in save_modifiers(t, "fort"))


def test_cover_gives_half_its_ac_bonus_on_reflex_against_an_area() -> None:
    gmap = make_map(["......", "..C...", "......"])
    t = state("t", "A", make_profile(), gmap, (1, 3))
    assert reflex_cover(gmap, gmap.cell(1, 0), t.pos) == 2  # cover +4 → +2
    assert reflex_cover(gmap, gmap.cell(1, 5), t.pos) == 0  # nothing between
    partial = make_map(["......", "..W...", "......"])  # cover_bonus 2: partial cover
    assert reflex_cover(partial, partial.cell(1, 0), partial.cell(1, 3)) == 1
    b = battle(gmap, [t], {"save": [10, 10]})
    behind = roll_save(b.fight, t, "ref", 12, effect="boule de feu", origin=gmap.cell(1, 0))
    will = roll_save(b.fight, t, "will", 12, effect="boule de feu", origin=gmap.cell(1, 0))
    assert behind is not None and will is not None
    assert (behind.total, will.total) == (12, 10)  # only Reflex gets it


def test_soft_cover_gives_no_reflex_bonus() -> None:
    gmap = make_map(OPEN)
    t = state("t", "A", make_profile(), gmap, (1, 4))
    b = battle(gmap, [t, state("x", "A", make_profile(), gmap, (1, 2), 1)], {"save": [10]})
    rec = roll_save(b.fight, t, "ref", 12, effect="boule de feu", origin=gmap.cell(1, 0))
    assert rec is not None and rec.total == 10


def test_a_harmless_effect_rolls_nothing() -> None:
    gmap, t = _one()
    b = battle(gmap, [t], {})  # no die may be drawn
    assert roll_save(b.fight, t, "will", 30, effect="soins", harmless=True) is None
    assert messages(b) == ["soins : inoffensif, aucun jet"]


def test_immunities_come_from_the_file_and_the_creature_type() -> None:
    _, undead = _one(creature_type="undead", abilities={"str_score": 10, "dex_score": 10,
                                                        "con_score": None})  # fmt: skip
    _, orc = _one(creature_type="humanoid")
    assert immune(undead, ("fear", "mind-affecting"))
    assert immune(undead, (), "paralyzed") and immune(undead, (), "asleep")
    assert not immune(undead, (), "shaken")  # only as a mind-affecting effect
    assert not immune(orc, ("fear", "mind-affecting"), "shaken")
    _, fire = _one(immunities=["fire"])
    assert immune(fire, ("fire",)) and not immune(fire, ("cold",))


def test_a_once_bonus_is_spent_by_the_first_save_or_skill_check_its_holder_rolls() -> None:
    """*Guidance* (SRD: « +1 competence bonus on a single attack roll, saving throw, or
    skill check »): the first such roll takes it, the next gets nothing."""
    from engine.core.rng import ScriptedDice
    from engine.rules.skills import skill_check
    from engine.state.effects import ATTACK, FORT, REF, SKILL

    plus = Modifier(1, "assistance divine", BonusType.COMPETENCE)
    stats = (ATTACK, FORT, REF, WILL, SKILL)

    def guided():  # type: ignore[no-untyped-def]
        return Effect("sort:guidance", tuple((s, plus) for s in stats), once=True)

    gmap, t = _one({"fort": 2, "ref": 0, "will": 0})
    add_effect(t, guided())
    b = battle(gmap, [t], {"save": [10, 10]})
    first = roll_save(b.fight, t, "fort", 13, effect="poison")
    second = roll_save(b.fight, t, "fort", 13, effect="poison")
    assert first is not None and second is not None
    assert (first.total, first.success, second.total, second.success) == (13, True, 12, False)
    assert t.effects.items == ()

    add_effect(t, guided())
    rec = skill_check(ScriptedDice({"acrobatics": [10]}), t, "Acrobatics", 11)
    assert rec.total == 11 and rec.success and t.effects.items == ()
