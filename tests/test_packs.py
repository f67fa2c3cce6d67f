"""Check mechanics as data: every pack's worked examples with exact probabilities.

Expected values are computed by hand from the seeds' rules (comments give the
counting), never from the engine's own output; Monte Carlo checks stay within 3σ
of those exact values.
"""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.content.packs import D20_ATTACK, PACK_DIR, PF1E, builtin_packs, load_pack, parse_pack
from engine.core.checks import (
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    CheckError,
    Modifier,
    check,
    net_edge,
)
from engine.core.errors import DataError
from engine.core.rng import ScriptedDice, SeededRng

N = 20_000


def within_3_sigma(hits: int, n: int, p: Fraction) -> bool:
    sigma = math.sqrt(float(p) * (1 - float(p)) / n)
    return abs(hits / n - float(p)) <= 3 * sigma + 1e-12


def rate(mechanic_pack: str, mods: int, target: int, edge: int = 0, level: str | None = None,
         kind: str = "check", seed: int = 5) -> int:  # fmt: skip
    mech = load_pack(mechanic_pack).mechanic(kind)
    rng = SeededRng(seed)
    mod = (Modifier(mods, "test"),) if mods else ()
    return sum(bool(check(rng, mech, kind, mod, target, edge, level).success) for _ in range(N))


def test_builtin_packs_load() -> None:
    assert builtin_packs() == ["2d5", "coc7-lite", "d20-libre", "d20-maison", "pf1e"]
    for name in builtin_packs():
        assert load_pack(name).id == name


# -- d20-maison: advantage / disadvantage (seed 000, EX-DND-002) -----------------------
def test_advantage_on_dc_11_exact_and_sampled() -> None:
    mech = load_pack("d20-maison").mechanic("check")
    # plain: 10 faces of 20 reach 11; advantage fails only if both dice miss: 1 - (10/20)²
    assert mech.probabilities(0, 11)["réussite"] == Fraction(1, 2)
    assert mech.probabilities(0, 11, edge=1)["réussite"] == Fraction(3, 4)
    assert mech.probabilities(0, 11, edge=-1)["réussite"] == Fraction(1, 4)
    assert within_3_sigma(rate("d20-maison", 0, 11, edge=1), N, Fraction(3, 4))
    assert within_3_sigma(rate("d20-maison", 0, 11, edge=-1), N, Fraction(1, 4))


def test_advantage_never_stacks_and_cancels() -> None:
    assert net_edge(3, 0) == 1
    assert net_edge(1, 4) == 0
    assert net_edge(0, 2) == -1
    mech = load_pack("d20-maison").mechanic("check")
    with pytest.raises(CheckError, match="ne se cumulent pas"):
        check(SeededRng(1), mech, "check", (), 10, 2)


def test_advantage_keeps_the_better_die_and_records_both() -> None:
    mech = load_pack("d20-maison").mechanic("check")
    rec = check(ScriptedDice({"skill": [4, 17]}), mech, "skill", (Modifier(2, "Dex"),), 15, 1)
    assert (rec.dice, rec.natural, rec.total, rec.success, rec.margin) == ((4, 17), 17, 19, True, 4)
    rec = check(ScriptedDice({"skill": [4, 17]}), mech, "skill", (Modifier(2, "Dex"),), 15, -1)
    assert (rec.natural, rec.success, rec.margin) == (4, False, -9)
    # no natural results in seed 000: a natural 20 at +0 against 25 fails
    assert mech.probabilities(0, 25)["réussite"] == 0


def test_difficulty_scale_is_data() -> None:
    pack = load_pack("d20-maison")
    assert pack.difficulty("moyenne") == 15
    with pytest.raises(CheckError, match="difficulté inconnue"):
        pack.difficulty("moyen")
    with pytest.raises(CheckError, match="pas d'échelle"):
        load_pack("2d5").difficulty("facile")


# -- d20-libre: natural 20 / 1 criticals (seed 003) --------------------------------------
def test_freeform_d20_criticals() -> None:
    mech = load_pack("d20-libre").mechanic("check")
    probs = mech.probabilities(0, 30)  # only the natural 20
    assert probs["réussite"] == Fraction(1, 20)
    assert probs[CRITICAL_SUCCESS] == Fraction(1, 20)
    probs = mech.probabilities(10, 5)  # everything but the natural 1
    assert probs["réussite"] == Fraction(19, 20)
    assert probs[CRITICAL_FAILURE] == Fraction(1, 20)
    rec = check(ScriptedDice({"check": [1]}), mech, "check", (Modifier(10, "bonus"),), 5)
    assert (rec.success, rec.level, rec.automatic) == (False, CRITICAL_FAILURE, True)


