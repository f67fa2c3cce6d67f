"""Conditions that end on an escape (engine/rules/endings.py): web (grappled, a
combat maneuver or Escape Artist check, a standard action) and entangle (entangled,
a Strength or Escape Artist check, a move action), the budget they take, the menu,
the heuristic's choices, and the escape chance against the exact d20 probability."""

from __future__ import annotations

import math
import random
from typing import Any

from builders import Plan, battle, make_map, make_profile, melee, messages, state

from engine.content.actions import (
    AttackAction,
    CastSpellAction,
    EscapeAction,
    MoveAction,
    Reason,
    Slot,
    WaitAction,
)
from engine.content.spellbook import unplayable_reason
from engine.content.spells import default_registry
from engine.core.events import EscapeAttempt
from engine.rules.economy import filter_plan
from engine.rules.endings import (
    check_chance,
    cmb_modifiers,
    escape_check,
    escape_slot,
    verify_escape,
)
from engine.state.effects import Cond
from engine.view.options import legal_options
from policies.heuristic import HeuristicPolicy
from policies.spellcasting import choose_cast

ROW = make_map(["..............."])
FIELD = make_map(["...............", "...............", "..............."])
GRAPPLED = Cond.GRAPPLED.value
ENTANGLED = Cond.ENTANGLED.value


def mage(*spells: str, **extra: Any):
    # level 5, Int 16: DC 10 + 2 + 3 = 15 for web, 14 for entangle (level 1)
    fields: dict[str, Any] = {
        "name": "Mage", "level": 5, "bab": 2, "casting_ability": "int",
        "abilities": {"str_score": 10, "dex_score": 10, "con_score": 10, "int_score": 16},
        "spell_slots": {"1": 9, "2": 9}, "spells": list(spells),
    }  # fmt: skip
    return make_profile(**{**fields, **extra})


def brute(**extra: Any):
    """BAB +3, Str 14 (+2): CMB +5; untrained Escape Artist: Dex 10 (0)."""
    fields: dict[str, Any] = {
        "name": "Brute", "hp_max": 30, "bab": 3, "attacks": [melee()],
        "abilities": {"str_score": 14, "dex_score": 10, "con_score": 10},
    }  # fmt: skip
    return make_profile(**{**fields, **extra})


def webbed(
    dice: dict[str, list[int]], *, foe: Any = None, spell: str = "web", gap: int = 8,
    plan: tuple[Any, ...] = (EscapeAction(),),
):  # fmt: skip
    """The mage casts ``spell`` on a brute ``gap`` squares away whose save (the first
    ``save`` die) fails; the brute's turns play ``plan``."""
    m = state("mage", "a", mage(spell), ROW, (0, 0))
    f = state("foe", "b", foe or brute(), ROW, (0, gap), 1)
    b = battle(ROW, [m, f], dice, policies={"a": Plan(WaitAction()), "b": Plan(*plan)})
    assert b.dispatch(m, CastSpellAction(spell_name=spell, target_pos=(0, gap))).ok
    return b, m, f


def test_web_entangle_and_acid_arrow_are_castable():
    reg = default_registry()
    for name in ("web", "entangle", "acid-arrow"):
        assert unplayable_reason(reg.get(name)) is None, name
    web, entangle = reg.get("web").effects[0], reg.get("entangle").effects[0]
    assert web.kind == "condition" and entangle.kind == "condition"
    assert (web.escape, web.escape_check, web.escape_action) == (True, "cmb", "standard")
    assert (entangle.escape, entangle.escape_check, entangle.escape_action) == (
        True, "strength", "move",
    )  # fmt: skip


def test_a_successful_escape_ends_the_web():
    b, _, foe = webbed({"save": [3], "escape": [10]})
    assert foe.effects.cond & GRAPPLED
    (ending,) = foe.endings
    assert (ending.kind, ending.dc, ending.escape_slot) == ("escape", 15, Slot.STANDARD)
    b.take_turn(foe)  # CMB +5: 10 + 5 = 15 against DC 15
    assert not foe.effects.cond & GRAPPLED
    assert foe.endings == ()
    log = messages(b)
    assert log[-2] == (
        "tente de se libérer (toile d'araignée) : manœuvre d20=10+5=15 vs DD 15 -> réussite "
        "(marge 0) : se libère"
    )
    assert log[-1] == "n'est plus agrippé"


def test_a_failed_escape_keeps_the_web_and_spends_the_action():
    b, _, foe = webbed({"save": [3], "escape": [9, 1]})
    b.take_turn(foe)  # 9 + 5 = 14 < 15
    assert foe.effects.cond & GRAPPLED and len(foe.endings) == 1
    assert foe.last_results[0].ok  # the action was taken: only the check failed
    assert messages(b)[-1].endswith(": reste pris")
    b.take_turn(foe)
    assert foe.effects.cond & GRAPPLED
    rec = [e for e in b.fight.log or () if isinstance(e, EscapeAttempt)]
    seen = [(e.check, e.roll.natural, e.freed) for e in rec]
    assert seen == [("cmb", 9, False), ("cmb", 1, False)]


