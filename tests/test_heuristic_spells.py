"""The default heuristic's spells (policies/spellcasting.py): each priority in a
situation built for it (heal, area, save-or-lose, buffs before contact, damage),
never a cast at a creature the spell cannot affect (sleep against undead or more
Hit Dice than its pool, daze against a non-humanoid) nor out of range, the slot
rule, defensive casting, non-casters untouched, and determinism. The casters are
the shipped NPCs of data/monsters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import battle, make_map, make_profile, melee, state

import policies.heuristic as heuristic_module
from engine.content.actions import CastSpellAction, Reason, TurnPlan
from engine.content.creatures import CombatantProfile, load_combatant, parse_combatant
from engine.content.maps import load_map
from engine.core.rng import SeededRng
from engine.run.runner import play_fight
from engine.state.effects import Effect, add_effect
from engine.state.encounter import build_encounter
from engine.view.casts import cast_candidates
from engine.view.observation import Observation
from policies.heuristic import HeuristicPolicy
from policies.spellcasting import choose_cast, expected_damage
from policies.strategy import StrategyPolicy, StrategySpec

ROOT = Path(__file__).resolve().parents[1]
MONSTERS = ROOT / "data" / "monsters"
HALL = make_map(["." * 40, "." * 40, "." * 40, "." * 40, "." * 40])


def npc(name: str, **changes: Any) -> CombatantProfile:
    """A shipped NPC (``data/monsters/<name>.json``), with ``changes`` to its file."""
    data = json.loads((MONSTERS / f"{name}.json").read_text(encoding="utf-8"))
    data.update(changes)
    return parse_combatant(json.dumps(data), f"{name}.json")


def foe(hp: int = 20, **changes: Any) -> CombatantProfile:
    fields: dict[str, Any] = {"name": "Foe", "hp_max": hp, "creature_type": "humanoid"}
    fields.update(changes)
    return make_profile(**fields)


def imaged(c: Any) -> Any:
    """``c`` under mirror images already (with an enemy near, a caster that knows
    *mirror image* casts it before anything else but a heal or an area)."""
    add_effect(c, Effect("images:mirror-image"))
    c.images = 2
    return c


def decide(b: Any, actor: Any) -> TurnPlan:
    return HeuristicPolicy().decide(b.observe(actor))


def cast_of(plan: TurnPlan) -> CastSpellAction | None:
    action = plan.actions[0]
    return action if isinstance(action, CastSpellAction) and len(plan.actions) == 1 else None


def spell_of(plan: TurnPlan) -> str | None:
    cast = cast_of(plan)
    return cast.spell_name if cast is not None else None


# -- 1. heal --------------------------------------------------------------------------


def test_a_badly_hurt_ally_in_reach_is_cured():
    acolyte = state("acolyte", "a", npc("acolyte"), HALL, (2, 2))
    guard = state("guard", "a", foe(name="Guard", hp=20), HALL, (2, 3), 1, hp=9)
    enemy = state("enemy", "b", foe(), HALL, (2, 30), 2)
    plan = decide(battle(HALL, [acolyte, guard, enemy]), acolyte)
    cast = cast_of(plan)
    assert cast is not None and (cast.spell_name, cast.target_id) == ("cure-light-wounds", "guard")


def test_an_ally_above_half_is_not_cured():
    acolyte = state("acolyte", "a", npc("acolyte"), HALL, (2, 2))
    guard = state("guard", "a", foe(name="Guard", hp=20), HALL, (2, 3), 1, hp=11)
    enemy = state("enemy", "b", foe(), HALL, (2, 30), 2)
    b = battle(HALL, [acolyte, guard, enemy])
    b.fight.round = 3  # past the first round: no buff either (but no threat: bless)
    assert spell_of(decide(b, acolyte)) != "cure-light-wounds"


def test_the_dying_ally_comes_first_with_the_strongest_cure():
    """The cultist knows cure light (level 1) and cure moderate (level 2) wounds: the
    dying ally, not the caster at a lower share of hp, gets the level-2 cure."""
    cultist = state("cultist", "a", npc("cultist"), HALL, (2, 2), hp=3)
    dying = state("guard", "a", foe(name="Guard", hp=20), HALL, (2, 3), 1, hp=-2)
    enemy = state("enemy", "b", foe(), HALL, (2, 30), 2)
    cast = cast_of(decide(battle(HALL, [cultist, dying, enemy]), cultist))
    assert cast is not None
    assert (cast.spell_name, cast.target_id) == ("cure-moderate-wounds", "guard")


def test_a_hurt_ally_out_of_reach_is_not_cured():
    """Cure is a touch: no cast at an ally three squares away (the engine would refuse)."""
    acolyte = state("acolyte", "a", npc("acolyte"), HALL, (2, 2))
    guard = state("guard", "a", foe(name="Guard", hp=20), HALL, (2, 5), 1, hp=-2)
    enemy = state("enemy", "b", foe(), HALL, (2, 30), 2)
    b = battle(HALL, [acolyte, guard, enemy])
    b.fight.round = 3
    cast = cast_of(decide(b, acolyte))
    assert cast is None or cast.target_id != "guard"


# -- 2. area --------------------------------------------------------------------------


def _pack(profile: CombatantProfile, cells: list[tuple[int, int]], start: int = 1) -> list[Any]:
    return [state(f"e{i}", "b", profile, HALL, cell, start + i) for i, cell in enumerate(cells)]


def test_sleep_on_the_placement_that_catches_the_most_enemies_and_no_ally():
    shaman = state("shaman", "a", npc("shaman"), HALL, (2, 0))
    # a pair of enemies 10 ft apart, two lone ones, the ally far from all of them
    ally = state("ally", "a", foe(name="Ally"), HALL, (2, 34), 9)
    enemies = _pack(foe(hp=6, level=1), [(1, 10), (3, 10), (0, 20), (4, 26)])
    b = battle(HALL, [shaman, ally, *enemies])
    plan = decide(b, shaman)
    cast = cast_of(plan)
    assert cast is not None and cast.spell_name == "sleep" and cast.target_pos is not None
    [cand] = [c for c in cast_candidates(b.observe(shaman)) if c.action == cast]
    assert len(cand.enemies) >= 2 and "ally" not in cand.allies and "shaman" not in cand.allies


def test_no_area_spell_that_would_catch_an_ally():
    """Two enemies and an ally packed together: every placement of sleep catching
    both enemies catches the ally, so no sleep on two (one enemy alone: allowed)."""
    shaman = state("shaman", "a", npc("shaman"), HALL, (2, 0))
    ally = state("ally", "a", foe(name="Ally"), HALL, (2, 10), 9)
    enemies = _pack(foe(hp=6, level=1), [(2, 11), (2, 9)])
    b = battle(HALL, [shaman, ally, *enemies])
    cast = cast_of(decide(b, shaman))
    if cast is not None and cast.spell_name == "sleep":
        [cand] = [c for c in cast_candidates(b.observe(shaman)) if c.action == cast]
        assert "ally" not in cand.allies and len(cand.enemies) == 1


@pytest.mark.parametrize(
    ("why", "profile"),
    [
        ("undead (mind-affecting)", foe(hp=20, creature_type="undead", level=1)),
        ("more Hit Dice than the pool (4)", foe(hp=20, level=5)),
    ],
)
def test_sleep_is_never_cast_at_creatures_it_cannot_affect(why: str, profile: CombatantProfile):
    shaman = state("shaman", "a", npc("shaman"), HALL, (2, 0))
    enemies = _pack(profile, [(1, 10), (3, 10), (2, 11)])
    b = battle(HALL, [shaman, *enemies])
    for rnd in (1, 3):
        b.fight.round = rnd
        assert spell_of(decide(b, shaman)) != "sleep", why


# -- 3. save-or-lose ------------------------------------------------------------------


def test_daze_goes_to_the_enemy_with_the_weakest_will():
    magician = state("magician", "a", npc("mercenary_magician"), HALL, (2, 0))
    strong = state("strong", "b", foe(saves={"fort": 0, "ref": 0, "will": 6}), HALL, (2, 4), 1)
    weak = state("weak", "b", foe(saves={"fort": 6, "ref": 6, "will": -1}), HALL, (0, 4), 2)
    cast = cast_of(decide(battle(HALL, [magician, strong, weak]), magician))
    assert cast is not None and (cast.spell_name, cast.target_id) == ("daze", "weak")


def test_daze_is_never_cast_at_a_creature_it_cannot_affect():
    """Daze: humanoids of 4 HD or less; against an animal and a 5-HD humanoid the
    magician casts something else (magic missile)."""
    magician = state("magician", "a", npc("mercenary_magician"), HALL, (2, 0))
    beast = state("beast", "b", foe(creature_type="animal"), HALL, (2, 4), 1)
    chief = state("chief", "b", foe(level=5, saves={"fort": 0, "ref": 0, "will": -2}), HALL,
                  (0, 4), 2)  # fmt: skip
    plan = decide(battle(HALL, [magician, beast, chief]), magician)
    assert spell_of(plan) == "magic-missile"


def test_an_enemy_already_dazed_is_not_dazed_again():
    from engine.rules.status import give_condition

    magician = state("magician", "a", npc("mercenary_magician"), HALL, (2, 0))
    strong = state("strong", "b", foe(saves={"fort": 0, "ref": 0, "will": 6}), HALL, (2, 4), 1)
    weak = state("weak", "b", foe(saves={"fort": 6, "ref": 6, "will": -1}), HALL, (0, 4), 2)
    b = battle(HALL, [magician, strong, weak])
    give_condition(b.fight, weak, "dazed", 2, effect="test", origin=magician)
    cast = cast_of(decide(b, magician))
    assert cast is not None and (cast.spell_name, cast.target_id) == ("daze", "strong")


# -- 4. buffs before contact ----------------------------------------------------------


def test_bless_before_contact_then_not_again():
    acolyte = state("acolyte", "a", npc("acolyte"), HALL, (2, 0))
    ally = state("ally", "a", foe(name="Ally"), HALL, (2, 1), 1)
    enemy = state("enemy", "b", foe(), HALL, (2, 30), 2)
    b = battle(HALL, [acolyte, ally, enemy], SeededRng(1))
    assert spell_of(decide(b, acolyte)) == "bless"
    assert b.dispatch(acolyte, CastSpellAction(spell_name="bless")).ok
    assert spell_of(decide(b, acolyte)) != "bless"


def test_no_buff_once_an_enemy_threatens_after_the_first_round():
    acolyte = state("acolyte", "a", npc("acolyte"), HALL, (2, 0))
    ally = state("ally", "a", foe(name="Ally"), HALL, (2, 1), 1)
    enemy = state("enemy", "b", foe(), HALL, (2, 2), 2)
    b = battle(HALL, [acolyte, ally, enemy])
    b.fight.round = 2
    assert spell_of(decide(b, acolyte)) != "bless"


def test_mage_armor_on_the_caster_before_contact():
    lich = state("lich", "a", load_combatant(MONSTERS / "lich.json"), HALL, (2, 0))
    enemy = state("enemy", "b", foe(creature_type="animal"), HALL, (2, 38), 1)
    cast = cast_of(decide(battle(HALL, [lich, enemy]), lich))
    assert cast is not None and cast.spell_name == "mage-armor" and cast.target_id == "lich"


# -- 5. damage, slots, range ----------------------------------------------------------


def test_the_highest_expected_damage_on_one_enemy():
    """Battle mage, CL 3, against an animal (no daze): scorching ray (4d6, a ranged
    touch) beats magic missile (2 × 1d4+1); shocking grasp is out of reach."""
    mage = imaged(state("mage", "a", npc("battle_mage"), HALL, (2, 0)))
    beast = state("beast", "b", foe(hp=30, creature_type="animal"), HALL, (2, 5), 1)
    b = battle(HALL, [mage, beast])
    obs = b.observe(mage)
    assert obs.actor.casting is not None
    book = obs.actor.casting.book
    ray, missile = book.get("scorching ray"), book.get("magic missile")
    assert ray is not None and missile is not None
    target = obs.combatant("beast")
    assert expected_damage(obs, missile, target) == pytest.approx(7.0)
    assert expected_damage(obs, ray, target) > 7.0
    cast = cast_of(decide(b, mage))
    assert cast is not None and (cast.spell_name, cast.target_id) == ("scorching-ray", "beast")


def test_energy_immunity_counts_for_nothing():
    mage = imaged(state("mage", "a", npc("battle_mage"), HALL, (2, 0)))
    beast = state("beast", "b", foe(hp=30, creature_type="animal", immunities=["fire"]), HALL,
                  (2, 5), 1)  # fmt: skip
    cast = cast_of(decide(battle(HALL, [mage, beast]), mage))
    assert cast is not None and cast.spell_name == "magic-missile"


def test_a_cantrip_instead_of_a_slot_on_an_enemy_it_drops():
    """An enemy at 0 hp: ray of frost (1d3) is expected to drop it, so no slot of
    magic missile is spent on it; at 20 hp, magic missile."""
    magician = state("magician", "a", npc("mercenary_magician"), HALL, (2, 0))
    low = state("beast", "b", foe(hp=20, creature_type="animal"), HALL, (2, 4), 1, hp=0)
    assert spell_of(decide(battle(HALL, [magician, low]), magician)) == "ray-of-frost"
    full = state("beast", "b", foe(hp=20, creature_type="animal"), HALL, (2, 4), 1)
    assert spell_of(decide(battle(HALL, [magician, full]), magician)) == "magic-missile"


def test_a_cantrip_that_does_not_drop_gives_way_to_a_weapon():
    profile = npc("mercenary_magician", spell_slots={"0": 4})
    magician = state("magician", "a", profile, HALL, (2, 0))
    beast = state("beast", "b", foe(hp=20, creature_type="animal"), HALL, (2, 1), 1)
    b = battle(HALL, [magician, beast])
    b.fight.round = 2
    assert cast_of(decide(b, magician)) is None


def test_nothing_is_cast_out_of_range():
    """Magic missile reaches 130 feet at CL 3, scorching ray 30: an enemy 190 feet
    away gets no cast (the battle mage walks)."""
    mage = state("mage", "a", npc("battle_mage"), HALL, (2, 0))
    beast = state("beast", "b", foe(hp=30, creature_type="animal"), HALL, (2, 38), 1)
    b = battle(HALL, [mage, beast])
    b.fight.round = 2
    assert cast_of(decide(b, mage)) is None


def test_casts_defensively_only_with_a_good_concentration_chance():
    """The lich (d20 + 17 against 17 for magic missile) casts defensively when
    threatened; the battle mage (d20 + 6 against 19 for scorching ray: 40 %) does
    not, and takes the attack of opportunity."""
    lich = state("lich", "a", load_combatant(MONSTERS / "lich.json"), HALL, (2, 0))
    beast = state("beast", "b", foe(hp=60, creature_type="animal"), HALL, (2, 1), 1)
    b = battle(HALL, [lich, beast])
    b.fight.round = 2
    cast = cast_of(decide(b, lich))
    assert cast is not None and cast.cast_defensively
    mage = state("mage", "a", npc("battle_mage"), HALL, (2, 0))
    beast = state("beast", "b", foe(hp=60, creature_type="animal"), HALL, (2, 1), 1)
    b = battle(HALL, [mage, beast])
    b.fight.round = 2
    cast = cast_of(decide(b, mage))
    assert cast is not None and not cast.cast_defensively


# -- non-casters, the engine's verdict, determinism -----------------------------------


def test_a_non_caster_never_reaches_the_spell_choice(monkeypatch: pytest.MonkeyPatch):
    def refuse(obs: Observation) -> None:
        raise AssertionError(f"{obs.acting_id} asked for a cast")

    monkeypatch.setattr(heuristic_module, "choose_cast", refuse)
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(MONSTERS / "goblin.json")
    o = load_combatant(MONSTERS / "orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    h = HeuristicPolicy()
    for seed in range(1, 6):
        assert play_fight(enc, seed, {"players": h, "monsters": h}).rounds > 0


def test_a_caster_with_nothing_to_cast_plays_as_its_spell_less_copy():
    """Slots spent, no cantrip that helps: the same plan as the same creature
    without spells, in every situation of a short fight."""
    spent = npc("shaman", spell_slots={"0": 3, "1": 0}, spells=["sleep", "burning hands"])
    plain = npc("shaman", spell_slots={}, spells=[])
    for col in (1, 3, 8, 20):
        plans = []
        for profile in (spent, plain):
            me = state("shaman", "a", profile, HALL, (2, 0))
            enemy = state("enemy", "b", foe(), HALL, (2, col), 1)
            b = battle(HALL, [me, enemy])
            b.fight.round = 2
            plans.append(decide(b, me))
        assert plans[0] == plans[1], col


class Watch:
    """The heuristic, recording every cast the engine refused."""

    def __init__(self) -> None:
        self.inner = HeuristicPolicy()
        self.refused: list[tuple[str, str | None]] = []
        self.casts = 0

    def decide(self, obs: Observation) -> TurnPlan:
        for r in obs.last_turn_results:
            if r.kind == "cast_spell" and not r.ok and r.reason not in (Reason.ACTOR_DOWN,):
                self.refused.append((obs.acting_id, r.reason))
        plan = self.inner.decide(obs)
        self.casts += sum(isinstance(a, CastSpellAction) for a in plan.actions)
        return plan


def _casters_encounter() -> Any:
    from harness.cli.config import load_setup

    return load_setup(None, None, str(ROOT / "data/encounters/casters.yaml"), None).encounter


def test_casters_cast_and_the_engine_never_refuses_them():
    enc = _casters_encounter()
    watch = Watch()
    for seed in range(1, 11):
        play_fight(enc, seed, {"players": watch, "monsters": watch})
    assert watch.casts >= 10
    assert watch.refused == []


def test_same_seed_same_fight_with_casters():
    enc = _casters_encounter()
    h = HeuristicPolicy()
    a = play_fight(enc, 3, {"players": h, "monsters": h}, record=True).log
    b = play_fight(enc, 3, {"players": HeuristicPolicy(), "monsters": h}, record=True)
    assert a == b.log


def test_the_default_strategy_casts_exactly_like_the_heuristic():
    enc = _casters_encounter()
    h, s = HeuristicPolicy(), StrategyPolicy(StrategySpec())
    for seed in range(1, 6):
        a = play_fight(enc, seed, {"players": h, "monsters": h}, record=True).log
        b = play_fight(enc, seed, {"players": s, "monsters": s}, record=True).log
        assert a == b, seed


def test_choose_cast_is_none_for_a_creature_without_spells():
    fighter = state("fighter", "a", make_profile(attacks=[melee()]), HALL, (2, 0))
    enemy = state("enemy", "b", foe(), HALL, (2, 5), 1)
    assert choose_cast(battle(HALL, [fighter, enemy]).observe(fighter)) is None