# -- coc7-lite: d100 roll-under, levels, bonus / penalty dice (seed 003) ----------------
def test_coc_hard_success_at_60() -> None:
    mech = load_pack("coc7-lite").mechanic("check")
    # hard = half of 60: rolls 01..30 of 100
    assert mech.probabilities(0, 60, level="difficile")["réussite"] == Fraction(30, 100)
    assert mech.probabilities(0, 60)["réussite"] == Fraction(60, 100)
    assert mech.probabilities(0, 60, level="extrême")["réussite"] == Fraction(12, 100)
    probs = mech.probabilities(0, 60)
    assert probs["extrême"] == Fraction(11, 100)  # 02..12 (01 is a critical)
    assert probs[CRITICAL_SUCCESS] == Fraction(1, 100)
    assert probs[CRITICAL_FAILURE] == Fraction(1, 100)  # 100 only: 60 ≥ 50
    assert mech.probabilities(0, 40)[CRITICAL_FAILURE] == Fraction(5, 100)  # 96..100
    assert within_3_sigma(rate("coc7-lite", 0, 60, level="difficile"), N, Fraction(3, 10))


def test_coc_bonus_and_penalty_dice() -> None:
    mech = load_pack("coc7-lite").mechanic("check")
    # a value ≤ 60 needs tens ≤ 5 (units 1-9) or tens 1..6 (units 0: 00 reads 100): 6 of 10
    # tens digits either way; one bonus die fails only if both tens fail: 1 - 0.4²
    assert mech.probabilities(0, 60, edge=1)["réussite"] == Fraction(84, 100)
    assert mech.probabilities(0, 60, edge=-1)["réussite"] == Fraction(36, 100)
    assert within_3_sigma(rate("coc7-lite", 0, 60, edge=1), N, Fraction(84, 100))
    with pytest.raises(CheckError, match="au plus 2"):
        check(SeededRng(1), mech, "check", (), 60, 3)
    with pytest.raises(CheckError, match="niveau de réussite inconnu"):
        check(SeededRng(1), mech, "check", (), 60, 0, "héroïque")


def test_coc_00_plus_0_is_100_and_bonus_keeps_lower() -> None:
    mech = load_pack("coc7-lite").mechanic("check")
    # rng.die(10) - 1: tens 0, units 0 -> 100, a fumble
    rec = check(ScriptedDice({"check": [1, 1]}), mech, "check", (), 99)
    assert (rec.natural, rec.success, rec.level) == (100, False, CRITICAL_FAILURE)
    # tens 0 and 5 with units 0: candidates 100 and 50; the bonus die keeps 50
    rec = check(ScriptedDice({"check": [1, 1, 6]}), mech, "check", (), 60, 1)
    assert (rec.dice, rec.natural, rec.success) == ((0, 0, 5), 50, True)
    rec = check(ScriptedDice({"check": [1, 1, 6]}), mech, "check", (), 60, -1)
    assert rec.natural == 100
    rec = check(ScriptedDice({"check": [1, 2]}), mech, "check", (), 5)  # 01: critical
    assert (rec.natural, rec.level, rec.success) == (1, CRITICAL_SUCCESS, True)


# -- 2d5 roll-under (seed 004) -------------------------------------------------------------
def test_2d5_at_most_7() -> None:
    mech = load_pack("2d5").mechanic("check")
    # 36 pairs of faces 0-5; sums 8, 9, 10 come from 3 + 2 + 1 pairs
    assert mech.probabilities(0, 7)["réussite"] == Fraction(30, 36)
    assert within_3_sigma(rate("2d5", 0, 7), N, Fraction(30, 36))
    # bonuses go to the value: 7 at +1 means 0 to 8 (seed 004); sums 9 and 10: 3 pairs
    assert mech.probabilities(1, 7)["réussite"] == Fraction(33, 36)


def test_2d5_forced_results_and_their_margins() -> None:
    mech = load_pack("2d5").mechanic("check")
    # value -1: only a natural 0 succeeds; value 12: only a natural 10 fails
    assert mech.probabilities(-5, 4)["réussite"] == Fraction(1, 36)
    assert mech.probabilities(4, 8)["réussite"] == Fraction(35, 36)
    assert mech.probabilities(0, 30)["réussite"] == Fraction(35, 36)


def roll_2d5(a: int, b: int, value: int, mod: int) -> tuple[bool | None, int | None]:
    # a d5 face f is drawn as rng.die(6) = f + 1
    dice = ScriptedDice({"check": [a + 1, b + 1]})
    mech = load_pack("2d5").mechanic("check")
    rec = check(dice, mech, "check", (Modifier(mod, "modificateur"),), value)
    assert rec.natural == a + b and rec.threshold == value + mod
    return rec.success, rec.margin


