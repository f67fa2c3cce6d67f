"""Small factories for rule tests: maps from ASCII rows, combatants from overrides."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.content.creatures import CombatantProfile, parse_combatant
from engine.content.maps import GameMap, parse_map
from engine.content.spellbook import build_spellbook
from engine.content.spells import SpellRegistry, default_registry
from engine.core.rng import Rng, ScriptedDice
from engine.state.casting import Casting
from engine.state.state import CombatantState
from engine.turn.battle import Battle
from harness.transcript import lines
from policies import HeuristicPolicy

LEGEND = """
legend:
  "#": { type: wall, blocks_los: true }
  ".": { type: floor, move_cost: 1 }
  "~": { type: water, move_cost: 2 }
  "C": { type: pillar, cover: true }
  "W": { type: ruin, cover_bonus: 2 }
"""


def make_map(
    rows: Sequence[str],
    *,
    zones: Sequence[str] | None = None,
    elevation: Sequence[str] | None = None,
    deployment: dict[str, str] | None = None,
) -> GameMap:
    text = 'name: "Test"\nterrain: |\n' + "".join(f"  {r}\n" for r in rows) + LEGEND
    if elevation:
        text += "elevation: |\n" + "".join(f"  {r}\n" for r in elevation)
    if zones:
        text += "zones: |\n" + "".join(f"  {r}\n" for r in zones)
        text += "deployment:\n" + "".join(f"  {k}: {v}\n" for k, v in (deployment or {}).items())
    return parse_map(text, "test")


BASE: dict[str, Any] = {
    "name": "Dummy",
    "size": "Medium",
    "abilities": {"str_score": 10, "dex_score": 10, "con_score": 10},
    "hp_max": 10,
    "ac": {"total": 10, "touch": 10, "flat_footed": 10},
    "bab": 1,
    "initiative_mod": 0,
    "speed_land_ft": 30,
    "saves": {"fort": 0, "ref": 0, "will": 0},
    "attacks": [
        {
            "name": "sword",
            "kind": "melee",
            "attack_bonus": 0,
            "damage": [{"formula": "1d8", "types": ["slashing"]}],
        }
    ],
}


def make_profile(**overrides: Any) -> CombatantProfile:
    data = json.loads(json.dumps(BASE))
    data.update(overrides)
    return parse_combatant(json.dumps(data), "test")


def melee(name: str = "sword", bonus: int = 0, dmg: str = "1d8", **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": name,
        "kind": "melee",
        "attack_bonus": bonus,
        "damage": [{"formula": dmg, "types": ["slashing"]}],
    }
    out.update(kw)
    return out


def ranged(
    name: str = "bow", bonus: int = 0, dmg: str = "1d6", inc: int = 60, **kw: Any
) -> dict[str, Any]:
    out = melee(name, bonus, dmg, **kw)
    out["kind"] = "ranged"
    out["range_increment_ft"] = inc
    out["damage"] = [{"formula": dmg, "types": ["piercing"]}]
    return out


def state(
    ident: str,
    side: str,
    profile: CombatantProfile,
    gmap: GameMap,
    pos: tuple[int, int],
    index: int = 0,
    *,
    hp: int | None = None,
    dies_at_zero: bool = False,
    spells: SpellRegistry | None = None,
) -> CombatantState:
    """A combatant; one whose file lists spells gets them, resolved against
    ``spells`` (default: the shipped registry), as an encounter would."""
    casting = None
    if profile.spec.spells:
        casting = Casting(build_spellbook(profile.spec, spells or default_registry()))
    return CombatantState(
        id=ident,
        side=side,
        profile=profile,
        index=index,
        pos=gmap.cell(*pos),
        hp=profile.spec.hp_max if hp is None else hp,
        dies_at_zero=dies_at_zero,
        casting=casting,
    )


def battle(
    gmap: GameMap,
    combatants: list[CombatantState],
    dice: Rng | Mapping[str, Sequence[int]] | None = None,
    *,
    record: bool = True,
    round_cap: int = 100,
    policies: Any = None,
) -> Battle:
    """A battle in round 1 with ``combatants`` in list order, rolling ``dice``: an
    RNG, or a script per roll kind (``{"attack": [15], "damage": [3]}``, read by
    :class:`~engine.core.rng.ScriptedDice`); ``None``: no die may be rolled."""
    rng = ScriptedDice(dice) if dice is None or isinstance(dice, Mapping) else dice
    sides: list[str] = []
    for c in combatants:
        if c.side not in sides:
            sides.append(c.side)
    pol = policies or {s: HeuristicPolicy() for s in sides}
    b = Battle(gmap, combatants, tuple(sides), rng, pol, round_cap=round_cap, record=record)  # type: ignore[arg-type]
    b.fight.round = 1
    b.fight.order = list(combatants)
    return b


class Plan:
    """A policy that always plays the same actions."""

    def __init__(self, *actions: Any) -> None:
        self.actions = actions

    def decide(self, obs: Any) -> Any:
        from engine.content.actions import TurnPlan

        return TurnPlan(self.actions)


def messages(b: Battle) -> list[str]:
    assert b.fight.log is not None
    return [m for _r, _a, m, _rolls in lines(b.fight.log)]


def archer_vs_two() -> Any:
    """An archer (west) against a strong and a weak melee creature (east), on a
    10×3 open map: the LLM-policy tests' encounter."""
    from engine.state.encounter import build_encounter

    gmap = make_map(
        ["..........", "..........", ".........."],
        zones=["A........B", "A.........", ".........B"],
        deployment={"west": "A", "east": "B"},
    )
    archer = make_profile(
        name="Archer", hp_max=20, attacks=[melee("dagger"), ranged("bow", inc=100)]
    )
    weak = make_profile(name="Weak", hp_max=3, attacks=[melee(dmg="1d2")])
    strong = make_profile(name="Strong", hp_max=30, attacks=[melee(dmg="1d2")])
    return build_encounter(gmap, [("west", [archer]), ("east", [strong, weak])])
