"""Spells in the LLM policy's menu: a caster's prompt lists its casts with the
figures a player weighs (slots, expected damage, the chance a condition lands,
healing, the attacks of opportunity a cast risks or the concentration check of a
defensive one), and the cast the model chooses is played. Non-casters' prompts are
untouched (the cassettes replay: tests/test_cassettes.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from builders import battle, make_map, make_profile, state

from engine.content.creatures import CombatantProfile, parse_combatant
from engine.content.maps import load_map
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from harness.report import render_transcript
from policies.heuristic import HeuristicPolicy
from policies.llm import ChatRequest, ChatResponse, LLMPolicy, shown_options
from policies.tactics import option_figures

ROOT = Path(__file__).resolve().parents[1]
MONSTERS = ROOT / "data" / "monsters"
HALL = make_map(["." * 40, "." * 40, "." * 40, "." * 40, "." * 40])


def npc(name: str, **changes: Any) -> CombatantProfile:
    data = json.loads((MONSTERS / f"{name}.json").read_text(encoding="utf-8"))
    data.update(changes)
    return parse_combatant(json.dumps(data), f"{name}.json")


def foe(hp: int = 20, **changes: Any) -> CombatantProfile:
    fields: dict[str, Any] = {"name": "Foe", "hp_max": hp, "creature_type": "humanoid"}
    fields.update(changes)
    return make_profile(**fields)


def figures(b: Any, actor: Any) -> dict[str, str]:
    """The menu the model sees: ``{option id: label : figures}``."""
    obs = b.observe(actor)
    return {
        o.id: f"{o.label} : {option_figures(obs, o).text()}"
        for o in shown_options(obs, frozenset())
    }


def test_a_damage_cast_shows_its_slot_and_expected_damage():
    """Magic Missile at caster level 1: one missile, 1d4 + 1 (mean 3.5), no attack
    roll and no save; the mercenary magician has its level-1 slots."""
    mage = state("mage", "a", npc("mercenary_magician"), HALL, (2, 2))
    enemy = state("enemy", "b", foe(hp=20), HALL, (2, 6), 1)
    b = battle(HALL, [mage, enemy])
    slots = mage.casting.slots[1]
    line = figures(b, mage)["cast_spell:magic-missile:enemy"]
    assert line == (
        f"lancer projectile magique sur enemy : sort niv 1 (emplacements {slots} → {slots - 1})"
        " ; dégâts 3,5 ; enemy 20/20 pv ; AO 0"
    )


def test_a_save_or_lose_area_shows_each_enemy_s_chance_to_fail():
    """Sleep (DC 10 + 1 + Int modifier) on two goblins: the chance each fails its
    Will save is (DC − its Will bonus − 1) / 20."""
    magician = state("magician", "a", npc("street_magician"), HALL, (2, 2))
    g1 = state("g1", "b", npc("goblin"), HALL, (2, 7), 1)
    g2 = state("g2", "b", npc("goblin"), HALL, (3, 7), 2)
    b = battle(HALL, [magician, g1, g2])
    book = magician.casting.book
    dc = book.dc(1)
    will = g1.profile.spec.saves.will
    fail = round(100 * min(0.95, max(0.05, (dc - will - 1) / 20)))
    lines = [v for k, v in figures(b, magician).items() if k.startswith("cast_spell:sleep:")]
    both = [v for v in lines if "2 ennemis" in v]
    assert both, lines
    assert f"g1 endormi {fail} % (DD {dc} Vol)" in both[0]
    assert f"g2 endormi {fail} % (DD {dc} Vol)" in both[0]


def test_a_threatened_cast_counts_its_attack_of_opportunity_and_the_defensive_one_its_check():
    mage = state("mage", "a", npc("mercenary_magician"), HALL, (2, 2))
    enemy = state("enemy", "b", foe(hp=20), HALL, (2, 3), 1)
    menu = figures(battle(HALL, [mage, enemy]), mage)
    assert menu["cast_spell:magic-missile:enemy"].endswith("; AO 1")
    defensive = menu["defensive_cast_spell:magic-missile:enemy"]
    # d20 + caster level + the casting ability's modifier + 4 (its Combat Casting)
    # against 15 + 2 × 1
    spec = mage.profile.spec
    assert "Combat Casting" in spec.features
    assert spec.casting_ability == "cha"
    bonus = mage.casting.book.caster_level + (spec.abilities.cha_score - 10) // 2 + 4
    chance = round(100 * min(1.0, max(0.0, (21 - 17 + bonus) / 20)))
    assert f"concentration {chance} %" in defensive and defensive.endswith("; AO 0")


def test_a_cure_shows_the_healing_it_can_restore():
    """Cure light wounds at caster level 1: 1d8 + 1 (mean 5.5), capped at the hit
    points the ally lacks (nothing on an ally at full hit points)."""
    acolyte = state("acolyte", "a", npc("acolyte"), HALL, (2, 2))
    hurt = state("hurt", "a", foe(name="Hurt", hp=20), HALL, (2, 3), 1, hp=2)
    fine = state("fine", "a", foe(name="Fine", hp=20), HALL, (3, 3), 2)
    enemy = state("enemy", "b", foe(), HALL, (2, 30), 3)
    menu = figures(battle(HALL, [acolyte, hurt, fine, enemy]), acolyte)
    assert "soins 5,5 sur hurt (2/20 pv)" in menu["cast_spell:cure-light-wounds:hurt"]
    assert "soins 0,0 sur fine (20/20 pv)" in menu["cast_spell:cure-light-wounds:fine"]


class _Picks:
    """A fake model that picks the first option whose label starts with ``prefix``."""

    model_id = "fake"

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        text = request.messages[1].content
        menu = {m.group(2): m.group(1) for m in re.finditer(r"^(\d+)\. (.+?) : ", text, re.M)}
        pick = next((v for k, v in menu.items() if k.startswith(self.prefix)), None)
        answer = json.dumps({"option_id": pick or list(menu.values())[-1]})
        return ChatResponse(answer, 1, 1, 0.0, self.model_id)


def test_the_model_casts_the_spell_it_chooses():
    gmap = load_map(ROOT / "data" / "maps" / "sample_arena.yaml")
    sides = [("players", [npc("mercenary_magician")]), ("monsters", [npc("goblin")] * 2)]
    encounter = build_encounter(gmap, sides)
    model = _Picks("lancer projectile magique")
    policy = LLMPolicy(model, answer="number")
    result = play_fight(
        encounter, 1, {"players": policy, "monsters": HeuristicPolicy()}, round_cap=3, record=True
    )
    text = render_transcript(result.log)
    assert policy.telemetry.fallbacks == {}  # the model chose every option played
    assert "raisonnement : cast_spell:magic-missile:goblin" in text
    assert "lance projectile magique sur goblin" in text
    shown = [r.messages[1].content for r in model.requests]
    assert any("lancer projectile magique" in p and "sort niv 1" in p for p in shown)


def test_a_non_caster_s_prompt_has_no_spell_figures():
    fighter = state("fighter", "a", foe(name="Fighter"), HALL, (2, 2))
    enemy = state("enemy", "b", foe(), HALL, (2, 3), 1)
    menu = figures(battle(HALL, [fighter, enemy]), fighter)
    assert menu and not any("sort" in v or "lancer" in v for v in menu.values())


class _First:
    """A fake model that always chooses the menu's first option (« 1 » or « 01 »)."""

    model_id = "fake"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        text = request.messages[1].content
        self.prompts.append(text)
        first = re.search(r"^(\d+)\. ", text, re.M)
        assert first is not None
        return ChatResponse(json.dumps({"option_id": first.group(1)}), 1, 1, 0.0, self.model_id)


def test_the_readme_menu_lines_are_real():
    """The README's two caster menu lines (« Politique LLM ») come from this fight."""
    from harness.cli.config import load_setup

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("Un lanceur de sorts voit aussi ses sorts")[1].split("```")[1]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 2
    setup = load_setup(None, None, str(ROOT / "data" / "encounters" / "casters.yaml"), None)
    model = _First()
    policy = LLMPolicy(model, answer="number")
    play_fight(setup.encounter, 1, {"players": policy, "monsters": HeuristicPolicy()}, round_cap=2)
    assert policy.telemetry.decisions > 0 and policy.telemetry.fallbacks == {}
    shown = {line for prompt in model.prompts for line in prompt.splitlines()}
    for line in lines:
        assert line in shown, line