def test_the_maneuver_check_has_no_grappled_penalty_and_a_natural_20_frees():
    weak = brute(bab=0, abilities={"str_score": 1, "dex_score": 1, "con_score": 10})
    scores = {"str_score": 10, "dex_score": 10, "con_score": 10, "int_score": 36}
    m = state("mage", "a", mage("web", abilities=scores), ROW, (0, 0))
    f = state("foe", "b", weak, ROW, (0, 8), 1)
    b = battle(ROW, [m, f], {"save": [3], "escape": [20]},
               policies={"b": Plan(EscapeAction())})  # fmt: skip
    assert b.dispatch(m, CastSpellAction(spell_name="web", target_pos=(0, 8))).ok
    assert f.endings[0].dc == 25  # 10 + 2 + 13
    # BAB 0, Str 1 (−5): the grappled −2 to combat maneuvers is not on an escape
    assert [m.value for m in cmb_modifiers(f)] == [0, -5]
    name, mods, natural = escape_check(f, "cmb", 25)
    assert (name, sum(m.value for m in mods), natural) == ("cmb", -5, True)
    b.take_turn(f)  # 20 − 5 = 15 < 25, but a natural 20
    assert not f.effects.cond & GRAPPLED
    assert "manœuvre d20=20-5=15 vs DD 25 -> réussite (naturel 20)" in messages(b)[-2]
    assert check_chance(-5, 25, True) == 0.05 and check_chance(-5, 25, False) == 0.0


def test_escape_artist_is_used_when_it_is_better_and_counts_the_grappled_dexterity():
    nimble = brute(bab=0, skills={"Escape Artist": {"rank": 5, "class_skill": True}},
                   abilities={"str_score": 10, "dex_score": 16, "con_score": 10})  # fmt: skip
    b, _, foe = webbed({"save": [3], "escape": [5]}, foe=nimble)
    # Escape Artist: 5 ranks + 3 class skill + Dex 16 (+3) with −4 Dex (→ 12, +1): +9 vs CMB 0
    name, mods, natural = escape_check(foe, "cmb", 15)
    assert (name, sum(m.value for m in mods), natural) == ("escape_artist", 9, False)
    b.take_turn(foe)  # 5 + 9 = 14 < 15
    assert foe.effects.cond & GRAPPLED
    assert "Évasion d20=5+9=14 vs DD 15" in messages(b)[-1]


def test_entangle_is_a_strength_check_as_a_move_action():
    walk = (EscapeAction(), MoveAction(target_id="mage"))
    b, _, foe = webbed({"save": [3], "escape": [12]}, spell="entangle", gap=12, plan=walk)
    (ending,) = foe.endings
    assert (ending.escape_check, ending.escape_slot, ending.dc) == ("strength", Slot.MOVE, 14)
    assert escape_slot(foe, EscapeAction()) is Slot.MOVE
    # a move action: it still has its standard action (a move, here)
    plan = (EscapeAction(), MoveAction(target_id="mage"), AttackAction(target_id="mage"))
    kept, _ = filter_plan(plan, escape_slot=lambda a: escape_slot(foe, a))
    assert kept == [True, True, False]
    start = foe.pos
    b.take_turn(foe)  # Str +2: 12 + 2 = 14 against DC 14, then a full-speed move (30 ft)
    assert not foe.effects.cond & ENTANGLED
    assert abs(ROW.rc(foe.pos)[1] - ROW.rc(start)[1]) == 6
    assert "Force d20=12+2=14 vs DD 14" in messages(b)[-3]


def test_a_web_escape_takes_the_standard_action():
    _, _, foe = webbed({"save": [3], "escape": [2]})
    plan = (EscapeAction(), AttackAction(target_id="mage"))
    kept, results = filter_plan(plan, escape_slot=lambda a: escape_slot(foe, a))
    assert kept == [True, False]
    assert results[1] is not None and results[1].reason == Reason.DOWNGRADED_ACTION_ECONOMY


def test_escape_is_refused_without_a_hold_and_draws_no_die():
    m = state("mage", "a", mage("web"), ROW, (0, 0))
    f = state("foe", "b", brute(), ROW, (0, 8), 1)
    b = battle(ROW, [m, f], {})  # no die may be rolled
    assert verify_escape(ROW, b.fight, f, EscapeAction()) == Reason.NOT_HELD
    r = b.dispatch(f, EscapeAction())
    assert (r.ok, r.reason) == (False, Reason.NOT_HELD)
    b2, _, held = webbed({"save": [3]})
    assert verify_escape(ROW, b2.fight, held, EscapeAction(spell_name="entangle")) == (
        Reason.NOT_HELD
    )
    named = verify_escape(ROW, b2.fight, held, EscapeAction(spell_name="Web"))
    assert not isinstance(named, Reason)


