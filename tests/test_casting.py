"""Casting a spell (engine/rules/casting.py): what ``verify_cast_spell`` refuses and
why, the slot a cast takes, the start-of-cast guards (attacks of opportunity,
defensive casting, concentration after damage), touch attacks and rays, Magic
Missile, spell resistance, saves, harmless spells, damage without damage
reduction and with energy resistance, healing, energy on undead, conditions,
buffs, areas, and one-round spells. Test spells the registry does not ship are
written in a temporary directory through the schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import Plan, battle, make_map, make_profile, melee, messages, state

from engine.content.actions import (
    ActionResult,
    AttackAction,
    CastSpellAction,
    MoveAction,
    Reason,
    TurnPlan,
    WaitAction,
)
from engine.content.spells import SpellRegistry
from engine.core.events import SpellCast, SpellDamage
from engine.core.rng import SeededRng
from engine.rules.casting import CastPlan, verify_cast_spell
from engine.rules.economy import filter_plan
from engine.rules.status import give_condition
from engine.state.effects import MELEE_AC

ROOT = Path(__file__).resolve().parents[1]
SPELLS = ROOT / "data" / "spells"
ROW = make_map(["............"])
ARENA = make_map(["........", "........", "...#....", "........", "........"])

MAGE: dict[str, Any] = {
    "name": "Mage",
    "level": 5,
    "abilities": {"str_score": 8, "dex_score": 14, "con_score": 10, "int_score": 17},
    "bab": 2,
    "casting_ability": "int",
    "spell_slots": {"1": 4, "3": 1},
    "spells": ["magic missile", "fireball", "cure light wounds", "sleep"],
}


def mage(**changes: Any):
    return make_profile(**{**MAGE, **changes})


def shipped(name: str) -> dict[str, Any]:
    return json.loads((SPELLS / f"{name}.json").read_text(encoding="utf-8"))


def registry(tmp_path: Path, *spells: dict[str, Any]) -> SpellRegistry:
    """The shipped spells plus test spells, in ``tmp_path``."""
    for path in SPELLS.glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    for spell in spells:
        (tmp_path / f"{spell['id']}.json").write_text(json.dumps(spell), encoding="utf-8")
    return SpellRegistry(tmp_path)


def make_spell(ident: str, **fields: Any) -> dict[str, Any]:
    """A test spell: a level-1 standard-action wizard spell at close range."""
    base: dict[str, Any] = {
        "id": ident,
        "name": ident.replace("-", " ").title(),
        "level": 1,
        "class_levels": {"wizard": 1},
        "school": "evocation",
        "components": ["V", "S"],
        "range": {"kind": "close"},
        "targeting": "creature",
        "duration": {"units": "instantaneous"},
        "modelled": True,
    }
    base.update(fields)
    return base


def duel(dice: Any = None, *, gap: int = 5, caster: Any = None, foe: Any = None,
         spells: SpellRegistry | None = None, foe_hp: int | None = None):  # fmt: skip
    """The mage at (0,0) and a goblin-like foe ``gap`` squares east."""
    m = state("mage", "a", caster or mage(), ROW, (0, 0), spells=spells)
    f = state("foe", "b", foe or make_profile(name="Foe", hp_max=20), ROW, (0, gap), 1, hp=foe_hp)
    return battle(ROW, [m, f], dice), m, f


def cast(b, actor, **kw: Any):
    return b.dispatch(actor, CastSpellAction(**kw))


class Turns:
    """A policy that plays each of ``plans`` in turn, then the last one again."""

    def __init__(self, *plans: Any) -> None:
        self.plans = list(plans)

    def decide(self, obs: Any) -> TurnPlan:
        plan = self.plans.pop(0) if len(self.plans) > 1 else self.plans[0]
        return plan.decide(obs)


def succeeded_cast():
    return ActionResult("cast_spell", True, None)


# -- refusals -------------------------------------------------------------------------


def test_refusals_draw_no_die(tmp_path: Path):
    reg = registry(
        tmp_path,
        make_spell("wish", modelled=False, reason="trop vaste"),
        make_spell("ritual", cast_time="long",
                   effects=[{"kind": "damage", "formula": "1d6", "types": ["fire"]}]),
    )  # fmt: skip
    spells = [*MAGE["spells"], "wish", "ritual"]
    b, m, _foe = duel(caster=mage(spells=spells, spell_slots={"1": 1}), spells=reg)
    fighter = state("fighter", "a", make_profile(name="Fighter"), ROW, (0, 1), 2)
    b.fight.combatants.append(fighter)
    b.fight.by_id["fighter"] = fighter
    refused = {
        "not a caster": (fighter, {"spell_name": "magic missile", "target_id": "foe"}),
        "unknown": (m, {"spell_name": "lightning bolt", "target_id": "foe"}),
        "not modelled": (m, {"spell_name": "wish", "target_id": "foe"}),
        "long": (m, {"spell_name": "ritual", "target_id": "foe"}),
        "metamagic": (m, {"spell_name": "magic missile", "target_id": "foe",
                          "metamagic": ("Empower Spell",)}),
        "no target": (m, {"spell_name": "magic missile"}),
        "no such target": (m, {"spell_name": "magic missile", "target_id": "zz"}),
        "no slot of its level": (m, {"spell_name": "fireball", "target_pos": (0, 5)}),
        "touch too far": (m, {"spell_name": "cure light wounds", "target_id": "foe"}),
        "point off the map": (m, {"spell_name": "sleep", "target_pos": (3, 3)}),
    }  # fmt: skip
    reasons = {why: verify_cast_spell(ROW, b.fight, who, CastSpellAction(**kw))
               for why, (who, kw) in refused.items()}  # fmt: skip
    assert reasons == {
        "not a caster": Reason.UNKNOWN_SPELL,
        "unknown": Reason.UNKNOWN_SPELL,
        "not modelled": Reason.SPELL_NOT_MODELLED,
        "long": Reason.DOWNGRADED_CAST_TIME,
        "metamagic": Reason.METAMAGIC_NOT_MODELLED,
        "no target": Reason.MISSING_TARGET,
        "no such target": Reason.MISSING_TARGET,
        "no slot of its level": Reason.NO_SLOT,
        "touch too far": Reason.OUT_OF_RANGE,
        "point off the map": Reason.INVALID_DESTINATION,
    }
    # the engine answers the same, and a refused cast spends nothing
    assert cast(b, m, spell_name="fireball", target_pos=(0, 5)).reason == Reason.NO_SLOT
    assert m.casting is not None and m.casting.slots[1] == 1 and m.casting.cast == 0
    give_condition(b.fight, m, "nauseated", 2, effect="test")
    assert (
        verify_cast_spell(ROW, b.fight, m, CastSpellAction("cast_spell", "magic missile", "foe"))
        == Reason.DOWNGRADED_NAUSEATED
    )


def test_range_line_of_effect_and_points():
    walls = make_map(["......#.....", "......#....."])
    m = state("mage", "a", mage(), walls, (0, 0))
    near = state("near", "b", make_profile(name="Near"), walls, (0, 4), 1)
    hidden = state("hidden", "b", make_profile(name="Hidden"), walls, (0, 8), 2)
    b = battle(walls, [m, near, hidden])

    def why(**kw: Any):
        plan = verify_cast_spell(walls, b.fight, m, CastSpellAction(**kw))
        return plan if isinstance(plan, Reason) else "plan"

    assert why(spell_name="magic missile", target_id="near") == "plan"
    assert why(spell_name="magic missile", target_id="hidden") == Reason.NO_LINE_OF_EFFECT
    assert why(spell_name="sleep", target_pos=(0, 9)) == Reason.INVALID_DESTINATION  # no sight
    assert why(spell_name="sleep", target_id="near") == "plan"  # aimed at a creature
    far = make_map(["." * 40])
    m2 = state("mage", "a", mage(), far, (0, 0))
    f2 = state("foe", "b", make_profile(name="Foe"), far, (0, 32), 1)
    b2 = battle(far, [m2, f2])
    # medium range at CL 5: 150 ft; the foe's corner is 155 ft from the mage's
    plan = verify_cast_spell(far, b2.fight, m2, CastSpellAction("cast_spell", "sleep", "foe"))
    assert plan == Reason.OUT_OF_RANGE


def test_a_dead_target_and_an_inactive_enemy_are_refused_a_dying_ally_is_healed():
    b, m, foe = duel({"healing": [3]}, gap=1, foe_hp=-1)
    ally = state("ally", "a", make_profile(name="Ally", hp_max=12), ROW, (0, 11), 2, hp=-2)
    b.fight.combatants.append(ally)
    b.fight.by_id["ally"] = ally
    plan = verify_cast_spell(ROW, b.fight, m, CastSpellAction("cast_spell", "magic missile", "foe"))
    assert plan == Reason.TARGET_DOWN
    ally.pos = ROW.cell(0, 1)
    foe.pos = ROW.cell(0, 6)
    assert cast(b, m, spell_name="cure light wounds", target_id="ally").ok
    # no save for a harmless spell on an ally, no die: 1d8 (3) + CL 5
    assert ally.hp == 6 and m.healing_given == 8
    assert messages(b)[-2:] == [
        "soins légers : inoffensif, aucun jet",
        "soins légers (mage) : +8 pv (6/12 pv)",
    ]


def test_the_slot_a_cast_takes_is_its_casting_time(tmp_path: Path):
    fire = [{"kind": "damage", "formula": "1d4", "types": ["fire"]}]
    quick = make_spell("quick", cast_time="swift", effects=fire)
    reg = registry(tmp_path, quick)
    m = state("mage", "a", mage(spells=[*MAGE["spells"], "quick"]), ROW, (0, 0), spells=reg)
    assert m.casting is not None
    slot_of = m.casting.slot_of
    missile = CastSpellAction(spell_name="magic missile", target_id="foe")
    sleep = CastSpellAction(spell_name="sleep", target_pos=(0, 4))
    swift = CastSpellAction(spell_name="quick", target_id="foe")
    kept, results = filter_plan((missile, MoveAction()), cast_slot=slot_of)
    assert kept == [True, True]
    kept, results = filter_plan((sleep, MoveAction()), cast_slot=slot_of)  # a full round
    assert kept == [True, False] and results[1].reason == Reason.DOWNGRADED_ACTION_ECONOMY
    kept, _ = filter_plan((swift, missile, MoveAction()), cast_slot=slot_of)
    assert kept == [True, True, True]
    kept, results = filter_plan((sleep,), cast_slot=slot_of, staggered=True)
    assert kept == [False] and results[0].reason == Reason.DOWNGRADED_STAGGERED
    # without the caster's slots (a plan the loop filters for a non-caster), a cast is standard
    assert filter_plan((sleep, MoveAction()))[0] == [True, True]


# -- attacks, missiles, resistance ----------------------------------------------------


def test_magic_missile_never_misses_ignores_damage_reduction_and_each_missile_rolls():
    armored = make_profile(name="Foe", hp_max=30, dr={"amount": 10, "bypass": "-"})
    b, m, foe = duel({"damage": [1, 4, 2]}, foe=armored)
    assert cast(b, m, spell_name="magic missile", target_id="foe").ok
    assert foe.hp == 30 - (2 + 5 + 3)  # three missiles at CL 5, 1d4+1 each, no DR
    assert [e.damage for e in b.fight.log if isinstance(e, SpellDamage)] == [2, 5, 3]
    assert m.casting is not None and m.casting.slots[1] == 3 and m.damage_dealt == 10


def test_the_missiles_stop_when_the_target_falls():
    b, m, foe = duel({"damage": [4, 4, 4]}, foe_hp=6)
    cast(b, m, spell_name="magic missile", target_id="foe")
    assert foe.hp == -4 and sum(isinstance(e, SpellDamage) for e in b.fight.log) == 2


def ray(**extra: Any) -> dict[str, Any]:
    return make_spell(
        "fire-ray", attack="ranged_touch", projectiles="1 + min(2, floor((@cl - 3) / 4))",
        effects=[{"kind": "damage", "formula": "4d6", "types": ["fire"]}], **extra,
    )  # fmt: skip


def test_rays_roll_touch_attacks_each_and_resistance_counts_per_ray(tmp_path: Path):
    reg = registry(tmp_path, ray())
    tough = make_profile(name="Foe", hp_max=60, ac={"total": 18, "touch": 12, "flat_footed": 16},
                         resistances={"fire": 5})  # fmt: skip
    caster = mage(level=7, spells=["fire ray"])
    # CL 7: two rays; ranged touch +2 BAB +2 Dex = +4 against touch AC 12
    b, m, foe = duel({"attack": [8, 7], "damage": [3, 3, 3, 3, 6, 6, 6, 6]}, caster=caster,
                     foe=tough, spells=reg)  # fmt: skip
    assert cast(b, m, spell_name="fire ray", target_id="foe").ok
    lines = messages(b)
    assert lines[1] == "Fire Ray (contact à distance) vs foe d20=8+4=12 CA 12 (contact) -> TOUCHÉ"
    assert lines[2] == "Fire Ray (mage) : 7 dégâts (fire : résistance 5) (53/60 pv)"
    assert lines[3] == "Fire Ray (contact à distance) vs foe d20=7+4=11 CA 12 (contact) -> RATÉ"
    assert foe.hp == 53


def test_a_damaging_touch_spell_threatens_on_20_and_doubles_its_dice(tmp_path: Path):
    shock = make_spell("shock", attack="melee_touch", range={"kind": "touch"},
                       effects=[{"kind": "damage", "formula": "(min(5, @cl))d6",
                                 "types": ["electricity"]}])  # fmt: skip
    reg = registry(tmp_path, shock)
    dice = {"attack": [20], "confirm": [15], "damage": [1] * 10}
    harmless = make_profile(name="Foe", hp_max=20, attacks=[])  # threatens nothing: no AoO
    b, m, foe = duel(dice, gap=1, caster=mage(spells=["shock"]), foe=harmless, spells=reg)
    cast(b, m, spell_name="shock", target_id="foe")
    assert "-> MENACE, confirmation d20=15+1=16 -> CRITIQUE ×2" in messages(b)[1]
    assert foe.hp == 20 - 10  # 5d6 twice, all ones


def test_a_ray_missing_on_concealment_rolls_its_d100_after_the_hit(tmp_path: Path):
    reg = registry(tmp_path, ray())
    b, m, foe = duel({"attack": [15], "miss_chance": [20]}, caster=mage(level=3,
                     spells=["fire ray"]), spells=reg)  # fmt: skip
    give_condition(b.fight, foe, "blurred", None, effect="flou")
    cast(b, m, spell_name="fire ray", target_id="foe")
    assert messages(b)[-1].endswith("-> TOUCHÉ, mais camouflage : d100=20 ≤ 20 % -> RATÉ")
    assert foe.hp == 20


def test_spell_resistance_is_rolled_once_per_target(tmp_path: Path):
    resistant = make_profile(name="Foe", hp_max=30, spell_resistance=16)
    b, m, foe = duel({"spell_resistance": [10, 11], "damage": [1, 1, 1]}, foe=resistant)
    cast(b, m, spell_name="magic missile", target_id="foe")
    # d20 + CL 5 = 15 < SR 16: resisted, no damage die
    assert messages(b)[1] == (
        "résistance à la magie 16 contre projectile magique (mage) : d20=10+5=15 -> résiste"
    )
    assert foe.hp == 30
    cast(b, m, spell_name="magic missile", target_id="foe")
    assert messages(b)[3].endswith("d20=11+5=16 -> le sort passe")
    assert foe.hp == 30 - 6  # three missiles, one check
    reg = registry(tmp_path, make_spell("no-sr", spell_resistance=False,
                   effects=[{"kind": "damage", "formula": "1d6", "types": ["acid"]}]))  # fmt: skip
    b, m, foe = duel({"damage": [4]}, caster=mage(spells=["no sr"]), foe=resistant, spells=reg)
    cast(b, m, spell_name="no sr", target_id="foe")
    assert foe.hp == 26


# -- saves, areas, conditions, buffs --------------------------------------------------


def test_fireball_halves_on_a_reflex_save_per_creature_and_resistance_applies():
    hall = make_map(["........", "........", "........"])
    m = state("mage", "a", mage(), hall, (1, 0))
    cold = make_profile(name="Salamander", hp_max=40, resistances={"fire": 10})
    a = state("foe", "b", make_profile(name="Foe", hp_max=40), hall, (1, 5), 1)
    c = state("sala", "b", cold, hall, (1, 6), 2)
    b = battle(hall, [m, a, c], {"damage": [6] * 10, "save": [20, 2]})
    assert cast(b, m, spell_name="fireball", target_pos=(1, 6)).ok
    lines = messages(b)
    assert lines[1].startswith("boule de feu : ") and lines[1].endswith("touche foe, sala")
    assert (
        lines[3] == "boule de feu (mage) : 15 dégâts (moitié de 30 : sauvegarde réussie) (25/40 pv)"
    )
    assert lines[5] == "boule de feu (mage) : 20 dégâts (fire : résistance 10) (20/40 pv)"


def hold() -> dict[str, Any]:
    return make_spell(
        "hold", school="enchantment", subschools=["compulsion"],
        descriptors=["mind-affecting"], affects={"creature_types": ["humanoid"]},
        range={"kind": "medium"}, save={"type": "will", "outcome": "negates"},
        duration={"units": "rounds", "formula": "@cl"},
        effects=[{"kind": "condition", "conditions": ["paralyzed"]}],
    )  # fmt: skip


def test_a_save_negates_a_condition_which_lasts_the_spell_on_the_casters_turns(tmp_path: Path):
    reg = registry(tmp_path, hold())
    humanoid = make_profile(name="Foe", creature_type="humanoid", hp_max=20)
    b, m, foe = duel({"save": [15, 3]}, caster=mage(spells=["hold"]), foe=humanoid, spells=reg)
    cast(b, m, spell_name="hold", target_id="foe")  # DC 14, Will +0: 15 saves
    assert foe.effects.cond == 0
    cast(b, m, spell_name="hold", target_id="foe")
    assert messages(b)[-1] == "devient paralysé (5 rounds) (Hold)"
    assert foe.effects.rounds_left(foe.effects.items[0]) == 5
    # a creature the spell cannot take is refused; one immune to it is not affected
    beast = make_profile(name="Beast", creature_type="animal")
    b, m, foe = duel(caster=mage(spells=["hold"]), foe=beast, spells=reg)
    assert cast(b, m, spell_name="hold", target_id="foe").reason == Reason.INVALID_TARGET
    stoic = make_profile(name="Foe", creature_type="humanoid", immunities=["mind-affecting"])
    b, m, foe = duel(caster=mage(spells=["hold"]), foe=stoic, spells=reg)
    assert cast(b, m, spell_name="hold", target_id="foe").ok
    assert messages(b)[-1] == "Hold : immunisé (effets mentaux)"


def test_nested_phases_give_each_condition_for_the_phases_it_spans(tmp_path: Path):
    spray = make_spell(
        "spray", area={"shape": "cone", "size_ft": 15}, targeting="area", range={"kind": "feet",
        "feet": 15}, save={"type": "will", "outcome": "negates"},
        effects=[{"kind": "condition", "conditions": ["unconscious", "blinded", "stunned"],
                  "rounds": "2d4", "then": [{"conditions": ["blinded", "stunned"],
                                             "rounds": "1d4"},
                                            {"conditions": ["stunned"], "rounds": "1"}]}],
    )  # fmt: skip
    reg = registry(tmp_path, spray)
    b, m, _foe = duel({"save": [1], "duration": [1, 2, 2]}, gap=2, caster=mage(spells=["spray"]),
                     spells=reg)  # fmt: skip
    assert cast(b, m, spell_name="spray", target_id="foe").ok
    assert messages(b)[-3:] == [
        "devient inconscient (3 rounds) (Spray)",
        "devient aveuglé (5 rounds) (Spray)",
        "devient étourdi (6 rounds) (Spray)",
    ]


def test_a_buff_is_a_typed_timed_effect_that_stacks_by_type(tmp_path: Path):
    faith = make_spell(
        "faith", school="abjuration", range={"kind": "touch"}, targeting="ally",
        save={"type": "will", "outcome": "negates", "harmless": True},
        duration={"units": "minutes", "formula": "@cl"},
        effects=[{"kind": "buff", "rounds": "2",
                  "modifiers": [{"stat": "ac", "value": "2 + floor(@cl / 6)",
                                 "type": "deflection"}]}],
    )  # fmt: skip
    reg = registry(tmp_path, faith)
    b, m, _foe = duel(caster=mage(spells=["faith"]), spells=reg)
    assert cast(b, m, spell_name="faith", target_id="mage").ok
    assert m.effects.total(MELEE_AC) == 2
    cast(b, m, spell_name="faith", target_id="mage")  # the same bonus does not stack
    assert m.effects.total(MELEE_AC) == 2
    assert (
        messages(b)[-1]
        == "Faith : +2 CA contre la mêlée (de parade), +2 CA contre les tirs (de parade) (2 rounds)"
    )
    # an enemy is refused (a spell on a willing creature)
    assert cast(b, m, spell_name="faith", target_id="foe").reason == Reason.INVALID_TARGET


def test_cure_on_an_undead_is_a_touch_attack_then_will_half(tmp_path: Path):
    no_con = {"str_score": 12, "dex_score": 10, "con_score": None}
    undead = make_profile(name="Zombie", creature_type="undead", hp_max=20, abilities=no_con,
                          attacks=[])  # fmt: skip
    # touch +1 (BAB 2, Str −1) against touch AC 10; 1d8 (7) + 5 = 12, Will +0 vs DC 14
    b, m, z = duel({"attack": [12], "damage": [7], "save": [16]}, gap=1, foe=undead)
    cast(b, m, spell_name="cure light wounds", target_id="foe")
    assert z.hp == 20 - 6
    assert messages(b)[-2:] == [
        "jet de Volonté contre soins légers d20=16+0=16 vs DD 14 -> réussite (marge 2)",
        "soins légers (mage) : 6 dégâts d'énergie positive (moitié de 12 : sauvegarde réussie) "
        "(14/20 pv)",
    ]


# -- under threat -------------------------------------------------------------------


def test_casting_next_to_an_enemy_provokes_and_its_damage_forces_concentration():
    brute = make_profile(name="Brute", hp_max=30, attacks=[melee("axe", bonus=5, dmg="1d8")])
    b, m, foe = duel({"attack": [15], "damage": [6], "concentration": [8]}, gap=1, foe=brute)
    result = cast(b, m, spell_name="magic missile", target_id="foe")
    assert result.ok and result.reason == Reason.SPELL_LOST
    lines = messages(b)
    assert lines[1] == "attaque d'opportunité contre mage (lance un sort)"
    # +8 concentration (CL 5, Int +3) against 10 + 6 damage + level 1: 8 + 8 = 16 fails
    assert lines[3] == (
        "blessé en incantant (6 dégâts) (projectile magique) : concentration "
        "d20=8+8=16 vs DD 17 -> échec (marge -1) : sort perdu"
    )
    assert m.casting is not None and m.casting.slots[1] == 3  # the slot is spent
    assert foe.hp == 30
    b, m, foe = duel({"attack": [15], "damage": [6, 1, 1, 1], "concentration": [9]}, gap=1,
                     foe=brute)  # fmt: skip
    assert cast(b, m, spell_name="magic missile", target_id="foe") == succeeded_cast()
    assert foe.hp == 30 - 6


def test_casting_defensively_does_not_provoke_and_rolls_concentration():
    brute = make_profile(name="Brute", hp_max=30, attacks=[melee("axe", bonus=5, dmg="1d8")])
    b, m, foe = duel({"concentration": [8], "damage": [1, 1, 1]}, gap=1, foe=brute)
    cast(b, m, spell_name="magic missile", target_id="foe", cast_defensively=True)
    # +8 against 15 + 2 × 1 = 17: 8 + 8 = 16 fails, the spell is lost
    assert messages(b)[1:] == [
        "incantation sur la défensive (projectile magique) : concentration "
        "d20=8+8=16 vs DD 17 -> échec (marge -1) : sort perdu"
    ]
    b, m, foe = duel({"concentration": [9], "damage": [1, 1, 1]}, gap=1, foe=brute)
    cast(b, m, spell_name="magic missile", target_id="foe", cast_defensively=True)
    assert foe.hp == 30 - 6 and "opportunité" not in " ".join(messages(b))


# -- one-round spells -----------------------------------------------------------------


def test_sleep_takes_effect_at_the_start_of_the_next_turn_fewest_hd_first():
    hall = make_map(["..........", "..........", ".........."])
    goblin = make_profile(name="Goblin", level=1, hp_max=6,
                          saves={"fort": 0, "ref": 0, "will": -1})  # fmt: skip
    ogre = make_profile(name="Ogre", level=5, hp_max=30)
    m = state("mage", "a", mage(), hall, (1, 0))
    g1 = state("goblin", "b", goblin, hall, (1, 7), 1)
    g2 = state("goblin-2", "b", goblin, hall, (2, 7), 2)
    o = state("ogre", "b", ogre, hall, (0, 7), 3)
    plan = Plan(CastSpellAction(spell_name="sleep", target_pos=(1, 7)))
    wait = Plan(WaitAction())
    b = battle(hall, [m, g1, g2, o], {"save": [3, 20]}, policies={"a": plan, "b": wait})
    b.take_turn(m)
    assert (
        messages(b)[-1] == "commence à lancer sommeil en (1,7) (niveau 1, 3 emplacements restants)"
    )
    assert g1.effects.cond == 0  # nothing yet
    b.take_turn(m)
    lines = messages(b)
    start = lines.index("finit de lancer sommeil")
    assert lines[start + 1 : start + 7] == [
        "sommeil : 10 cases, touche goblin, goblin-2, ogre",
        "sommeil : sans effet (trop de dés de vie)",
        "jet de Volonté contre sommeil d20=3-1=2 vs DD 14 -> échec (marge -12)",
        "devient endormi (50 rounds) (sommeil)",
        "jet de Volonté contre sommeil d20=20-1=19 vs DD 14 -> réussite (naturel 20)",
        "commence à lancer sommeil en (1,7) (niveau 1, 2 emplacements restants)",
    ]


def test_a_one_round_spell_is_lost_when_its_caster_is_hurt_and_fails_concentration():
    hall = make_map(["..........", ".........."])
    m = state("mage", "a", mage(), hall, (0, 0))
    g = state("goblin", "b", make_profile(name="Goblin", hp_max=6), hall, (0, 7), 1)
    first = Plan(CastSpellAction(spell_name="sleep", target_id="goblin"))
    policies = {"a": Turns(first, Plan(WaitAction())), "b": Plan(WaitAction())}
    b = battle(hall, [m, g], {"concentration": [2]}, policies=policies)
    b.take_turn(m)
    m.hp -= 4  # hurt in between
    b.take_turn(m)
    assert messages(b)[-1] == (
        "blessé en incantant (4 dégâts) (sommeil) : concentration d20=2+8=10 vs DD 15 -> échec "
        "(marge -5) : sort perdu"
    )
    assert g.effects.cond == 0 and m.casting is not None and m.casting.pending is None


def test_a_cast_event_names_the_spell_level_and_slots():
    b, m, _foe = duel({"damage": [1, 1, 1]})
    cast(b, m, spell_name="Magic Missile", target_id="foe")
    (event,) = [e for e in b.fight.log if isinstance(e, SpellCast)]
    assert (event.spell_id, event.level, event.target, event.slots_left) == (
        "magic-missile",
        1,
        "foe",
        3,
    )


def test_verify_gives_the_same_plan_on_the_fight_and_on_the_observation():
    b, m, _foe = duel()
    obs = b.observe(m)
    action = CastSpellAction(spell_name="sleep", target_id="foe")
    engine = verify_cast_spell(ROW, b.fight, m, action)
    view = verify_cast_spell(ROW, obs, obs.actor, action)
    assert isinstance(engine, CastPlan) and isinstance(view, CastPlan)
    assert (engine.known, engine.target_id, engine.aim) == (view.known, view.target_id, view.aim)


@pytest.mark.parametrize("seed", range(3))
def test_a_fight_with_a_caster_plays_to_its_end(seed: int):
    hall = make_map(["..........", "..........", ".........."])
    m = state("mage", "a", mage(), hall, (1, 0))
    g = state("goblin", "b", make_profile(name="Goblin", hp_max=6), hall, (1, 8), 1)
    missile = Plan(CastSpellAction(spell_name="magic missile", target_id="goblin"))
    b = battle(hall, [m, g], SeededRng(seed), policies={"a": missile, "b": Plan()})
    b.fight.round = 0
    result = b.run()
    assert result.winner == "a"


def test_a_spell_for_allies_only_spares_the_enemies_it_catches() -> None:
    """*Bless* (`affects.side: allies`, a 50-ft burst centred on the caster): the
    caster and its ally get +1 morale on attacks, the enemy in the burst nothing."""
    from engine.state.effects import ATTACK

    m = state("mage", "a", mage(spells=["bless"]), ROW, (0, 0))
    ally = state("ally", "a", make_profile(name="Ally"), ROW, (0, 1), 1)
    foe = state("foe", "b", make_profile(name="Foe"), ROW, (0, 3), 2)
    b = battle(ROW, [m, ally, foe])
    assert cast(b, m, spell_name="bless").ok
    assert (m.effects.total(ATTACK), ally.effects.total(ATTACK)) == (1, 1)
    assert foe.effects.total(ATTACK) == 0 and not foe.effects.items


def test_holy_smite_halves_its_roll_for_a_neutral_creature_before_the_save_halves_it_again():
    """SRD « Holy Smite »: a neutral creature takes « only half damage », and a Will
    save halves it again; an evil one takes it all (half on a save)."""
    hall = make_map(["........", "........", "........"])
    cleric = mage(spells=["holy smite"], spell_slots={"4": 2}, caster_level=8)
    m = state("mage", "a", cleric, hall, (1, 0))
    n = state("neutre", "b", make_profile(name="N", hp_max=60), hall, (1, 5), 1)
    e = state("mauvais", "b", make_profile(name="E", hp_max=60, alignment="NE"), hall, (1, 6), 2)
    # 4d8 per creature (min(5, 8 // 2)); the saves: neutral fails, evil fails
    b = battle(hall, [m, n, e], {"damage": [5] * 8, "save": [2, 2, 2], "duration": [1]})
    assert cast(b, m, spell_name="holy smite", target_pos=(1, 6)).ok
    assert n.hp == 60 - 10  # half of 20
    assert e.hp == 60 - 20
    lines = [line for line in messages(b) if "dégâts" in line]
    assert lines[0] == "châtiment sacré (mage) : 10 dégâts (moitié de 20 selon la cible) (50/60 pv)"
    b = battle(hall, [m, n, e], {"damage": [7] * 8, "save": [20, 20]})
    assert cast(b, m, spell_name="holy smite", target_pos=(1, 6)).ok
    assert n.hp == 50 - 7  # 28 // 2 = 14, saved: 7
    assert e.hp == 40 - 14


def test_hypnotism_gives_its_targets_plus_two_on_their_will_save():
    """SRD « Hypnotism »: creatures in combat get +2 on the save (the file's
    ``save.bonus``): a 12 against DC 14 (10 + 1 + Int 3) saves; an 11 does not."""
    from engine.state.conditions import CONDITIONS

    fascinated = int(CONDITIONS["fascinated"].bit)
    for roll, kept in ((12, False), (11, True)):
        m = state("mage", "a", mage(spells=["hypnotism"]), ROW, (0, 0))
        f = state("foe", "b", make_profile(name="Foe", hp_max=20), ROW, (0, 5), 1)
        plan = Plan(CastSpellAction(spell_name="hypnotism", target_pos=(0, 5)))
        b = battle(ROW, [m, f], {"spell": [4, 4], "save": [roll], "duration": [3, 3]},
                   policies={"a": plan, "b": Plan(WaitAction())})  # fmt: skip
        b.take_turn(m)
        b.take_turn(m)
        assert bool(f.effects.cond & fascinated) is kept
        total = roll + 2
        verdict = "réussite" if not kept else "échec"
        assert any(
            line.startswith(
                f"jet de Volonté contre hypnose d20={roll}+2={total} vs DD 14 -> {verdict}"
            )
            for line in messages(b)
        )


def test_true_strike_adds_20_to_the_next_attack_roll_only():
    """SRD « True Strike »: +20 insight on « your next single attack roll »; the
    roll after it gets nothing."""
    striker = mage(spells=["true strike"], attacks=[melee("dagger")], spell_slots={"1": 1})
    b, m, _foe = duel({"attack": [1, 3, 3], "damage": [2]}, gap=1, caster=striker,
                     foe=make_profile(name="Foe", hp_max=20, ac={"total": 15, "touch": 10,
                                                                 "flat_footed": 15}))  # fmt: skip
    assert cast(b, m, spell_name="true strike").ok  # the foe's attack of opportunity: a 1
    b.dispatch(m, AttackAction(target_id="foe"))
    assert messages(b)[-1].startswith("dagger vs foe d20=3+20=23 CA 15 -> TOUCHÉ")
    b.dispatch(m, AttackAction(target_id="foe"))
    assert messages(b)[-1] == "dagger vs foe d20=3+0=3 CA 15 -> RATÉ"
