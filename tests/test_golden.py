"""Golden transcripts: whole fights, byte for byte.

Regenerate with ``PF1E_UPDATE_GOLDEN=1 uv run pytest tests/test_golden.py`` and
explain the change in the commit message.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from builders import make_map, make_profile, melee, ranged

from engine.content.actions import action_to_dict
from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from harness.report import render_transcript
from policies import HeuristicPolicy
from policies.strategy import StrategyPolicy, load_strategy

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).resolve().parent.parent


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("PF1E_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; set PF1E_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def _fight(enc, seed):
    h = HeuristicPolicy()
    result = play_fight(enc, seed, dict.fromkeys(enc.sides, h), record=True)
    return render_transcript(result.log)


def test_golden_1v1_melee():
    gmap = make_map(
        ["..........", "..........", ".........."],
        zones=["A.........", "..........", ".........B"],
        deployment={"heroes": "A", "monsters": "B"},
    )
    fighter = make_profile(
        name="Guerrière",
        hp_max=14,
        bab=2,
        ac={"total": 17, "touch": 11, "flat_footed": 16},
        attacks=[melee("longsword", bonus=5, dmg="1d8+3", crit_range=19)],
        pc=True,
    )
    orc = load_combatant("data/monsters/orc.json")
    enc = build_encounter(gmap, [("heroes", [fighter]), ("monsters", [orc])])
    _check("1v1_melee.txt", _fight(enc, 5))


def test_golden_2v2_ranged_and_movement():
    gmap = make_map(
        ["............", "....~~......", "....C.......", "....~~......", "............"],
        zones=["AA..........", "............", "............", "............", "..........BB"],
        deployment={"archers": "A", "brutes": "B"},
    )
    archer = make_profile(
        name="Archer",
        hp_max=9,
        ac={"total": 15, "touch": 12, "flat_footed": 13},
        initiative_mod=3,
        attacks=[
            melee("dagger", bonus=1, dmg="1d4"),
            ranged("longbow", bonus=4, dmg="1d8", inc=100, crit_mult=3),
        ],
    )
    brute = make_profile(
        name="Brute",
        hp_max=13,
        ac={"total": 14, "touch": 10, "flat_footed": 14},
        attacks=[melee("greataxe", bonus=5, dmg="1d12+4", crit_mult=3)],
    )
    enc = build_encounter(gmap, [("archers", [archer, archer]), ("brutes", [brute, brute])])
    text = _fight(enc, 2)
    assert "déplacement" in text and "longbow" in text
    _check("2v2_ranged_movement.txt", text)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_seed_same_transcript(seed):
    gmap = make_map(["........"], zones=["A......B"], deployment={"x": "A", "y": "B"})
    p = make_profile()
    enc = build_encounter(gmap, [("x", [p]), ("y", [p])])
    assert _fight(enc, seed) == _fight(enc, seed)


def _short(action) -> str:
    fields = action_to_dict(action)
    kind = fields.pop("kind")
    rest = ",".join(f"{k}={v}" for k, v in fields.items() if v is not None and v is not False)
    return f"{kind}({rest})"


class _PlanLog:
    """Wraps a policy; writes one line per decided turn (actor, round, actions, rationale)."""

    def __init__(self, inner, lines):
        self.inner = inner
        self.lines = lines

    def decide(self, obs):
        plan = self.inner.decide(obs)
        actions = " ; ".join(_short(a) for a in plan.actions)
        self.lines.append(f"r{obs.round} {obs.actor.id}: {actions} | {plan.rationale}")
        return plan


@pytest.mark.parametrize("name", ["cautious_archers", "focus_dangerous"])
def test_golden_strategy_quick_start(name):
    """The example strategies on the quick start, 20 seeds: every plan and the whole
    transcript (guards optimisations of StrategyPolicy against behaviour changes)."""
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    policy = StrategyPolicy(load_strategy(ROOT / f"data/strategies/{name}.yaml"))
    out: list[str] = []
    for seed in range(1, 21):
        out.append(f"##### seed {seed}")
        logged = _PlanLog(policy, out)
        result = play_fight(enc, seed, dict.fromkeys(enc.sides, logged), record=True)
        out.append(render_transcript(result.log))
    _check(f"strategy_{name}.txt", "\n".join(out) + "\n")
