"""The effects container (engine/state/effects.py): conditions as bits, modifiers stacked
by the PF1e rules (engine.core.checks.stack), one duration mechanism."""

from __future__ import annotations

import pytest
from builders import battle, make_map, make_profile, state

from engine.content.actions import DelayAction, TurnPlan
from engine.core.checks import BonusType, Modifier
from engine.state.effects import (
    ATTACK,
    CMD,
    MELEE_AC,
    NO_EFFECTS,
    RANGED_AC,
    Cond,
    Effect,
    Effects,
    Moment,
    add_effect,
    drop_effect,
    on_ac,
    tick,
    totals_against,
    typed_total,
    use_effects,
)

DODGE = BonusType.DODGE
START, END = Moment.TURN_START, Moment.TURN_END


class Holder:
    """Anything with an ``effects`` attribute carries effects."""

    def __init__(self):
        self.effects = NO_EFFECTS


def dodge(value: int, source: str, name: str | None = None, **kw) -> Effect:
    return Effect(name or source, on_ac(Modifier(value, source, DODGE)), **kw)


def test_an_empty_container_gives_nothing():
    h = Holder()
    assert (h.effects.items, h.effects.cond, h.effects.against, h.effects.timers) == ((), 0, (), ())
    assert h.effects.total(ATTACK) == 0 and h.effects.breakdown(MELEE_AC) == ()
    assert h.effects.against_total(ATTACK, "o") == 0


def test_add_sets_bits_and_modifiers_and_drop_removes_only_that_source():
    h = Holder()
    prone = Effect(
        "prone",
        ((ATTACK, Modifier(-4, "à terre")), (MELEE_AC, Modifier(-4, "à terre"))),
        Cond.PRONE,
    )
    blur = Effect("file:blurred", cond=Cond.BLURRED)
    add_effect(h, prone)
    add_effect(h, blur)
    assert h.effects.conditions == Cond.PRONE | Cond.BLURRED and type(h.effects.cond) is int
    assert (
        h.effects.total(ATTACK) == -4
        and h.effects.total(MELEE_AC) == -4
        and h.effects.total(RANGED_AC) == 0
    )
    assert drop_effect(h, "prone") and not drop_effect(h, "prone")
    assert (
        h.effects.conditions == Cond.BLURRED
        and h.effects.total(ATTACK) == 0
        and h.effects.items == (blur,)
    )


def test_two_dodge_bonuses_add_the_same_source_twice_counts_once():
    h = Holder()
    add_effect(h, dodge(4, "défense", "total_defense", cond=Cond.TOTAL_DEFENSE))
    add_effect(h, dodge(1, "Esquive"))
    assert h.effects.total(MELEE_AC) == 5  # CRB « Dodge »: dodge bonuses stack
    # the same modifier (source and type) from a second effect: only the best applies
    add_effect(h, dodge(2, "défense", "fight_defensively"))
    assert h.effects.total(MELEE_AC) == 5
    assert [m.source for m in h.effects.breakdown(MELEE_AC)] == ["défense", "Esquive"]
    # the same effect twice is one effect
    add_effect(h, dodge(1, "Esquive"))
    assert len(h.effects.items) == 3 and h.effects.total(RANGED_AC) == 5


def test_typed_bonuses_keep_the_best_and_untyped_penalties_add():
    h = Holder()
    add_effect(h, Effect("ring", on_ac(Modifier(1, "anneau", BonusType.DEFLECTION))))
    add_effect(h, Effect("spell", on_ac(Modifier(2, "bouclier de la foi", BonusType.DEFLECTION))))
    add_effect(h, Effect("charge", on_ac(Modifier(-2, "charge")), Cond.CHARGING))
    add_effect(h, Effect("other", on_ac(Modifier(-1, "autre"))))
    assert h.effects.total(MELEE_AC) == 2 - 2 - 1
    assert [m.source for m in h.effects.breakdown(MELEE_AC)] == [
        "charge",
        "bouclier de la foi",
        "autre",
    ]


def test_a_change_is_a_new_value_and_the_cached_total_follows_it():
    h = Holder()
    assert h.effects.total(MELEE_AC) == 0
    before = h.effects
    v = h.effects.version
    add_effect(h, dodge(4, "défense"))
    assert h.effects.version > v and h.effects.total(MELEE_AC) == 4
    assert before is NO_EFFECTS and before.items == () and before.total(MELEE_AC) == 0
    add_effect(h, dodge(1, "Esquive"))
    assert h.effects.total(MELEE_AC) == 5
    drop_effect(h, "défense")
    assert h.effects.total(MELEE_AC) == 1 and h.effects.breakdown(MELEE_AC) == (
        Modifier(1, "Esquive", DODGE),
    )
    drop_effect(h, "Esquive")
    assert h.effects.total(MELEE_AC) == 0


def test_modifiers_are_listed_in_condition_order_whatever_came_first():
    h = Holder()
    defense = dodge(4, "défense", cond=Cond.TOTAL_DEFENSE)
    prone = Effect("prone", on_ac(Modifier(-4, "à terre")), Cond.PRONE)
    charge = Effect("charge", on_ac(Modifier(-2, "charge")), Cond.CHARGING)
    plain = dodge(1, "Esquive")
    for effect in (plain, defense, prone, charge):
        add_effect(h, effect)
    assert h.effects.items == (charge, prone, defense, plain)
    assert [m.source for m in h.effects.breakdown(RANGED_AC)] == [
        "charge",
        "à terre",
        "défense",
        "Esquive",
    ]


