"""Mirror images (engine/rules/mirror_image.py): the count at the caster level, an
attack roll that hits picks the real one or an image on a d(images + 1), a miss by
5 or less destroys one, a blinded attacker is not fooled, touch spells are
discharged on an image, magic missile and areas ignore them, the end of their
duration, no die drawn for a target without images, and the rate at which a hit
reaches the real caster against its exact value (3σ)."""

from __future__ import annotations

import math
from typing import Any

from builders import battle, make_map, make_profile, melee, messages, state

from engine.content.actions import AttackAction, CastSpellAction
from engine.core.rng import SeededRng
from engine.rules.mirror_image import grant, images_left
from engine.state.conditions import condition_effect
from engine.state.effects import Moment, add_effect, tick

ROW = make_map(["............"])
#: the caster's AC in these tests (Dex 10): a +5 sword hits on a natural 11 or more
AC = 16


def caster(*spells: str, **extra: Any):
    fields: dict[str, Any] = {
        "name": "Mage", "level": 5, "bab": 2, "casting_ability": "int", "hp_max": 500,
        "abilities": {"str_score": 10, "dex_score": 10, "con_score": 10, "int_score": 16},
        "ac": {"total": AC, "touch": 10, "flat_footed": AC},
        "spell_slots": {"1": 4, "2": 4}, "spells": list(spells),
    }  # fmt: skip
    return make_profile(**{**fields, **extra})


def duel(dice: Any, foe_profile: Any = None, **mage: Any):
    """The mage (CL 5) at (0,0) and a foe with a +5 sword 4 squares east."""
    me = state("mage", "a", caster("mirror image", **mage), ROW, (0, 0))
    foe = state("foe", "b", foe_profile or make_profile(name="Foe", attacks=[melee(bonus=5)]),
                ROW, (0, 4), 1)  # fmt: skip
    return battle(ROW, [me, foe], dice), me, foe


def imaged(dice: Any, count: int = 3, foe_profile: Any = None, at: int = 1):
    """The duel, the mage under ``count`` images (cast: 1d4 + 1 at CL 5, with scripted
    dice; else given), the foe ``at`` squares east."""
    script = {**dice, "spell": [count - 1]} if isinstance(dice, dict) else dice
    b, me, foe = duel(script, foe_profile)
    if isinstance(dice, dict):
        assert b.dispatch(me, CastSpellAction(spell_name="mirror image")).ok
    else:
        grant(b.fight, me, count, "mirror-image", "image miroir", None, me)
    assert me.images == count
    foe.pos = ROW.cell(0, at)
    return b, me, foe


def swing(b: Any, foe: Any) -> None:
    assert b.dispatch(foe, AttackAction(target_id="mage", weapon_id=foe.attacks[0].id)).ok


def test_the_images_are_1d4_plus_one_per_three_levels_at_most_8():
    b, me, _ = duel({"spell": [3]})
    assert b.dispatch(me, CastSpellAction(spell_name="mirror image")).ok
    assert me.images == 3 + 1
    assert messages(b)[-1] == "image miroir : 4 images miroir (50 rounds)"
    b, me, _ = duel({"spell": [4]}, caster_level=20)  # 1d4 + 6 = 10: 8
    assert b.dispatch(me, CastSpellAction(spell_name="mirror image")).ok
    assert me.images == 8


def test_a_hit_on_an_image_destroys_it_and_deals_nothing():
    b, me, foe = imaged({"attack": [15], "mirror_image": [2]})
    swing(b, foe)  # no damage die: the script holds none
    assert (me.images, me.hp, foe.hits) == (2, 500, 0)
    assert messages(b)[-2:] == [
        "sword vs mage d20=15+5=20 CA 16 -> TOUCHÉ, mais c'est une image miroir",
        "image miroir : d4=2 ≤ 3, l'attaque de foe frappe une image, qui disparaît "
        "(reste 2 images)",
    ]


def test_a_hit_on_the_real_one_goes_on():
    b, me, foe = imaged({"attack": [15], "mirror_image": [4], "damage": [6]})
    swing(b, foe)
    assert (me.images, me.hp, foe.hits) == (3, 494, 1)
    assert messages(b)[-2:] == [
        "image miroir : d4=4, l'attaque de foe frappe le vrai mage",
        "sword vs mage d20=15+5=20 CA 16 -> TOUCHÉ : 6 dégâts (mage 494/500 pv)",
    ]


