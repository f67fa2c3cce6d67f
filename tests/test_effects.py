"""The effects container (engine/effects.py): conditions as bits, modifiers stacked
by the PF1e rules (engine.checks.stack), one duration mechanism."""

from __future__ import annotations

import pytest

from engine.checks import BonusType, Modifier
from engine.effects import (
    ATTACK,
    CMD,
    MELEE_AC,
    RANGED_AC,
    Cond,
    Effect,
    Effects,
    Moment,
    cond_of,
    on_ac,
    totals_against,
    typed_total,
)

DODGE = BonusType.DODGE
START, END = Moment.TURN_START, Moment.TURN_END


def dodge(value: int, source: str, name: str | None = None, **kw) -> Effect:
    return Effect(name or source, on_ac(Modifier(value, source, DODGE)), **kw)


def test_an_empty_container_gives_nothing():
    e = Effects()
    assert (e.items, e.cond, e.against, e.timers) == ((), 0, (), [])
    assert e.total(ATTACK) == 0 and e.breakdown(MELEE_AC) == ()
    assert e.against_total(ATTACK, "o") == 0


def test_add_sets_bits_and_modifiers_and_drop_removes_only_that_source():
    e = Effects()
    prone = Effect(
        "prone",
        ((ATTACK, Modifier(-4, "à terre")), (MELEE_AC, Modifier(-4, "à terre"))),
        Cond.PRONE,
    )
    blur = Effect("file:blurred", cond=Cond.BLURRED)
    e.add(prone)
    e.add(blur)
    assert e.conditions == Cond.PRONE | Cond.BLURRED and type(e.cond) is int
    assert e.total(ATTACK) == -4 and e.total(MELEE_AC) == -4 and e.total(RANGED_AC) == 0
    assert e.drop("prone") and not e.drop("prone")
    assert e.conditions == Cond.BLURRED and e.total(ATTACK) == 0 and e.items == (blur,)


def test_two_dodge_bonuses_add_the_same_source_twice_counts_once():
    e = Effects()
    e.add(dodge(4, "défense", "total_defense", cond=Cond.TOTAL_DEFENSE))
    e.add(dodge(1, "Esquive"))
    assert e.total(MELEE_AC) == 5  # CRB « Dodge »: dodge bonuses stack
    # the same modifier (source and type) from a second effect: only the best applies
    e.add(dodge(2, "défense", "fight_defensively"))
    assert e.total(MELEE_AC) == 5
    assert [m.source for m in e.breakdown(MELEE_AC)] == ["défense", "Esquive"]
    # the same effect twice is one effect
    e.add(dodge(1, "Esquive"))
    assert len(e.items) == 3 and e.total(RANGED_AC) == 5


def test_typed_bonuses_keep_the_best_and_untyped_penalties_add():
    e = Effects()
    e.add(Effect("ring", on_ac(Modifier(1, "anneau", BonusType.DEFLECTION))))
    e.add(Effect("spell", on_ac(Modifier(2, "bouclier de la foi", BonusType.DEFLECTION))))
    e.add(Effect("charge", on_ac(Modifier(-2, "charge")), Cond.CHARGING))
    e.add(Effect("other", on_ac(Modifier(-1, "autre"))))
    assert e.total(MELEE_AC) == 2 - 2 - 1
    assert [m.source for m in e.breakdown(MELEE_AC)] == ["charge", "bouclier de la foi", "autre"]


def test_the_cached_total_follows_every_change():
    e = Effects()
    assert e.total(MELEE_AC) == 0
    v = e.version
    e.add(dodge(4, "défense"))
    assert e.version > v and e.total(MELEE_AC) == 4
    e.add(dodge(1, "Esquive"))
    assert e.total(MELEE_AC) == 5
    e.drop("défense")
    assert e.total(MELEE_AC) == 1 and e.breakdown(MELEE_AC) == (Modifier(1, "Esquive", DODGE),)
    e.drop("Esquive")
    assert e.total(MELEE_AC) == 0


def test_modifiers_are_listed_in_condition_order_whatever_came_first():
    e = Effects()
    defense = dodge(4, "défense", cond=Cond.TOTAL_DEFENSE)
    prone = Effect("prone", on_ac(Modifier(-4, "à terre")), Cond.PRONE)
    charge = Effect("charge", on_ac(Modifier(-2, "charge")), Cond.CHARGING)
    plain = dodge(1, "Esquive")
    for effect in (plain, defense, prone, charge):
        e.add(effect)
    assert e.items == (charge, prone, defense, plain)
    assert [m.source for m in e.breakdown(RANGED_AC)] == ["charge", "à terre", "défense", "Esquive"]


