"""Spell conditions that end before their duration (engine/rules/endings.py) and
fight-long ones: hold person's new save each round, invisibility ending on an
attack, waves of fatigue and hideous laughter."""

from __future__ import annotations

from typing import Any

from builders import Plan, battle, make_map, make_profile, melee, messages, state

from engine.content.actions import AttackAction, CastSpellAction, WaitAction
from engine.content.spellbook import unplayable_reason
from engine.content.spells import default_registry
from engine.core.events import Attack
from engine.state.effects import MELEE_AC, Cond

ROW = make_map(["............"])


def mage(*spells: str, **extra: Any):
    fields: dict[str, Any] = {
        "name": "Mage", "level": 5, "bab": 2, "casting_ability": "int",
        "abilities": {"str_score": 10, "dex_score": 10, "con_score": 10, "int_score": 16},
        "spell_slots": {"1": 4, "2": 4, "3": 2}, "spells": list(spells),
    }  # fmt: skip
    return make_profile(**{**fields, **extra})


def test_the_spells_of_this_part_are_castable():
    reg = default_registry()
    for name in ("hold-person", "hold-animal", "hold-monster", "glitterdust", "invisibility",
                 "invisibility-sphere", "vanish", "grease", "hideous-laughter",
                 "waves-of-fatigue", "web", "entangle"):  # fmt: skip
        assert unplayable_reason(reg.get(name)) is None, name


def test_hold_person_saves_again_at_the_end_of_each_turn_and_ends_on_a_success():
    m = state("mage", "a", mage("hold person"), ROW, (0, 0))
    foe = state("foe", "b", make_profile(name="Foe", creature_type="humanoid", hp_max=20),
                ROW, (0, 5), 1)  # fmt: skip
    # DC 10 + 2 + 3 = 15, Will +0: the cast's save (3) fails, the first new one (14)
    # fails, the second (15) succeeds
    b = battle(ROW, [m, foe], {"save": [3, 14, 15]}, policies={"b": Plan(WaitAction())})
    assert b.dispatch(m, CastSpellAction(spell_name="hold person", target_id="foe")).ok
    assert foe.effects.cond & Cond.PARALYZED
    b.take_turn(foe)  # its turn is lost, then a new save (14): still held
    assert foe.effects.cond & Cond.PARALYZED
    b.take_turn(foe)  # 15: it ends
    assert not foe.effects.cond & Cond.PARALYZED
    assert foe.endings == ()
    log = messages(b)
    assert log[-1] == "n'est plus paralysé"
    assert sum("contre immobilisation de personne" in line for line in log) == 3


def test_invisibility_ends_when_its_subject_attacks_after_that_attack():
    m = state("mage", "a", mage("invisibility", attacks=[melee()]), ROW, (0, 0))
    foe = state("foe", "b", make_profile(name="Foe", hp_max=20), ROW, (0, 5), 1)
    b = battle(ROW, [m, foe], {"attack": [10], "damage": [1]})
    assert b.dispatch(m, CastSpellAction(spell_name="invisibility", target_id="mage")).ok
    assert m.effects.cond & Cond.INVISIBLE
    foe.pos = ROW.cell(0, 1)
    r = b.dispatch(m, AttackAction(target_id="foe", weapon_id=m.attacks[0].id))
    assert r.ok
    log = messages(b)
    ended = log.index("n'est plus invisible")
    # the attack roll kept its +2 (the end is written as it is rolled, before its line)
    assert any("attaquant invisible" in line for line in log[ended + 1 :]) or any(
        m.source == "attaquant invisible"
        for e in b.fight.log or ()
        if isinstance(e, Attack)
        for m in e.roll.modifiers
    )
    assert not m.effects.cond & Cond.INVISIBLE and m.endings == ()


def test_waves_of_fatigue_lasts_the_whole_fight():
    m = state("mage", "a", mage("waves of fatigue", spell_slots={"5": 1}), ROW, (0, 0))
    foe = state("foe", "b", make_profile(name="Foe", hp_max=20), ROW, (0, 2), 1)
    b = battle(ROW, [m, foe], {})
    assert b.dispatch(m, CastSpellAction(spell_name="waves of fatigue", target_id="foe")).ok
    assert foe.effects.cond & Cond.FATIGUED
    fx = next(e for e in foe.effects.items if e.cond & Cond.FATIGUED)
    assert fx.ends is None  # no duration: until the fight ends
    assert messages(b)[-1] == "devient fatigué (vagues de fatigue)"


def test_shield_gives_a_shield_bonus_and_negates_magic_missile():
    m = state("mage", "a", mage("shield"), ROW, (0, 0))
    foe = state("foe", "b", mage("magic missile", name="Foe"), ROW, (0, 5), 1)
    b = battle(ROW, [m, foe], {})
    before = m.effects.total(MELEE_AC)
    assert b.dispatch(m, CastSpellAction(spell_name="shield")).ok
    assert m.effects.total(MELEE_AC) == before + 4
    hp = m.hp
    assert b.dispatch(foe, CastSpellAction(spell_name="magic missile", target_id="mage")).ok
    assert m.hp == hp  # no die was drawn: the script is empty
    assert messages(b)[-1] == "projectile magique : immunisé (protégé par un sort)"