def test_the_menu_offers_the_escape_and_the_observation_agrees():
    b, _, foe = webbed({"save": [3]})
    obs = b.observe(foe)
    labels = {o.id: o.label for o in legal_options(obs, ROW)}
    assert labels["escape:web"] == "se libérer (toile d'araignée)"
    assert not isinstance(verify_escape(ROW, obs, obs.actor, EscapeAction()), Reason)
    free = b.observe(b.fight.by_id["mage"])
    assert not any(i.startswith("escape") for i in (o.id for o in legal_options(free, ROW)))


def test_the_heuristic_breaks_free_of_a_web_unless_a_weapon_reaches():
    b, _, foe = webbed({"save": [3]})
    plan = HeuristicPolicy().decide(b.observe(foe))
    assert [a.kind for a in plan.actions] == ["escape"]
    b.fight.by_id["mage"].pos = ROW.cell(0, 7)  # now next to it: it fights on
    plan = HeuristicPolicy().decide(b.observe(foe))
    assert [a.kind for a in plan.actions] == ["full_attack"]


def test_the_heuristic_breaks_free_of_entangle_then_moves():
    b, _, foe = webbed({"save": [3]}, spell="entangle", gap=12)
    plan = HeuristicPolicy().decide(b.observe(foe))
    assert [a.kind for a in plan.actions] == ["escape", "move"]
    b.fight.by_id["mage"].pos = ROW.cell(0, 11)
    plan = HeuristicPolicy().decide(b.observe(foe))
    assert [a.kind for a in plan.actions] == ["full_attack"]


def test_the_heuristic_casts_web_and_entangle_on_two_enemies_and_not_on_an_ally():
    for spell in ("web", "entangle"):
        m = state("mage", "a", mage(spell), FIELD, (1, 0))
        f1 = state("f1", "b", brute(), FIELD, (0, 10), 1)
        f2 = state("f2", "b", brute(), FIELD, (2, 10), 2)
        b = battle(FIELD, [m, f1, f2], {})
        plan = choose_cast(b.observe(m))
        assert plan is not None, spell
        (action,) = plan.actions
        assert isinstance(action, CastSpellAction) and action.spell_name is not None
        assert action.spell_name.lower().replace(" ", "-") == spell
        # an ally among them: no placement catches both enemies without it
        ally = state("ally", "a", brute(name="Ally"), FIELD, (1, 10), 3)
        b = battle(FIELD, [m, f1, f2, ally], {})
        assert choose_cast(b.observe(m)) is None, spell
        # one enemy alone is no area control
        b = battle(FIELD, [m, f1], {})
        assert choose_cast(b.observe(m)) is None, spell


class _SavesFail:
    """Every save rolls 1 (the web always holds); every other die is random."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def die(self, sides: int, kind: str) -> int:
        return 1 if kind == "save" else self.r.randint(1, sides)


def _escape_rate(foe: Any, trials: int, seed: int, int_score: int = 16) -> float:
    scores = {"str_score": 10, "dex_score": 10, "con_score": 10, "int_score": int_score}
    m = state("mage", "a", mage("web", abilities=scores), ROW, (0, 0))
    f = state("foe", "b", foe, ROW, (0, 8), 1)
    b = battle(ROW, [m, f], _SavesFail(seed), record=False)  # type: ignore[arg-type]
    freed = 0
    for _ in range(trials):
        if not f.effects.cond & GRAPPLED:
            assert m.casting is not None
            m.casting.slots = (0, 0, 9, 0, 0, 0, 0, 0, 0, 0)
            assert b.dispatch(m, CastSpellAction(spell_name="web", target_pos=(0, 8))).ok
        assert b.dispatch(f, EscapeAction()).ok
        freed += not f.effects.cond & GRAPPLED
    return freed / trials


def test_the_escape_chance_matches_the_d20_within_three_sigma():
    n = 4000
    weak = brute(bab=0, abilities={"str_score": 1, "dex_score": 10, "con_score": 10})
    for foe, int_score, p in (
        # CMB +5 against DC 15: a d20 of 10 or more, 11 chances in 20
        (brute(), 16, 11 / 20),
        # CMB −5 (BAB 0, Str 1) against DC 15: only a natural 20, 1 chance in 20; Escape
        # Artist untrained at Dex 10 − 4 (6: −2) needs 17: 4 chances in 20, the better
        (weak, 16, 4 / 20),
        # the same at DC 25 (the mage's Int 36): Escape Artist needs 27, never; the
        # maneuver's natural 20 frees 1 time in 20
        (weak, 36, 1 / 20),
    ):
        rate = _escape_rate(foe, n, 7, int_score)
        sigma = math.sqrt(p * (1 - p) / n)
        assert abs(rate - p) <= 3 * sigma, (rate, p)