def test_connor_worked_examples() -> None:
    # Intelligence 4 at -5: needs -1 or less
    assert roll_2d5(2, 2, 4, -5) == (False, -5)
    assert roll_2d5(0, 0, 4, -5) == (True, 0)
    # Strength 8 at +4: needs 12 or less
    assert roll_2d5(3, 4, 8, 4) == (True, 5)
    assert roll_2d5(5, 5, 8, 4) == (False, 0)
    assert roll_2d5(0, 0, 8, 4) == (True, 12)
    # seed 004: Strength 7 rolled 5 -> margin 2, 8 -> margin -1
    assert roll_2d5(2, 3, 7, 0) == (True, 2)
    assert roll_2d5(4, 4, 7, 0) == (False, -1)


def test_proportional_values() -> None:
    pack = load_pack("2d5")
    assert pack.proportional(40, 2) == 8
    assert pack.modified(40, 2) == 48
    assert pack.modified(40, -2) == 32
    assert pack.proportional(35, 1) == 3  # 3.5 rounded down (declared rounding)
    with pytest.raises(CheckError, match="proportionnelles"):
        PF1E.proportional(40, 2)


def test_2d5_has_no_advantage() -> None:
    with pytest.raises(CheckError, match="ni avantage"):
        check(SeededRng(1), load_pack("2d5").mechanic("check"), "check", (), 7, 1)


# -- pf1e: the engine's pack ------------------------------------------------------------------
def test_pf1e_mechanics_keep_the_engine_semantics() -> None:
    assert D20_ATTACK.simple and PF1E.mechanic("skill").simple
    attack, skill = PF1E.mechanic("attack"), PF1E.mechanic("skill")
    assert attack.probabilities(0, 25)["réussite"] == Fraction(1, 20)  # natural 20
    assert attack.probabilities(30, 2)["réussite"] == Fraction(19, 20)  # natural 1
    assert skill.probabilities(0, 25)["réussite"] == 0
    assert PF1E.mechanic("stabilize").probabilities(-20, 10)["réussite"] == Fraction(1, 20)
    assert PF1E.mechanic("confirm") is attack
    rng = ScriptedDice({"attack": [20, 7]})
    rec = check(rng, attack, "attack", (Modifier(-5, "x"),), 40)
    assert (rec.success, rec.automatic, rec.margin, rng.remaining) == (True, True, -25, 1)
    assert PF1E.difficulty("moyenne") == 10
    assert PF1E.dc("stabilize") == 10
    with pytest.raises(CheckError, match="ni avantage"):
        check(SeededRng(1), attack, "attack", (), 10, 1)


# -- fail closed --------------------------------------------------------------------------------
BASE = """
id: essai
name: essai
mechanics:
  check:
    dice: d20
    comparison: roll_plus_modifiers_at_least_target
{extra}
checks: {{check: check}}
"""


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("    reroll: true", "champ inconnu « reroll »"),
        ("    bonus_dice: {max: 2}", "que pour « percentile »"),
        ("    levels: [{name: x, divisor: 1}]", "jets sous une valeur"),
        ("    natural: {success: [21]}", "impossible avec d20"),
        ("    natural: {success: [20], failure: [20]}", "à la fois réussite et échec"),
        ("    advantage: {kind: roll_three}", "valeur invalide"),
    ],
)
def test_bad_packs_fail_closed(extra: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        parse_pack(BASE.format(extra=extra), "essai.yaml")


def test_unknown_pack_and_bad_dice() -> None:
    with pytest.raises(DataError, match="vouliez-vous dire « 2d5 »"):
        load_pack("2d6")
    text = BASE.format(extra="").replace("dice: d20", "dice: d20+1")
    with pytest.raises(DataError, match="dés invalides"):
        parse_pack(text, "essai.yaml")
    text = BASE.format(extra="").replace("{check: check}", "{attaque: check}")
    with pytest.raises(DataError, match="type de jet inconnu"):
        parse_pack(text, "essai.yaml")


# -- property: mutated packs load or raise DataError, nothing else --------------------------
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-200, 200) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(doc: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():  # pyright: ignore[reportUnknownVariableType]
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):  # pyright: ignore[reportUnknownVariableType]
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(builtin_packs()), st.data())
def test_mutated_packs_raise_only_data_errors(name: str, data: st.DataObject) -> None:
    doc = yaml.safe_load((PACK_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    paths = _paths(doc)[1:]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        node = doc
        for key in path[:-1]:
            node = node[key]  # type: ignore[index]
        if data.draw(st.booleans()) and isinstance(node, dict):
            node.pop(path[-1], None)  # type: ignore[union-attr]
        else:
            with contextlib.suppress(IndexError, KeyError, TypeError):
                node[path[-1]] = data.draw(_JSON)  # type: ignore[index]
        paths = _paths(doc)[1:] or [()]
        if paths == [()]:
            break
    try:
        pack = parse_pack(yaml.safe_dump(doc, allow_unicode=True), "mutant.yaml")
    except DataError:
        return
    for mech in pack.mechanics.values():  # a pack that loads can be rolled
        check(SeededRng(1), mech, "check", (), 5)
