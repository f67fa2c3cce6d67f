"""Temporary hit points (engine/rules/temp_hp.py; *false life*, *aid*, *virtue*): the
grant at the caster level, lethal damage taken off them first (weapons and spells),
nonlethal damage left alone, no stacking (a higher grant replaces, a lower one is
refused), the end of their duration, and never counted as healing."""

from __future__ import annotations

from typing import Any

from builders import battle, make_map, make_profile, melee, messages, state

from engine.content.actions import AttackAction, CastSpellAction, Reason
from engine.content.spellbook import unplayable_reason
from engine.content.spells import default_registry
from engine.rules.life import apply_damage, apply_nonlethal
from engine.rules.temp_hp import temp_hp_left
from engine.state.effects import ATTACK, Moment, tick

ROW = make_map(["............"])


def caster(*spells: str, **extra: Any):
    fields: dict[str, Any] = {
        "name": "Mage", "level": 5, "bab": 2, "casting_ability": "wis", "hp_max": 20,
        "abilities": {"str_score": 10, "dex_score": 10, "con_score": 10, "wis_score": 16},
        "spell_slots": {"0": 4, "1": 4, "2": 4}, "spells": list(spells),
    }  # fmt: skip
    return make_profile(**{**fields, **extra})


def duel(dice: dict[str, list[int]], *spells: str):
    """The caster (CL 5) at (0,0), a foe with a +5 sword 4 squares east (no attack of
    opportunity on the cast): move it next to the caster to swing."""
    me = state("mage", "a", caster(*spells), ROW, (0, 0))
    foe = state("foe", "b", make_profile(name="Foe", hp_max=30, attacks=[melee(bonus=5)]),
                ROW, (0, 4), 1)  # fmt: skip
    return battle(ROW, [me, foe], dice), me, foe


def swing(b: Any, foe: Any) -> None:
    foe.pos = ROW.cell(0, 1)
    assert b.dispatch(foe, AttackAction(target_id="mage", weapon_id=foe.attacks[0].id)).ok


def test_the_four_spells_are_castable():
    reg = default_registry()
    for name in ("aid", "false-life", "virtue", "mirror-image"):
        assert unplayable_reason(reg.get(name)) is None, name


def test_false_life_grants_1d10_plus_the_caster_level_and_is_not_healing():
    b, me, _ = duel({"spell": [4]}, "false life")
    assert b.dispatch(me, CastSpellAction(spell_name="false life")).ok
    assert (me.temp_hp, me.hp, me.healing_given) == (4 + 5, 20, 0)
    # 1 hour per level: longer than any fight, no timer
    fx = next(e for e in me.effects.items if e.source == "pv-temp:false-life")
    assert fx.ends is None and fx.mods == ()
    assert messages(b)[-1] == "simulacre de vie : gagne 9 points de vie temporaires"


def test_lethal_damage_comes_off_temporary_hit_points_first():
    b, me, foe = duel({"spell": [4], "attack": [15, 15], "damage": [8, 8]}, "false life")
    assert b.dispatch(me, CastSpellAction(spell_name="false life")).ok
    swing(b, foe)  # 8 of the 9 temporary hit points
    assert (me.hp, me.temp_hp, me.damage_taken) == (20, 1, 8)
    assert messages(b)[-2:] == [
        "sword vs mage d20=15+5=20 CA 10 -> TOUCHÉ : 8 dégâts (mage 20/20 pv)",
        "ses points de vie temporaires absorbent 8 dégâts (reste 1)",
    ]
    swing(b, foe)  # the last one, then 7 hit points
    assert (me.hp, me.temp_hp, me.damage_taken, foe.damage_dealt) == (13, 0, 16, 16)
    assert not any(e.source.startswith("pv-temp:") for e in me.effects.items)
    assert messages(b)[-1] == "ses points de vie temporaires absorbent 1 dégât (reste 0)"


def test_a_spells_damage_comes_off_them_too():
    b, me, _ = duel({"spell": [4], "damage": [3, 3, 3]}, "false life")
    other = state("other", "b", caster("magic missile", name="Other"), ROW, (0, 6), 2)
    b.fight.combatants.append(other)
    b.fight.by_id["other"] = other
    assert b.dispatch(me, CastSpellAction(spell_name="false life")).ok
    # CL 5: three missiles of 1d4+1 = 4 each, against 9 temporary hit points
    assert b.dispatch(other, CastSpellAction(spell_name="magic missile", target_id="mage")).ok
    assert (me.temp_hp, me.hp, me.damage_taken) == (0, 17, 12)
    absorbed = [line for line in messages(b) if line.startswith("ses points de vie")]
    assert absorbed == [
        "ses points de vie temporaires absorbent 4 dégâts (reste 5)",
        "ses points de vie temporaires absorbent 4 dégâts (reste 1)",
        "ses points de vie temporaires absorbent 1 dégât (reste 0)",
    ]