def test_an_effect_timed_on_its_holder_ends_at_the_start_of_its_next_turn():
    e = Effects()
    e.add(Effect("charge", on_ac(Modifier(-2, "charge")), Cond.CHARGING, ends=START))
    e.tick(END)  # the end of the turn it charged in
    assert e.cond == Cond.CHARGING and e.total(MELEE_AC) == -2
    e.tick(START)
    assert e.items == () and e.cond == 0 and e.total(MELEE_AC) == 0 and e.timers == []


def test_an_effect_timed_on_another_combatant_ends_on_that_ones_turn():
    aider, ally = Effects(), Effects()
    aid = Effect("aid:a", ((ATTACK, Modifier(2, "aide de a")),), ends=START, against="o")
    ally.add(aid, clock=aider)
    assert ally.timers == [] and len(aider.timers) == 1
    ally.tick(START)  # the beneficiary's own turn does not end it
    assert ally.against_total(ATTACK, "o") == 2
    aider.tick(START)
    assert ally.items == () and ally.against_total(ATTACK, "o") == 0 and aider.timers == []


def test_a_duration_in_turns_and_an_end_of_turn_duration():
    e = Effects()
    e.add(Effect("long", cond=Cond.BLURRED, ends=START, turns=2))
    e.add(Effect("short", cond=Cond.BLINDED, ends=END))
    e.tick(START)
    assert e.conditions == Cond.BLURRED | Cond.BLINDED
    e.tick(END)
    assert e.conditions == Cond.BLURRED
    e.tick(START)
    assert e.cond == 0


def test_an_effect_gone_early_leaves_no_timer_to_end_its_successor():
    e = Effects()
    charge = Effect("charge", cond=Cond.CHARGING, ends=START, turns=2)
    e.add(charge)
    e.tick(START)
    e.drop("charge")
    e.add(charge)  # a new one: two turn starts again
    e.tick(START)
    assert e.cond == Cond.CHARGING
    e.add(charge)  # an equal one replaces it and starts again
    e.tick(START)
    assert e.cond == Cond.CHARGING
    e.tick(START)
    assert e.cond == 0 and e.timers == []


def test_once_effects_are_spent_by_a_roll_against_their_opponent_on_their_stat():
    e = Effects()
    vs_o = Effect("aid:a", ((ATTACK, Modifier(2, "aide de a")),), against="o", once=True)
    vs_o2 = Effect("aid:h", ((ATTACK, Modifier(2, "aide de h")),), against="o", once=True)
    ac_o = Effect("aid:b", on_ac(Modifier(2, "aide de b")), against="o", once=True)
    vs_p = Effect("aid:c", ((ATTACK, Modifier(2, "aide de c")),), against="p", once=True)
    for effect in (vs_o, vs_o2, ac_o, vs_p):
        e.add(effect)
    # conditional effects are not in the unconditional totals
    assert e.total(ATTACK) == 0 and e.total(MELEE_AC) == 0
    assert e.against_total(ATTACK, "o") == 4 and e.against_total(RANGED_AC, "o") == 2
    assert totals_against(e.items, ATTACK) == {"o": 4, "p": 2}
    assert totals_against(e.items, MELEE_AC) == {"o": 2}
    e.use(ATTACK, "o")
    assert e.against == (ac_o, vs_p)
    e.use(ATTACK, "q")
    assert e.against == (ac_o, vs_p)
    e.use(MELEE_AC, "o")
    assert e.against == (vs_p,)


def test_pure_readers_of_a_views_effects():
    items = (
        dodge(4, "défense", cond=Cond.TOTAL_DEFENSE),
        Effect("prone", on_ac(Modifier(-4, "à terre")), Cond.PRONE),
        Effect("cmd", ((CMD, Modifier(1, "x", DODGE)),)),
    )
    assert cond_of(items) == Cond.TOTAL_DEFENSE | Cond.PRONE
    assert typed_total(items, MELEE_AC, DODGE) == 4 and typed_total(items, CMD, DODGE) == 1


@pytest.mark.parametrize("cond", list(Cond))
def test_conditions_are_single_bits(cond):
    assert cond.value & (cond.value - 1) == 0