def test_an_effect_timed_on_its_holder_ends_at_the_start_of_its_next_turn():
    h = Holder()
    add_effect(h, Effect("charge", on_ac(Modifier(-2, "charge")), Cond.CHARGING, ends=START))
    tick(h, END)  # the end of the turn it charged in
    assert h.effects.cond == Cond.CHARGING and h.effects.total(MELEE_AC) == -2
    tick(h, START)
    assert (
        h.effects.items == ()
        and h.effects.cond == 0
        and h.effects.total(MELEE_AC) == 0
        and h.effects.timers == ()
    )


def test_an_effect_timed_on_another_combatant_ends_on_that_ones_turn():
    aider, ally = Holder(), Holder()
    aid = Effect("aid:a", ((ATTACK, Modifier(2, "aide de a")),), ends=START, against="o")
    add_effect(ally, aid, clock=aider)
    assert ally.effects.timers == () and len(aider.effects.timers) == 1
    tick(ally, START)  # the beneficiary's own turn does not end it
    assert ally.effects.against_total(ATTACK, "o") == 2
    tick(aider, START)
    assert (
        ally.effects.items == ()
        and ally.effects.against_total(ATTACK, "o") == 0
        and aider.effects.timers == ()
    )


def test_a_duration_in_turns_and_an_end_of_turn_duration():
    h = Holder()
    add_effect(h, Effect("long", cond=Cond.BLURRED, ends=START, turns=2))
    add_effect(h, Effect("short", cond=Cond.BLINDED, ends=END))
    tick(h, START)
    assert h.effects.conditions == Cond.BLURRED | Cond.BLINDED
    tick(h, END)
    assert h.effects.conditions == Cond.BLURRED
    tick(h, START)
    assert h.effects.cond == 0


def test_an_effect_gone_early_leaves_no_timer_to_end_its_successor():
    h = Holder()
    charge = Effect("charge", cond=Cond.CHARGING, ends=START, turns=2)
    add_effect(h, charge)
    tick(h, START)
    drop_effect(h, "charge")
    add_effect(h, charge)  # a new one: two turn starts again
    tick(h, START)
    assert h.effects.cond == Cond.CHARGING
    add_effect(h, charge)  # an equal one replaces it and starts again
    tick(h, START)
    assert h.effects.cond == Cond.CHARGING
    tick(h, START)
    assert h.effects.cond == 0 and h.effects.timers == ()


def test_once_effects_are_spent_by_a_roll_against_their_opponent_on_their_stat():
    h = Holder()
    vs_o = Effect("aid:a", ((ATTACK, Modifier(2, "aide de a")),), against="o", once=True)
    vs_o2 = Effect("aid:h", ((ATTACK, Modifier(2, "aide de h")),), against="o", once=True)
    ac_o = Effect("aid:b", on_ac(Modifier(2, "aide de b")), against="o", once=True)
    vs_p = Effect("aid:c", ((ATTACK, Modifier(2, "aide de c")),), against="p", once=True)
    for effect in (vs_o, vs_o2, ac_o, vs_p):
        add_effect(h, effect)
    # conditional effects are not in the unconditional totals
    assert h.effects.total(ATTACK) == 0 and h.effects.total(MELEE_AC) == 0
    assert (
        h.effects.against_total(ATTACK, "o") == 4 and h.effects.against_total(RANGED_AC, "o") == 2
    )
    assert totals_against(h.effects.items, ATTACK) == {"o": 4, "p": 2}
    assert totals_against(h.effects.items, MELEE_AC) == {"o": 2}
    use_effects(h, ATTACK, "o")
    assert h.effects.against == (ac_o, vs_p)
    use_effects(h, ATTACK, "q")
    assert h.effects.against == (ac_o, vs_p)
    use_effects(h, MELEE_AC, "o")
    assert h.effects.against == (vs_p,)


def test_pure_readers_of_a_views_effects():
    items = (
        dodge(4, "défense", cond=Cond.TOTAL_DEFENSE),
        Effect("prone", on_ac(Modifier(-4, "à terre")), Cond.PRONE),
        Effect("cmd", ((CMD, Modifier(1, "x", DODGE)),)),
    )
    assert Effects(items).conditions == Cond.TOTAL_DEFENSE | Cond.PRONE
    assert typed_total(items, MELEE_AC, DODGE) == 4 and typed_total(items, CMD, DODGE) == 1


@pytest.mark.parametrize("cond", list(Cond))
def test_conditions_are_single_bits(cond):
    assert cond.value & (cond.value - 1) == 0


class Watching:
    """Plays ``actions`` and writes down the actor's conditions as its view shows them."""

    def __init__(self, *actions):
        self.actions = actions
        self.seen: list[Cond] = []

    def decide(self, obs):
        self.seen.append(obs.actor.effects.conditions)
        return TurnPlan(self.actions)


def test_the_turn_loop_ticks_the_actor_at_the_start_and_the_end_of_its_turn():
    row = make_map(["...."])
    me = state("me", "A", make_profile(), row, (0, 0))
    foe = state("foe", "B", make_profile(), row, (0, 3), 1)
    add_effect(me, Effect("until_end", cond=Cond.BLINDED, ends=END))
    add_effect(me, Effect("until_start", cond=Cond.BLURRED, ends=START))
    delaying = Watching(DelayAction())
    b = battle(row, [me, foe], policies={"A": delaying, "B": Watching()})
    assert b.take_turn(me)  # delayed: its turn has started, not ended
    assert delaying.seen == [Cond.BLINDED] and me.effects.conditions == Cond.BLINDED
    b.take_turn(foe)  # another's turn changes nothing
    assert me.effects.conditions == Cond.BLINDED
    b._policies["A"] = Watching()
    assert not b.take_turn(me)  # the delayed turn, played: its end comes
    assert me.effects.cond == 0 and me.effects.timers == ()
