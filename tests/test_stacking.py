"""Typed modifiers and PF1e stacking (engine/core/checks.py: ``BonusType``, ``Modifier``,
``stack``, ``stacked_total``).

CRB « Bonus Types » (Chapter 9): « With the exception of dodge bonuses, most
circumstance bonuses, and racial bonuses, only the better bonus of a given type
works. The same principle applies to penalties—a character taking two or more
penalties of the same type applies only the worst one, although most penalties
have no type and thus always stack. Bonuses without a type always stack, unless
they are from the same source. » CRB « Combining Magical Effects », « Stacking ».
"""

from __future__ import annotations

import itertools
from collections import defaultdict

from hypothesis import given
from hypothesis import strategies as st

from engine.content.packs import D20_PLAIN
from engine.core.checks import (
    STACKING_TYPES,
    BonusType,
    Modifier,
    RollRecord,
    check,
    stack,
    stacked_total,
)
from engine.core.rng import ScriptedDice
from harness.transcript import lines

T = BonusType


def kept(*mods: Modifier) -> list[tuple[int, str]]:
    return [(m.value, m.source) for m in stack(mods)]


# --------------------------------------------------------------------------- the value type


def test_untyped_is_the_default_so_old_call_sites_are_unchanged():
    assert Modifier(2, "flanc").type is T.UNTYPED
    assert Modifier(2, "flanc") == Modifier(2, "flanc", T.UNTYPED)
    assert Modifier(2, "flanc") != Modifier(2, "flanc", T.CIRCUMSTANCE)


def test_repr_pastes_back_as_code():
    for mod in (Modifier(-4, "à terre"), Modifier(4, "armure du mage", T.ARMOR)):
        assert eval(repr(mod), {"Modifier": Modifier, "BonusType": BonusType}) == mod


def test_bonus_type_identifiers():
    assert {t.value for t in BonusType} == {
        "untyped", "alchemical", "armor", "circumstance", "competence", "deflection", "dodge",
        "enhancement", "inherent", "insight", "luck", "morale", "natural_armor", "profane",
        "racial", "resistance", "sacred", "shield", "size", "trait",
    }  # fmt: skip
    assert T("natural_armor") is T.NATURAL_ARMOR
    assert {T.UNTYPED, T.DODGE, T.CIRCUMSTANCE, T.RACIAL} == STACKING_TYPES


def test_a_check_still_adds_every_modifier_it_is_given():
    """Stacking is the caller's choice: ``check`` sums what it receives, as before."""
    mods = (Modifier(2, "rage", T.MORALE), Modifier(1, "bénédiction", T.MORALE))
    rec = check(ScriptedDice({"check": [10]}), D20_PLAIN, "check", mods, None)
    assert rec.total == 13
    assert rec.modifiers == mods


def test_roll_json_names_a_type_only_when_there_is_one():
    rec = RollRecord("check", 20, 10, (Modifier(-5, "malus"), Modifier(2, "rage", T.MORALE)), 7,
                     None, None, None)  # fmt: skip
    assert rec.to_dict()["modifiers"] == [
        {"value": -5, "source": "malus"},
        {"value": 2, "source": "rage", "type": "morale"},
    ]


# --------------------------------------------------------------------------- bonuses


def test_nothing_and_one_modifier():
    assert stack([]) == ()
    assert stack([Modifier(3, "x", T.LUCK)]) == (Modifier(3, "x", T.LUCK),)
    assert stack(iter([Modifier(1, "a"), Modifier(1, "b")])) == (Modifier(1, "a"), Modifier(1, "b"))


def test_same_type_only_the_best_applies():
    mods = (
        Modifier(1, "bénédiction", T.MORALE),
        Modifier(2, "rage", T.MORALE),
        Modifier(1, "héroïsme", T.MORALE),
    )
    assert kept(*mods) == [(2, "rage")]
    assert stacked_total(mods) == 2
    assert kept(Modifier(4, "chemise de mailles", T.ARMOR), Modifier(4, "armure du mage", T.ARMOR),
                Modifier(6, "cuirasse", T.ARMOR)) == [(6, "cuirasse")]  # fmt: skip