def test_a_miss_by_5_or_less_destroys_an_image_by_6_nothing():
    b, me, foe = imaged({"attack": [6, 5]})  # 11 against 16: by 5; then 10: by 6
    swing(b, foe)
    assert me.images == 2
    assert messages(b)[-1] == (
        "image miroir : foe manque de peu, une image disparaît (reste 2 images)"
    )
    swing(b, foe)
    assert me.images == 2 and messages(b)[-1] == "sword vs mage d20=5+5=10 CA 16 -> RATÉ"


def test_the_last_image_gone_its_effect_goes_too():
    b, me, foe = imaged({"attack": [15, 15], "mirror_image": [1, 1]}, count=2)
    swing(b, foe)
    swing(b, foe)
    assert me.images == 0
    assert not any(e.source.startswith("images:") for e in me.effects.items)
    assert messages(b)[-1].endswith("(plus d'image)")


def test_a_blinded_attacker_is_not_fooled():
    b, me, foe = imaged({"attack": [15, 6], "miss_chance": [99], "damage": [6]})
    add_effect(foe, condition_effect("blinded"))
    swing(b, foe)  # no mirror_image die (the script holds none): the real one, 50 % missed
    swing(b, foe)  # a near miss destroys nothing either
    assert (me.images, me.hp) == (3, 494)


def test_a_touch_spell_is_discharged_on_an_image():
    wizard = caster("shocking grasp", name="Foe")
    # the mage's attack of opportunity on the cast misses (a natural 1), then the touch
    b, me, foe = imaged({"attack": [1, 15], "mirror_image": [1]}, foe_profile=wizard)
    assert b.dispatch(foe, CastSpellAction(spell_name="shocking grasp", target_id="mage")).ok
    assert (me.images, me.hp) == (2, 500)  # no damage die drawn
    assert messages(b)[-2].endswith("-> TOUCHÉ, mais c'est une image miroir (sort dissipé)")


def test_magic_missile_and_areas_ignore_them():
    wizard = caster("magic missile", "burning hands", name="Foe")
    b, me, foe = imaged({"damage": [1] * 8, "save": [1]}, foe_profile=wizard, at=2)
    assert b.dispatch(foe, CastSpellAction(spell_name="magic missile", target_id="mage")).ok
    assert me.hp == 500 - 3 * 2 and me.images == 3
    cast = CastSpellAction(spell_name="burning hands", target_pos=(0, 0))
    assert b.dispatch(foe, cast).ok
    assert me.hp == 500 - 6 - 5 and me.images == 3


def test_they_vanish_at_the_end_of_the_duration():
    b, me, _ = duel({"spell": [2]})
    assert b.dispatch(me, CastSpellAction(spell_name="mirror image")).ok
    for _ in range(49):
        tick(me, Moment.TURN_START)
    assert images_left(me) == 3
    tick(me, Moment.TURN_START)
    assert images_left(me) == 0 and me.images == 0


def test_no_die_is_drawn_against_a_target_without_images():
    b, me, foe = duel({"attack": [15, 6], "damage": [6]})
    foe.pos = ROW.cell(0, 1)
    swing(b, foe)
    swing(b, foe)
    assert me.hp == 494 and b.fight.rng.remaining == 0  # type: ignore[attr-defined]


def test_the_rate_of_hits_on_the_real_one_matches_its_exact_value():
    """+5 against AC 16 with 3 images: a hit (natural 11+, 1/2) reaches the caster on
    a 4 of the d4: 1/8; an image goes on 3/4 of the hits and on every miss by 5 or
    less (naturals 6 to 10: 1/4), 5/8 of the attacks."""
    n = 4000
    b, me, foe = imaged(SeededRng(2024))
    b.fight.log = None
    real = lost = 0
    for _ in range(n):
        grant(b.fight, me, 3, "mirror-image", "image miroir", None, me)
        me.hp = 500
        hits = foe.hits
        swing(b, foe)
        real += foe.hits - hits
        lost += 3 - me.images
    for count, p in ((real, 1 / 8), (lost, 5 / 8)):
        sigma = math.sqrt(n * p * (1 - p))
        assert abs(count - n * p) <= 3 * sigma, (count, n * p, sigma)
