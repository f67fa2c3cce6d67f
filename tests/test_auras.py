"""Monster abilities as data (``engine/content/abilities.py``) and the rules that
play them (``engine/rules/auras.py``): start-of-turn auras, on-hit riders,
timed starting conditions, an encounter file's starting-state overrides.

Statistical tests draw ≥ 20,000 samples and compare with an expectation counted
here from the d20's faces (not from the engine's ``save_probability``), within
3σ.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from engine.content.abilities import CONDITION_NAMES, AuraSpec, RiderSpec
from engine.content.actions import WaitAction
from engine.content.creatures import CombatantProfile, load_combatant, parse_combatant
from engine.content.modelled import unmodelled
from engine.core.errors import DataError
from engine.core.events import ConditionEnded, ConditionGained, Immune, SavingThrow
from engine.core.rng import SeededRng
from engine.rules.auras import aura_turn, rider_hit
from engine.rules.skills import skill_bonus
from engine.state.conditions import CONDITIONS
from engine.state.effects import NO_EFFECTS, Cond, Moment, tick
from engine.turn.battle import Battle
from harness.encounter_file import load_encounter_file
from tests.builders import BASE, Plan, battle, make_map, make_profile, messages, state

ROOT = Path(__file__).resolve().parent.parent
MONSTERS = ROOT / "data" / "monsters"
LICH = load_combatant(MONSTERS / "lich.json")
GHOUL = load_combatant(MONSTERS / "ghoul.json")
TROGLODYTE = load_combatant(MONSTERS / "troglodyte.json")
GOBLIN = load_combatant(MONSTERS / "goblin.json")
ORC = load_combatant(MONSTERS / "orc.json")
OPEN = make_map(["............", "............", "............"])
SAMPLES = 20_000


def fail_probability(bonus: int, dc: int) -> float:
    """P(a d20 save fails), counted over the faces: a natural 1 fails, a natural
    20 succeeds, otherwise the total against the DC."""
    fails = sum(1 for face in range(1, 21) if face != 20 and (face == 1 or face + bonus < dc))
    return fails / 20


def within_3_sigma(hits: int, n: int, p: float) -> bool:
    sigma = math.sqrt(p * (1 - p) / n)
    return abs(hits / n - p) <= 3 * sigma


def with_file(profile: CombatantProfile, **changes: Any) -> CombatantProfile:
    data = profile.spec.model_dump(mode="json")
    data.update(changes)
    return parse_combatant(json.dumps(data), "test")


# --------------------------------------------------------------------------- content


def test_condition_names_are_the_table() -> None:
    # the content layer keeps its own list (it cannot import the state layer)
    assert tuple(CONDITIONS) == CONDITION_NAMES


AURA: dict[str, Any] = {
    "name": "aura de terreur",
    "radius_ft": 60,
    "save": "will",
    "dc": 18,
    "descriptors": ["mind-affecting", "fear"],
    "outcomes": [
        {"max_hd": 4, "condition": "frightened", "rounds": 11},
        {"condition": "shaken", "rounds": 11},
    ],
}


def aura_error(**changes: Any) -> str:
    with pytest.raises(DataError) as err:
        make_profile(auras=[{**AURA, **changes}])
    return str(err.value)


def test_aura_fields_are_validated_in_french() -> None:
    assert "champ « auras[0].radius_ft » : « radius_ft » doit être un multiple de 5" in (
        aura_error(radius_ft=62)
    )
    bad = [{"condition": "frigthened", "rounds": 1}]
    assert "condition inconnue « frigthened » (vouliez-vous dire « frightened » ?)" in aura_error(
        outcomes=bad
    )
    assert "descripteur inconnu « mind affecting » (vouliez-vous dire « mind-affecting » ?)" in (
        aura_error(descriptors=["mind affecting"])
    )
    unordered = [{"condition": "shaken", "rounds": 1}, {"max_hd": 4, "condition": "frightened",
                                                        "rounds": 1}]  # fmt: skip
    assert "seul le dernier résultat peut omettre « max_hd »" in aura_error(outcomes=unordered)
    assert "formule de dés" in aura_error(outcomes=[{"condition": "shaken", "rounds": "1d"}])
    assert "durée en rounds ≥ 1" in aura_error(outcomes=[{"condition": "shaken", "rounds": 0}])
    assert "champ inconnu « immune_after_saves » (vouliez-vous dire « immune_after_save » ?)" in (
        aura_error(immune_after_saves=True)
    )
    # a duration is always said: a number, dice, or null (the whole fight)
    assert "champ obligatoire manquant" in aura_error(outcomes=[{"condition": "shaken"}])
    with pytest.raises(DataError, match="aura « x » donnée deux fois"):
        make_profile(auras=[{**AURA, "name": "x"}, {**AURA, "name": "x"}])


def test_rider_and_starting_conditions_are_validated() -> None:
    rider = {"name": "p", "save": "fort", "dc": 13, "condition": "paralysed", "rounds": "1d4+1"}
    attack = {**BASE["attacks"][0], "rider": rider}
    with pytest.raises(DataError, match="vouliez-vous dire « paralyzed »"):
        make_profile(attacks=[attack])
    assert RiderSpec.model_validate({**rider, "condition": "paralyzed"}).rounds == "1d4+1"
    with pytest.raises(DataError, match="entrée 1 : condition inconnue « shakn »"):
        make_profile(conditions=["blurred", "shakn"])
    with pytest.raises(DataError, match="« bleeding » s'écrit"):
        make_profile(conditions=["bleeding"])
    with pytest.raises(DataError, match="« rounds » : doit être supérieur ou égal à 1"):
        make_profile(conditions=[{"name": "shaken", "rounds": 0}])
    with pytest.raises(DataError, match="condition « shaken » donnée deux fois"):
        make_profile(conditions=["shaken", {"name": "shaken", "rounds": 2}])
    with pytest.raises(DataError, match="« bleed » n'a de sens que pour « bleeding »"):
        make_profile(conditions=[{"name": "shaken", "bleed": 2}])
    with pytest.raises(DataError, match="immunité inconnue « paralisys »"):
        make_profile(immunities=["paralisys"])
    # every condition of the table may start a fight, not only the four of Phase 0
    p = make_profile(conditions=["prone", {"name": "bleeding", "bleed": 2, "rounds": 3}])
    assert [(c.name, c.rounds, c.bleed) for c in p.conditions] == [
        ("bleeding", 3, 2),
        ("prone", None, 0),
    ]
    assert make_profile(immunities=["paralysis", "sleep", "fire"]).spec.immunities


def test_auras_and_riders_are_modelled_not_listed() -> None:
    listed = {(u.creature, u.name) for u in unmodelled([LICH, GHOUL, TROGLODYTE])}
    assert not any("aura" in name or "rider" in name for _, name in listed)
    assert ("Troglodyte", "auras") not in listed and not unmodelled([TROGLODYTE])
    # the lich's spells it cannot cast and the feats no rule reads are listed
    assert any(name.startswith("spells « ") for who, name in listed if who == "Lich")
    assert ("Lich", "Channel Resistance +4") in listed


def test_outcome_by_hit_dice() -> None:
    aura = LICH.auras[0]
    assert [aura.outcome_for(hd).condition for hd in (1, 4)] == ["frightened"] * 2  # type: ignore[union-attr]
    assert [aura.outcome_for(hd).condition for hd in (5, 20)] == ["shaken"] * 2  # type: ignore[union-attr]
    sleep = AuraSpec.model_validate({**AURA, "outcomes": [{"max_hd": 4, "condition": "asleep",
                                                            "rounds": None}]})  # fmt: skip
    assert sleep.outcomes[0].rounds is None


# --------------------------------------------------------------------------- auras


def lich_and(target: CombatantProfile, dice: Any = None, at: tuple[int, int] = (1, 5)) -> Battle:
    lich = state("lich", "monsters", LICH, OPEN, (1, 1), 0)
    other = state("x", "players", target, OPEN, at, 1)
    return battle(OPEN, [lich, other], dice)


def aura_outcomes(target: CombatantProfile, seed: int) -> dict[str, int]:
    """How often one aura turn of the lich gives ``target`` each condition."""
    b = lich_and(target, SeededRng(seed))
    b.fight.log = None
    lich, other = b.combatants
    seen: dict[str, int] = {}
    for _ in range(SAMPLES):
        other.effects = NO_EFFECTS
        lich.effects = NO_EFFECTS
        b.fight.aura_spared.clear()
        aura_turn(b.fight, lich)
        for name in CONDITIONS:
            if other.effects.cond & CONDITIONS[name].bit:
                seen[name] = seen.get(name, 0) + 1
    return seen


@pytest.mark.parametrize(
    ("target", "condition"),
    [(GOBLIN, "frightened"), (ORC, "frightened"), (with_file(ORC, level=5), "shaken")],
    ids=["goblin", "orc", "orc-5HD"],
)
def test_lich_aura_exact_probability(target: CombatantProfile, condition: str) -> None:
    # Will −1 against DC 18: success only on 19 and 20; < 5 HD frightened, else shaken
    assert target.spec.saves.will == -1
    p = fail_probability(-1, 18)
    assert p == 0.9
    seen = aura_outcomes(target, 17)
    assert set(seen) == {condition}
    assert within_3_sigma(seen[condition], SAMPLES, p), seen[condition] / SAMPLES


def test_aura_gives_its_duration_and_a_save_protects() -> None:
    b = lich_and(GOBLIN, {"save": [5, 20]})
    lich, goblin = b.combatants
    aura_turn(b.fight, lich)
    (fx,) = goblin.effects.items
    assert (fx.source, fx.turns, fx.ends, fx.origin) == ("cond:frightened", 11, Moment.TURN_START,
                                                         "lich")  # fmt: skip
    # timed on the lich's turns: 11 of its turn starts, then the aura asks again
    aura_turn(b.fight, lich)  # already under the aura's effect: no die
    for _ in range(10):
        tick(lich, Moment.TURN_START)
    assert goblin.effects.cond & Cond.FRIGHTENED
    tick(lich, Moment.TURN_START)
    assert goblin.effects.items == ()
    aura_turn(b.fight, lich)  # natural 20: saved, protected for the fight
    aura_turn(b.fight, lich)  # (a second save die would be a DiceScriptError)
    assert goblin.effects.items == ()
    assert messages(b) == [
        "jet de Volonté contre aura de terreur de lich d20=5-1=4 vs DD 18 -> échec (marge -14)",
        "devient effrayé (11 rounds) (aura de terreur de lich)",
        "jet de Volonté contre aura de terreur de lich d20=20-1=19 vs DD 18 -> "
        "réussite (naturel 20)",
    ]


def test_without_immunity_after_a_save_the_aura_asks_again() -> None:
    aura = {**AURA, "outcomes": [{"condition": "shaken", "rounds": 1}]}
    owner = with_file(LICH, auras=[aura])
    lich = state("lich", "monsters", owner, OPEN, (1, 1), 0)
    goblin = state("goblin", "players", GOBLIN, OPEN, (1, 3), 1)
    b = battle(OPEN, [lich, goblin], {"save": [20, 20]})
    aura_turn(b.fight, lich)
    aura_turn(b.fight, lich)
    assert [type(e) for e in b.fight.log or ()] == [SavingThrow, SavingThrow]


def test_aura_reach_hit_dice_and_sight() -> None:
    walls = make_map(["......#.....", "......#.....", "......#....."])
    lich = state("lich", "monsters", LICH, walls, (1, 1), 0)
    near = state("near", "players", GOBLIN, walls, (0, 5), 1)
    hidden = state("hidden", "players", GOBLIN, walls, (1, 8), 2)  # behind the wall, 35 ft
    blind = state("blind", "players", with_file(GOBLIN, conditions=["blinded"]), walls, (2, 2), 3)
    b = battle(walls, [lich, near, hidden, blind], {"save": [1]})
    aura_turn(b.fight, lich)
    # the one behind the wall cannot see the lich, nor can the blinded one (SRD
    # « that look at the lich »): no die
    assert [e.actor for e in b.fight.log or () if isinstance(e, SavingThrow)] == ["near"]
    # 60 ft: 10 squares along a row and one diagonal step (5-10-5) is 50 ft
    far = state("far", "players", GOBLIN, OPEN, (0, 11), 1)
    b2 = battle(OPEN, [state("lich", "monsters", LICH, OPEN, (1, 1), 0), far], {"save": [20]})
    aura_turn(b2.fight, b2.combatants[0])
    assert [e.actor for e in b2.fight.log or () if isinstance(e, SavingThrow)] == ["far"]
    small = with_file(LICH, auras=[{**AURA, "radius_ft": 10}])
    lich3 = state("lich", "monsters", small, OPEN, (1, 1), 0)
    near = state("near", "players", GOBLIN, OPEN, (1, 3), 1)  # 10 ft
    away = state("away", "players", GOBLIN, OPEN, (1, 4), 2)  # 15 ft
    b3 = battle(OPEN, [lich3, near, away], {"save": [20]})
    aura_turn(b3.fight, lich3)
    assert [e.actor for e in b3.fight.log or () if isinstance(e, SavingThrow)] == ["near"]
    # only creatures of at most 4 HD: a 5-HD one rolls nothing
    few = with_file(LICH, auras=[{**AURA, "outcomes": [{"max_hd": 4, "condition": "asleep",
                                                          "rounds": None}]}])  # fmt: skip
    lich4 = state("lich", "monsters", few, OPEN, (1, 1), 0)
    big = state("big", "players", with_file(ORC, level=5), OPEN, (1, 3), 1)
    b4 = battle(OPEN, [lich4, big])  # no dice at all
    aura_turn(b4.fight, lich4)
    assert b4.fight.log == []


def test_undead_are_immune_to_the_fear_aura_said_once() -> None:
    b = lich_and(GHOUL)  # no dice: a save would raise
    lich, ghoul = b.combatants
    aura_turn(b.fight, lich)
    aura_turn(b.fight, lich)
    assert b.fight.log == [Immune(1, "x", "aura de terreur de lich", "mind-affecting")]
    assert messages(b) == ["aura de terreur de lich : immunisé (effets mentaux)"]
    assert ghoul.effects.items == ()


def test_stench_spares_troglodytes_and_the_immune_to_poison() -> None:
    trog = state("trog", "monsters", TROGLODYTE, OPEN, (1, 1), 0)
    other = state("trog-2", "monsters", TROGLODYTE, OPEN, (1, 2), 1)
    ghoul = state("ghoul", "monsters", GHOUL, OPEN, (2, 2), 2)
    goblin = state("goblin", "players", GOBLIN, OPEN, (1, 4), 3)
    b = battle(OPEN, [trog, other, ghoul, goblin], {"save": [9]})
    aura_turn(b.fight, trog)
    # Fort +3 against DC 13: 9 + 3 = 12 fails; sickened 10 rounds
    assert messages(b) == [
        "puanteur de trog : immunisé (poison)",
        "jet de Vigueur contre puanteur de trog d20=9+3=12 vs DD 13 -> échec (marge -1)",
        "devient fiévreux (10 rounds) (puanteur de trog)",
    ]
    assert goblin.effects.cond & Cond.SICKENED and not other.effects.items


def test_aura_at_the_start_of_its_owners_turn_once() -> None:
    lich = state("lich", "monsters", LICH, OPEN, (1, 1), 0)
    goblin = state("goblin", "players", GOBLIN, OPEN, (1, 5), 1)
    b = battle(OPEN, [lich, goblin], {"save": [5]}, policies={"monsters": Plan(WaitAction()),
               "players": Plan(WaitAction())})  # fmt: skip
    b.take_turn(goblin)  # not the owner's turn: nothing
    assert b.fight.log == []
    b.take_turn(lich)
    assert isinstance((b.fight.log or [])[-1], ConditionGained)


# --------------------------------------------------------------------------- riders


def test_ghoul_paralysis_exact_probability_and_duration() -> None:
    # Fort +2 against DC 13: fails on 1–10; paralyzed 1d4+1 rounds (2–5, mean 3.5)
    target_profile = with_file(GOBLIN, saves={"fort": 2, "ref": 2, "will": -1})
    ghoul = state("ghoul", "monsters", GHOUL, OPEN, (1, 1), 0)
    target = state("x", "players", target_profile, OPEN, (1, 2), 1)
    b = battle(OPEN, [ghoul, target], SeededRng(5), record=False)
    rider = GHOUL.attacks[0].rider
    assert rider is not None
    held = 0
    rounds: list[int] = []
    for _ in range(SAMPLES):
        target.effects = NO_EFFECTS
        ghoul.effects = NO_EFFECTS
        if rider_hit(b.fight, ghoul, target, rider):
            held += 1
            (fx,) = target.effects.items
            assert fx.cond == Cond.PARALYZED and fx.origin == "ghoul"
            rounds.append(fx.turns)
    p = fail_probability(2, 13)
    assert p == 0.5
    assert within_3_sigma(held, SAMPLES, p)
    assert set(rounds) == {2, 3, 4, 5}
    mean, sd = 3.5, math.sqrt(1.25)  # 1d4+1: variance (4² − 1)/12
    assert abs(sum(rounds) / len(rounds) - mean) <= 3 * sd / math.sqrt(len(rounds))


def test_lich_touch_paralyzes_for_the_fight_and_spares_undead() -> None:
    lich = state("lich", "monsters", LICH, OPEN, (1, 1), 0)
    orc = state("orc", "players", ORC, OPEN, (1, 2), 1)
    ghoul = state("ghoul", "players", GHOUL, OPEN, (2, 2), 2)
    b = battle(OPEN, [lich, orc, ghoul], {"save": [14]})
    rider = LICH.attacks[0].rider
    assert rider is not None and rider.rounds is None
    # Fort +3 against DC 18: 14 + 3 = 17 fails; paralyzed until the fight ends
    assert rider_hit(b.fight, lich, orc, rider)
    (fx,) = orc.effects.items
    assert fx.ends is None and orc.effects.cond & Cond.PARALYZED and b.fight.helpless_possible
    assert not rider_hit(b.fight, lich, ghoul, rider)  # undead: immune to paralysis, no die
    assert messages(b)[-1] == "toucher paralysant : immunisé (paralysie)"


def test_rider_after_the_damage_of_a_hit_only() -> None:
    ghoul = state("ghoul", "monsters", GHOUL, OPEN, (1, 1), 0)
    orc = state("orc", "players", ORC, OPEN, (1, 2), 1)
    b = battle(OPEN, [ghoul, orc], {"attack": [2, 15], "damage": [1], "save": [3], "duration": [1]})
    from engine.rules.attack import resolve_swing

    bite = GHOUL.attacks[0]
    assert not resolve_swing(b.fight, ghoul, orc, bite).hit  # a miss: no save
    assert resolve_swing(b.fight, ghoul, orc, bite).hit
    assert messages(b)[-3:] == [
        "bite vs orc d20=15+3=18 CA 13 -> TOUCHÉ : 2 dégâts (orc 4/6 pv)",
        "jet de Vigueur contre paralysie d20=3+3=6 vs DD 13 -> échec (marge -7)",
        "devient paralysé (2 rounds) (paralysie)",
    ]


# --------------------------------------------------------------------------- starting conditions


def test_timed_starting_condition_ends_at_the_end_of_its_nth_turn() -> None:
    shaky = with_file(GOBLIN, conditions=[{"name": "shaken", "rounds": 2}, "blurred"])
    me = state("me", "players", shaky, OPEN, (1, 1), 0)
    foe = state("foe", "monsters", ORC, OPEN, (1, 8), 1)
    wait = Plan(WaitAction())
    b = battle(OPEN, [me, foe], policies={"players": wait, "monsters": wait})
    assert me.effects.cond & Cond.SHAKEN and me.effects.cond & Cond.BLURRED
    b.take_turn(me)
    assert me.effects.cond & Cond.SHAKEN  # end of its first turn: one left
    b.take_turn(foe)
    b.fight.round = 2
    b.take_turn(me)
    assert not me.effects.cond & Cond.SHAKEN and me.effects.cond & Cond.BLURRED
    assert b.fight.log == [ConditionEnded(2, "me", "shaken")]
    # outside a fight, a skill's bonus reads the conditions it starts under
    # (SRD « Blinded »: −4 on Dex skills), in a fight its effects
    blind = with_file(GOBLIN, conditions=[{"name": "blinded", "rounds": 1}])
    assert skill_bonus(blind, "Stealth") == skill_bonus(GOBLIN, "Stealth") - 4


def test_observation_conditions_are_the_live_ones() -> None:
    me = state("me", "players", with_file(GOBLIN, conditions=["blurred"]), OPEN, (1, 1), 0)
    foe = state("foe", "monsters", LICH, OPEN, (1, 3), 1)
    b = battle(OPEN, [me, foe], {"save": [2]})
    assert b.observe(me).combatants[0].conditions == ("blurred",)
    aura_turn(b.fight, foe)
    states = b.observe(me).to_dict()["combatants"][0]["conditions"]
    assert [c["name"] for c in states] == ["blurred", "frightened"]
    assert states[0]["rounds_left"] is None  # the file's: the whole fight
    assert isinstance(states[1]["rounds_left"], int) and states[1]["rounds_left"] > 0


# --------------------------------------------------------------------------- encounter overrides


def write(tmp: Path, text: str) -> Path:
    path = tmp / "enc.yaml"
    path.write_text(text, encoding="utf-8")
    return path


ENCOUNTER = f"""
map: {ROOT}/data/maps/sample_arena.yaml
runs: 3
sides:
  players:
    creatures:
      - {MONSTERS}/goblin.json
      - file: {MONSTERS}/goblin.json
        aware: false
        conditions: [shaken, {{ name: confused, rounds: 2 }}]
  monsters:
    creatures: [{MONSTERS}/orc.json]