def test_equal_bonuses_keep_the_first_one():
    a, b = Modifier(2, "anneau", T.DEFLECTION), Modifier(2, "bouclier de la foi", T.DEFLECTION)
    assert stack([a, b]) == (a,)
    assert stack([b, a]) == (b,)


def test_different_types_all_stack():
    mods = [
        Modifier(4, "chemise de mailles", T.ARMOR),
        Modifier(2, "écu", T.SHIELD),
        Modifier(1, "amulette", T.NATURAL_ARMOR),
        Modifier(1, "anneau", T.DEFLECTION),
        Modifier(1, "Esquive", T.DODGE),
        Modifier(2, "Dex"),
        Modifier(-1, "taille", T.SIZE),
        Modifier(1, "chance", T.LUCK),
    ]
    assert stack(mods) == tuple(mods)
    assert stacked_total(mods) == 11


def test_enhancement_and_armor_are_separate_types():
    mods = (Modifier(4, "armure", T.ARMOR), Modifier(1, "altération", T.ENHANCEMENT))
    assert stack(mods) == mods
    assert kept(Modifier(1, "arme magique", T.ENHANCEMENT),
                Modifier(3, "épée +3", T.ENHANCEMENT)) == [(3, "épée +3")]  # fmt: skip


def test_two_dodge_bonuses_add():
    mods = (Modifier(1, "Esquive", T.DODGE), Modifier(1, "rapidité", T.DODGE))
    assert stack(mods) == mods
    assert stacked_total(mods) == 2


def test_the_same_dodge_source_twice_counts_once():
    """« Same Effect More than Once »: two hastes do not give two dodge bonuses."""
    haste = Modifier(1, "rapidité", T.DODGE)
    defense = Modifier(4, "défense totale", T.DODGE)
    assert stack([haste, haste, defense]) == (haste, defense)


def test_circumstance_bonuses_from_different_sources_add():
    mods = (Modifier(2, "terrain surélevé", T.CIRCUMSTANCE), Modifier(2, "outil", T.CIRCUMSTANCE))
    assert stacked_total(mods) == 4


def test_circumstance_bonuses_from_the_same_source_do_not():
    mods = (
        Modifier(1, "terrain surélevé", T.CIRCUMSTANCE),
        Modifier(2, "outil", T.CIRCUMSTANCE),
        Modifier(3, "terrain surélevé", T.CIRCUMSTANCE),
    )
    assert kept(*mods) == [(2, "outil"), (3, "terrain surélevé")]


def test_racial_bonuses_from_different_sources_add():
    mods = (Modifier(2, "robustesse", T.RACIAL), Modifier(2, "vigilance", T.RACIAL))
    assert stacked_total(mods) == 4
    assert stacked_total((*mods, Modifier(1, "robustesse", T.RACIAL))) == 4


def test_untyped_bonuses_add_unless_from_the_same_source():
    assert stacked_total([Modifier(2, "flanc"), Modifier(2, "aide"), Modifier(1, "charge")]) == 5
    assert kept(Modifier(2, "aide"), Modifier(1, "aide"), Modifier(2, "flanc")) == [
        (2, "aide"),
        (2, "flanc"),
    ]


def test_the_same_source_with_two_types_gives_both():
    """One source may give two types (a +1 armor's armor and its enhancement)."""
    mods = (Modifier(4, "armure +1", T.ARMOR), Modifier(1, "armure +1", T.ENHANCEMENT))
    assert stack(mods) == mods


# --------------------------------------------------------------------------- penalties


def test_untyped_penalties_always_add():
    mods = (Modifier(-2, "secoué"), Modifier(-1, "enchevêtré"), Modifier(-4, "à terre"))
    assert stack(mods) == mods
    assert stacked_total(mods) == -7


def test_the_same_penalty_twice_counts_once_the_worst():
    mods = (Modifier(-1, "malédiction"), Modifier(-2, "malédiction"), Modifier(-1, "fatigué"))
    assert kept(*mods) == [(-2, "malédiction"), (-1, "fatigué")]


def test_typed_penalties_keep_only_the_worst_of_their_type():
    assert kept(Modifier(-1, "désespoir", T.MORALE), Modifier(-2, "terreur", T.MORALE)) == [
        (-2, "terreur")
    ]


def test_circumstance_penalties_from_different_sources_add():
    mods = (Modifier(-2, "vent", T.CIRCUMSTANCE), Modifier(-2, "obscurité", T.CIRCUMSTANCE))
    assert stacked_total(mods) == -4


