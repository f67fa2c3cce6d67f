"""Playing an encounter many times: run ``i`` uses ``SeededRng(seed + i)``."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from engine.core.rng import SeededRng
from engine.run.stats import DRAW_MUTUAL_KNOCKOUT, DRAW_ROUND_CAP, CombatantInfo, FightSummary
from engine.state.encounter import Encounter
from engine.state.state import CombatantState
from engine.turn.battle import Battle, FightResult, Policy

PolicySource = Mapping[str, Policy] | Callable[[CombatantState], Policy]


def play_fight(
    encounter: Encounter,
    seed: int,
    policies: PolicySource,
    *,
    round_cap: int = 100,
    monsters_die_at_zero: bool = False,
    record: bool = False,
) -> FightResult:
    """One fight with ``SeededRng(seed)``."""
    states = encounter.fresh_states(monsters_die_at_zero=monsters_die_at_zero)
    battle = Battle(
        encounter.gmap,
        states,
        encounter.sides,
        SeededRng(seed),
        policies,
        round_cap=round_cap,
        record=record,
    )
    return battle.run()


def summarize(encounter: Encounter, result: FightResult) -> FightSummary:
    if result.winner is not None:
        winner = encounter.sides.index(result.winner)
    else:
        active = any(c.active for c in result.combatants)
        winner = DRAW_ROUND_CAP if active else DRAW_MUTUAL_KNOCKOUT
    counters = tuple(
        (
            c.hits,
            c.crits,
            c.damage_dealt,
            c.damage_taken,
            c.healing_given,
            0 if c.active else 1,
            1 if c.dead else 0,
            1 if c.melee_swings else 0,
            c.casting.cast if c.casting is not None else 0,
            c.casting.spent() if c.casting is not None else 0,
            c.conditions_inflicted,
        )
        for c in result.combatants
    )
    return FightSummary(winner, result.rounds, counters)


def run_range(
    encounter: Encounter,
    seed: int,
    start: int,
    stop: int,
    policies: PolicySource,
    *,
    round_cap: int = 100,
    monsters_die_at_zero: bool = False,
) -> Iterator[FightSummary]:
    """Summaries of runs ``start`` … ``stop − 1`` (run ``i`` seeded with ``seed + i``)."""
    for i in range(start, stop):
        result = play_fight(
            encounter,
            seed + i,
            policies,
            round_cap=round_cap,
            monsters_die_at_zero=monsters_die_at_zero,
        )
        yield summarize(encounter, result)


def combatant_infos(encounter: Encounter) -> tuple[CombatantInfo, ...]:
    return tuple(
        CombatantInfo(p.id, p.side, p.profile.spec.name, p.profile.spec.hp_max)
        for p in encounter.placements
    )
