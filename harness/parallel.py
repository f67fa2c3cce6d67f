"""Running many fights, in one process or split across worker processes.

Runs are cut into contiguous chunks; every chunk is played by whichever worker
is free and comes back as a :class:`~engine.stats.Tally` of integer sums. Where
``fork`` exists, the parent process is one of the workers: it forks the others
after warming the map's geometry caches on the first runs. Run ``i`` always uses
``SeededRng(seed + i)`` and integer sums do not depend on the order they are
added in, so the report is byte-identical for any number of workers, and memory
does not grow with the number of runs.

Policies travel as :class:`~policies.registry.PolicySpec` (plain data, one per
combatant in deployment order) and are rebuilt in each process.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

from engine.battle import Policy
from engine.encounter import Encounter
from engine.runner import run_range
from engine.state import CombatantState
from engine.stats import Tally
from policies.registry import HEURISTIC, PolicySpec, build_policy

ProgressFn = Callable[[int], None]
PolicyFor = Callable[[CombatantState], Policy]

#: fights the parent plays before forking, so that workers inherit warm caches
WARMUP_FIGHTS = 40

_WORKER: tuple[Encounter, tuple[PolicySpec, ...]] | None = None


def policy_source(specs: Sequence[PolicySpec]) -> PolicyFor:
    """Policies for one process: one object per distinct spec, chosen by combatant index."""
    built: dict[int, Policy] = {}
    cache: dict[tuple[str, str | None], Policy] = {}
    for i, spec in enumerate(specs):
        key = (spec.kind, spec.script_path)
        if key not in cache:
            cache[key] = build_policy(spec)
        built[i] = cache[key]

    def pick(actor: CombatantState) -> Policy:
        return built[actor.index]

    return pick


def heuristic_everywhere(encounter: Encounter) -> tuple[PolicySpec, ...]:
    return (HEURISTIC,) * len(encounter.placements)


def _init_worker(encounter: Encounter, specs: tuple[PolicySpec, ...]) -> None:
    global _WORKER  # noqa: PLW0603 - per-process copy of what to play
    _WORKER = (encounter, specs)


def _run_chunk(
    seed: int, start: int, stop: int, round_cap: int, monsters_die_at_zero: bool
) -> Tally:
    assert _WORKER is not None
    enc, specs = _WORKER
    tally = Tally(len(enc.sides), len(enc.placements))
    for summary in run_range(
        enc,
        seed,
        start,
        stop,
        policy_source(specs),
        round_cap=round_cap,
        monsters_die_at_zero=monsters_die_at_zero,
    ):
        tally.add(summary)
    return tally


def simulate(
    encounter: Encounter,
    *,
    runs: int,
    seed: int,
    round_cap: int,
    monsters_die_at_zero: bool = False,
    workers: int = 1,
    progress: ProgressFn | None = None,
    policies: Sequence[PolicySpec] | None = None,
) -> Tally:
    """Tally of runs ``0 … runs − 1`` (run ``i`` seeded with ``seed + i``)."""
    specs = tuple(policies) if policies is not None else heuristic_everywhere(encounter)
    tally = Tally(len(encounter.sides), len(encounter.placements))
    if workers <= 1 or runs < 2:
        step = max(1, runs // 100)
        for i, summary in enumerate(
            run_range(
                encounter,
                seed,
                0,
                runs,
                policy_source(specs),
                round_cap=round_cap,
                monsters_die_at_zero=monsters_die_at_zero,
            ),
            1,
        ):
            tally.add(summary)
            if progress is not None and (i % step == 0 or i == runs):
                progress(i)
        return tally
    workers = min(workers, runs)
    if "fork" in multiprocessing.get_all_start_methods():
        return _simulate_forked(
            encounter, specs, tally, runs, seed, round_cap, monsters_die_at_zero, workers, progress
        )
    chunk = max(1, min(250, -(-runs // (workers * 4))))
    bounds = [(s, min(runs, s + chunk)) for s in range(0, runs, chunk)]
    clean = dataclasses.replace(encounter, gmap=dataclasses.replace(encounter.gmap, cache={}))
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(clean, specs),
    ) as pool:
        futures = [
            pool.submit(_run_chunk, seed, a, b, round_cap, monsters_die_at_zero) for a, b in bounds
        ]
        for fut in as_completed(futures):
            tally.merge(fut.result())
            if progress is not None:
                progress(tally.fights)
    return tally


def _simulate_forked(
    encounter: Encounter,
    specs: tuple[PolicySpec, ...],
    tally: Tally,
    runs: int,
    seed: int,
    round_cap: int,
    monsters_die_at_zero: bool,
    workers: int,
    progress: ProgressFn | None,
) -> Tally:
    """The parent is one of the ``workers``: it warms the map's geometry caches on
    the first runs, forks ``workers − 1`` children that inherit them, then plays
    whichever queued chunks no child has started yet."""
    _init_worker(encounter, specs)
    warm = min(runs, WARMUP_FIGHTS)
    tally.merge(_run_chunk(seed, 0, warm, round_cap, monsters_die_at_zero))
    if progress is not None:
        progress(tally.fights)
    rest = runs - warm
    if rest <= 0:
        return tally
    chunk = max(1, min(250, -(-rest // (workers * 4))))
    bounds = [(s, min(runs, s + chunk)) for s in range(warm, runs, chunk)]
    with ProcessPoolExecutor(
        max_workers=max(1, workers - 1),
        mp_context=multiprocessing.get_context("fork"),
        initializer=_init_worker,
        initargs=(encounter, specs),
    ) as pool:
        futures = [
            pool.submit(_run_chunk, seed, a, b, round_cap, monsters_die_at_zero) for a, b in bounds
        ]
        for (a, b), fut in zip(reversed(bounds), reversed(futures), strict=True):
            if fut.cancel():  # not started by a child: the parent plays it
                tally.merge(_run_chunk(seed, a, b, round_cap, monsters_die_at_zero))
                if progress is not None:
                    progress(tally.fights)
        for fut in futures:
            if not fut.cancelled():
                tally.merge(fut.result())
                if progress is not None:
                    progress(tally.fights)
    return tally