def test_nonlethal_damage_leaves_them_alone():
    b, me2, _ = duel({"spell": [4]}, "false life")
    assert b.dispatch(me2, CastSpellAction(spell_name="false life")).ok
    apply_nonlethal(me2, 6)
    assert (me2.temp_hp, me2.hp, me2.nonlethal) == (9, 20, 6)
    # past the maximum, the overflow is lethal: the temporary hit points take it
    apply_nonlethal(me2, 17)
    assert (me2.nonlethal, me2.temp_hp, me2.hp) == (20, 6, 20)


def test_they_do_not_stack_a_higher_grant_replaces_a_lower_one_is_refused():
    # aid: 1d8 + 5 (6 → 11), then false life 1d10 + 5 (2 → 7: refused), then (5 → 10 …)
    b, me, _ = duel({"spell": [6, 2, 2]}, "aid", "false life")
    assert b.dispatch(me, CastSpellAction(spell_name="aid", target_id="mage")).ok
    assert me.temp_hp == 11
    assert me.effects.total(ATTACK) == 1  # aid's +1 morale bonus on attack rolls
    assert b.dispatch(me, CastSpellAction(spell_name="false life")).ok
    assert me.temp_hp == 11
    assert [e.source for e in me.effects.items if e.source.startswith("pv-temp:")] == [
        "pv-temp:aid"
    ]
    assert messages(b)[-1] == (
        "simulacre de vie : 7 points de vie temporaires, ne s'ajoutent pas : "
        "garde ses 11 points de vie temporaires"
    )
    apply_damage(me, 5)  # 6 left: a grant of 7 now replaces them
    assert b.dispatch(me, CastSpellAction(spell_name="false life")).ok
    assert me.temp_hp == 7 and me.hp == 20
    sources = [e.source for e in me.effects.items if e.source.startswith("pv-temp:")]
    assert sources == ["pv-temp:false-life"]


def test_they_vanish_at_the_end_of_the_spells_duration():
    # virtue: 1 temporary hit point for 1 minute (10 rounds), timed on the caster's turns
    b, me, _ = duel({}, "virtue")
    assert b.dispatch(me, CastSpellAction(spell_name="virtue", target_id="mage")).ok
    assert me.temp_hp == 1
    assert messages(b)[-1] == "vertu : gagne 1 point de vie temporaire (10 rounds)"
    for _ in range(9):
        tick(me, Moment.TURN_START)
    assert temp_hp_left(me) == 1
    tick(me, Moment.TURN_START)
    assert temp_hp_left(me) == 0 and me.temp_hp == 0
    assert apply_damage(me, 3) == 0 and me.hp == 17


def test_aid_touches_an_ally_but_only_a_living_one():
    me = state("mage", "a", caster("aid"), ROW, (0, 0))
    friend = state("friend", "a", make_profile(name="Friend", hp_max=12), ROW, (0, 1), 1)
    ghoul = state("ghoul", "a", make_profile(name="Ghoul", creature_type="undead"), ROW,
                  (0, 2), 2)  # fmt: skip
    b = battle(ROW, [me, friend, ghoul], {"spell": [3]})
    refused = b.dispatch(me, CastSpellAction(spell_name="aid", target_id="ghoul"))
    assert not refused.ok and refused.reason == Reason.INVALID_TARGET
    assert b.dispatch(me, CastSpellAction(spell_name="aid", target_id="friend")).ok
    assert (friend.temp_hp, friend.hp) == (3 + 5, 12)
    assert messages(b)[-1] == "aide : gagne 8 points de vie temporaires (50 rounds)"


def test_negative_energy_comes_off_them_too():
    # inflict light wounds on itself (willing: no touch roll), 1d8 + 5 = 10, Will save failed
    b, me, _ = duel({"spell": [4], "damage": [5], "save": [1]}, "false life",
                    "inflict light wounds")  # fmt: skip
    assert b.dispatch(me, CastSpellAction(spell_name="false life")).ok
    assert b.dispatch(me, CastSpellAction(spell_name="inflict light wounds", target_id="mage")).ok
    assert (me.temp_hp, me.hp) == (0, 19)
    assert messages(b)[-1] == "ses points de vie temporaires absorbent 9 dégâts (reste 0)"