def test_a_penalty_and_a_bonus_of_the_same_type_both_apply():
    mods = (
        Modifier(2, "rage", T.MORALE),
        Modifier(-1, "désespoir", T.MORALE),
        Modifier(1, "bénédiction", T.MORALE),
    )
    assert kept(*mods) == [(2, "rage"), (-1, "désespoir")]
    assert stacked_total(mods) == 1


def test_zero_counts_as_a_bonus():
    assert kept(Modifier(0, "a", T.LUCK), Modifier(1, "b", T.LUCK)) == [(1, "b")]
    assert kept(Modifier(0, "a", T.LUCK), Modifier(-1, "b", T.LUCK)) == [(0, "a"), (-1, "b")]


def test_kept_modifiers_come_in_input_order():
    mods = [
        Modifier(1, "a", T.LUCK),
        Modifier(2, "b"),
        Modifier(3, "c", T.LUCK),
        Modifier(-1, "d"),
        Modifier(1, "e", T.DODGE),
    ]
    assert kept(*mods) == [(2, "b"), (3, "c"), (-1, "d"), (1, "e")]


# --------------------------------------------------------------------------- properties

SOURCES = st.sampled_from(["a", "b", "c"])
TYPES = st.sampled_from([T.UNTYPED, T.DODGE, T.CIRCUMSTANCE, T.MORALE, T.ARMOR, T.LUCK])
MODS = st.lists(st.builds(Modifier, st.integers(-5, 5), SOURCES, TYPES), max_size=7)


def oracle_total(mods: list[Modifier]) -> int:
    """The stacked total computed another way: per (type, sign), the best of each
    source; stacking types add those, the others take the best of them."""
    best: dict[tuple[BonusType, bool], dict[str, int]] = defaultdict(dict)
    for mod in mods:
        penalty = mod.value < 0
        per_source = best[mod.type, penalty]
        old = per_source.setdefault(mod.source, mod.value)
        per_source[mod.source] = min(old, mod.value) if penalty else max(old, mod.value)
    total = 0
    for (kind, penalty), per_source in best.items():
        values = per_source.values()
        if kind in STACKING_TYPES:
            total += sum(values)
        else:
            total += min(values) if penalty else max(values)
    return total


@given(MODS)
def test_total_matches_an_independent_computation(mods: list[Modifier]):
    assert stacked_total(mods) == oracle_total(mods)


@given(MODS)
def test_kept_is_an_idempotent_subsequence(mods: list[Modifier]):
    out = stack(mods)
    it = iter(mods)
    assert all(any(m is n for n in it) for m in out)  # in input order
    assert stack(out) == out


@given(MODS)
def test_the_total_does_not_depend_on_the_order(mods: list[Modifier]):
    total = stacked_total(mods)
    for perm in itertools.islice(itertools.permutations(mods), 24):
        assert stacked_total(perm) == total


# --------------------------------------------------------------------------- today's engine


def test_stacking_would_change_no_roll_of_todays_fights():
    """Every modifier the engine builds today is untyped and has its own source, so
    ``stack`` keeps them all: applying it later cannot change these fights."""
    from pathlib import Path

    from engine.content.creatures import load_combatant
    from engine.content.maps import load_map
    from engine.run.runner import play_fight
    from engine.state.encounter import build_encounter
    from policies import HeuristicPolicy

    root = Path(__file__).resolve().parents[1]
    gmap = load_map(root / "data" / "maps" / "sample_arena.yaml")
    goblin = load_combatant(root / "data" / "monsters" / "goblin.json")
    orc = load_combatant(root / "data" / "monsters" / "orc.json")
    enc = build_encounter(gmap, [("players", [goblin] * 3), ("monsters", [orc] * 2)])
    h = HeuristicPolicy()
    seen = 0
    for seed in range(20):
        result = play_fight(enc, seed, dict.fromkeys(enc.sides, h), record=True)
        for _round, _actor, _text, rolls in lines(result.log):
            for rec in rolls:
                assert stack(rec.modifiers) == rec.modifiers
                assert all(m.type is T.UNTYPED for m in rec.modifiers)
                seen += len(rec.modifiers)
    assert seen > 100