"""


def test_encounter_file_overrides_a_starting_state(tmp_path: Path) -> None:
    from harness.cli.config import load_setup

    path = write(tmp_path, ENCOUNTER)
    loaded = load_encounter_file(path)
    (key,) = loaded.starts
    assert key == ("players", 1)
    setup = load_setup(None, None, str(path), None)
    first, second, orc = setup.encounter.placements
    assert first.profile is not second.profile and first.profile.spec.aware
    assert not second.profile.spec.aware
    assert [(c.name, c.rounds) for c in second.profile.conditions] == [
        ("confused", 2),
        ("shaken", None),
    ]
    states = setup.encounter.fresh_states()
    assert states[1].effects.cond == Cond.SHAKEN | Cond.CONFUSED and not states[0].effects.items
    assert not states[1].aware and states[0].aware and states[2].profile is orc.profile


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            "conditions: [shakn]",
            "entrée 0 : condition inconnue « shakn » (vouliez-vous dire « shaken » ?)",
        ),
        ("awar: false", "champ inconnu « awar » (vouliez-vous dire « aware » ?)"),
        ("aware: maybe", "booléen (true/false) attendu"),
        ("conditions: [{ name: confused, round: 2 }]", "champ inconnu « round »"),
    ],
)
def test_encounter_override_errors(tmp_path: Path, entry: str, message: str) -> None:
    text = ENCOUNTER.replace("aware: false", entry)
    if entry.startswith("conditions"):
        text = text.replace("        conditions: [shaken, { name: confused, rounds: 2 }]\n", "")
    with pytest.raises(DataError) as err:
        load_encounter_file(write(tmp_path, text))
    assert message in str(err.value)
    assert 'sides["players"].creatures[1]' in str(err.value)
