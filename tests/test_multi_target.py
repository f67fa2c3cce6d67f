"""Spells of several targets (SRD « Target or Targets »: « one or more creatures, no
two of which can be more than 30 ft. apart »): what ``verify_cast_spell`` accepts
and refuses, the effect on each target, a target gone before the spell resolves,
the menu's group around each first target, and the heuristic's choice."""

from __future__ import annotations

from typing import Any

from builders import battle, make_map, make_profile, messages, state

from engine.content.actions import CastSpellAction, Reason
from engine.content.spells import default_registry
from engine.core.rng import SeededRng
from engine.rules.casting import CastPlan, resolve, verify_cast_spell
from engine.state.conditions import CONDITIONS
from engine.view.casts import cast_candidates
from policies.heuristic import HeuristicPolicy

HALL = make_map(["." * 30, "." * 30, "." * 30])


def wizard(level: int = 9, **changes: Any):
    fields: dict[str, Any] = {
        "name": "Wizard",
        "level": level,
        "abilities": {"str_score": 8, "dex_score": 14, "con_score": 10, "int_score": 18},
        "bab": level // 2,
        "classes": ["wizard"],
        "casting_ability": "int",
        "spell_slots": {"1": 2, "2": 2},
        "spells": ["scare", "magic missile"],
    }
    fields.update(changes)
    return make_profile(**fields)


def goblin(name: str = "Goblin"):
    return make_profile(name=name, hp_max=6, level=1, creature_type="humanoid")


def fight(dice: Any, caster: Any, foes: list[tuple[int, int]], allies=()):
    """The caster at (1,0); goblins ``g1``… at ``foes``; allies ``a1``… (hp 2 of 20)."""
    me = state("me", "a", caster, HALL, (1, 0))
    out = [me]
    for i, pos in enumerate(allies, 1):
        out.append(state(f"a{i}", "a", make_profile(name="Ally", hp_max=20), HALL, pos, i, hp=2))
    n = len(out)
    for i, pos in enumerate(foes, 1):
        out.append(state(f"g{i}", "b", goblin(), HALL, pos, n + i - 1))
    return battle(HALL, out, dice), me


def frightened(c: Any) -> bool:
    return bool(c.effects.cond & int(CONDITIONS["frightened"].bit))


def scare(first: str, *others: str, **kw: Any) -> CastSpellAction:
    return CastSpellAction(spell_name="scare", target_id=first, target_ids=others, **kw)


def test_up_to_the_number_the_caster_level_gives_and_no_die_drawn():
    # scare: max(1, floor(CL / 3)) targets: 3 at CL 9, 1 at CL 5
    b, me = fight(None, wizard(9), [(0, 4), (1, 4), (2, 4), (0, 5)])
    plan = verify_cast_spell(HALL, b.fight, me, scare("g1", "g2", "g3"))
    assert isinstance(plan, CastPlan) and (plan.target_id, plan.others) == ("g1", ("g2", "g3"))
    assert verify_cast_spell(HALL, b.fight, me, scare("g1", "g2", "g3", "g4")) == (
        Reason.TOO_MANY_TARGETS
    )
    b5, me5 = fight(None, wizard(5), [(0, 4), (1, 4)])
    assert verify_cast_spell(HALL, b5.fight, me5, scare("g1", "g2")) == Reason.TOO_MANY_TARGETS
    missile = CastSpellAction(spell_name="magic missile", target_id="g1", target_ids=("g2",))
    assert verify_cast_spell(HALL, b.fight, me, missile) == Reason.TOO_MANY_TARGETS


def test_no_two_targets_more_than_30_feet_apart_nor_one_named_twice():
    # g1 at column 4 and g2 at column 11: 35 feet apart; g3 at column 10: 30 feet
    b, me = fight(None, wizard(9), [(1, 4), (1, 11), (1, 10)])
    assert verify_cast_spell(HALL, b.fight, me, scare("g1", "g2")) == Reason.TARGETS_TOO_FAR_APART
    assert isinstance(verify_cast_spell(HALL, b.fight, me, scare("g1", "g3")), CastPlan)
    assert verify_cast_spell(HALL, b.fight, me, scare("g1", "g1")) == Reason.TARGETS_TOO_FAR_APART
    assert verify_cast_spell(HALL, b.fight, me, scare("g1", "nobody")) == Reason.MISSING_TARGET


def test_each_target_must_be_one_the_spell_may_take():
    # scare's range at CL 9: medium, 100 + 10 × 9 = 190 ft; an ally is no target for it
    far = wizard(9)
    b, me = fight(None, far, [(1, 25), (1, 29)], allies=[(0, 26)])
    assert isinstance(verify_cast_spell(HALL, b.fight, me, scare("g1", "g2")), CastPlan)
    b.fight.by_id["g2"].hp = -5
    b.fight.by_id["g2"].dead = True
    assert verify_cast_spell(HALL, b.fight, me, scare("g1", "g2")) == Reason.TARGET_DOWN


def test_the_effect_reaches_each_target_with_its_own_save():
    # scare: Will partial; a goblin's Will +0 by default against DC 10 + 2 + 4
    b, me = fight({"save": [3, 19]}, wizard(9), [(1, 4), (1, 5)])
    assert b.dispatch(me, scare("g1", "g2")).ok
    g1, g2 = b.fight.by_id["g1"], b.fight.by_id["g2"]
    assert frightened(g1) and not frightened(g2)
    lines = messages(b)
    assert any("lance effroi sur g1, g2" in m for m in lines)


def test_a_target_gone_before_the_spell_resolves_leaves_the_others():
    b, me = fight({"save": [3]}, wizard(9), [(1, 4), (1, 5)])
    b.fight.by_id["g1"].dead = True
    assert me.casting is not None
    known = me.casting.book.get("scare")
    assert known is not None
    resolve(b.fight, me, known, "g1", None, ("g2",))
    assert frightened(b.fight.by_id["g2"])
    assert not any("sort perdu" in m for m in messages(b))


def test_the_menu_groups_the_nearest_of_the_first_targets_side_within_30_feet():
    # CL 9: three targets; from g1 (column 4): g2 (5), g3 (7), then g4 (9) — the
    # fourth is past the count; g5 at column 12 is more than 30 ft from g1
    b, me = fight(SeededRng(1), wizard(9), [(1, 4), (1, 5), (1, 7), (1, 9), (1, 12)])
    cands = {c.option.id: c for c in cast_candidates(b.observe(me))}
    first = cands["cast_spell:scare:g1"].action
    assert (first.target_id, first.target_ids) == ("g1", ("g2", "g3"))
    last = cands["cast_spell:scare:g5"].action
    assert last.target_ids == ("g4", "g3")
    assert cands["cast_spell:scare:g1"].option.label == "lancer effroi sur g1, g2, g3"
    for c in cands.values():
        assert isinstance(verify_cast_spell(HALL, b.fight, me, c.action), CastPlan)


def test_the_heuristic_casts_at_the_group_that_fails_most():
    # scare is its only save-or-lose: the group of three beats one of two
    b, me = fight(SeededRng(1), wizard(9, spells=["scare"]), [(1, 4), (1, 5), (1, 7), (1, 20)])
    plan = HeuristicPolicy().decide(b.observe(me))
    action = plan.actions[0]
    assert isinstance(action, CastSpellAction) and action.spell_name == "scare"
    assert len(action.target_ids) == 2 and action.target_id in {"g1", "g2", "g3"}


def test_mass_healing_heals_each_ally():
    cleric = make_profile(
        name="Cleric",
        level=9,
        abilities={"str_score": 10, "dex_score": 10, "con_score": 10, "wis_score": 18},
        classes=["cleric"],
        casting_ability="wis",
        spell_slots={"5": 1},
        spells=["cure light wounds, mass"],
    )
    b, me = fight({"healing": [3, 5]}, cleric, [(1, 20)], allies=[(0, 1), (2, 1)])
    assert "cure-light-wounds-mass" in {s.id for s in default_registry()}
    action = CastSpellAction(spell_name="cure light wounds, mass", target_id="a1",
                             target_ids=("a2",))  # fmt: skip
    assert b.dispatch(me, action).ok
    # 1d8 + min(25, CL 9) each: 3 + 9 and 5 + 9 on 2 of 20 hp
    assert (b.fight.by_id["a1"].hp, b.fight.by_id["a2"].hp) == (14, 16)
    assert me.healing_given == 26


def test_slow_is_cast_at_two_enemies_or_more_never_at_one():
    slow = wizard(9, spells=["slow"], spell_slots={"3": 2})
    b, me = fight(SeededRng(1), slow, [(1, 4), (1, 5), (1, 7)])
    action = HeuristicPolicy().decide(b.observe(me)).actions[0]
    assert isinstance(action, CastSpellAction) and action.spell_name == "slow"
    assert len(action.target_ids) == 2
    b1, me1 = fight(SeededRng(1), slow, [(1, 4)])
    action = HeuristicPolicy().decide(b1.observe(me1)).actions[0]
    assert not isinstance(action, CastSpellAction)
