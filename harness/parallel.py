"""Running many fights, in one process or split across worker processes.

Runs are cut into contiguous chunks; every chunk is played by whichever worker
is free and comes back as a :class:`~engine.stats.Tally` of integer sums. Where
``fork`` exists, the parent process is one of the workers: it forks the others
after warming the map's geometry caches on the first runs. Run
``i`` always uses ``SeededRng(seed + i)`` and integer sums do not depend on the
order they are added in, so the report is byte-identical for any number of
workers, and memory does not grow with the number of runs.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed

from engine.encounter import Encounter
from engine.runner import run_range
from engine.stats import Tally
from policies import HeuristicPolicy

ProgressFn = Callable[[int], None]

_WORKER_ENCOUNTER: Encounter | None = None


def _policies() -> dict[str, HeuristicPolicy]:
    policy = HeuristicPolicy()
    return _AllSides(policy)


class _AllSides(dict[str, HeuristicPolicy]):
    """Every side plays the heuristic policy."""

    def __init__(self, policy: HeuristicPolicy) -> None:
        super().__init__()
        self._policy = policy

    def __missing__(self, key: str) -> HeuristicPolicy:
        return self._policy


def _init_worker(encounter: Encounter) -> None:
    global _WORKER_ENCOUNTER  # noqa: PLW0603 - per-process cache of the encounter
    _WORKER_ENCOUNTER = encounter


def _run_chunk(
    seed: int, start: int, stop: int, round_cap: int, monsters_die_at_zero: bool
) -> Tally:
    enc = _WORKER_ENCOUNTER
    assert enc is not None
    tally = Tally(len(enc.sides), len(enc.placements))
    for summary in run_range(
        enc,
        seed,
        start,
        stop,
        _policies(),
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
) -> Tally:
    """Tally of runs ``0 … runs − 1`` (run ``i`` seeded with ``seed + i``)."""
    tally = Tally(len(encounter.sides), len(encounter.placements))
    if workers <= 1 or runs < 2:
        step = max(1, runs // 100)
        for i, summary in enumerate(
            run_range(
                encounter,
                seed,
                0,
                runs,
                _policies(),
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
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        return _simulate_forked(
            encounter, tally, runs, seed, round_cap, monsters_die_at_zero, workers, progress
        )
    chunk = max(1, min(250, -(-runs // (workers * 4))))
    bounds = [(s, min(runs, s + chunk)) for s in range(0, runs, chunk)]
    clean = dataclasses.replace(encounter, gmap=dataclasses.replace(encounter.gmap, cache={}))
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(clean,),
    ) as pool:
        futures = [
            pool.submit(_run_chunk, seed, a, b, round_cap, monsters_die_at_zero) for a, b in bounds
        ]
        for fut in as_completed(futures):
            tally.merge(fut.result())
            if progress is not None:
                progress(tally.fights)
    return tally


#: fights the parent plays before forking, so that workers inherit warm caches
WARMUP_FIGHTS = 40


def _simulate_forked(
    encounter: Encounter,
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
    global _WORKER_ENCOUNTER  # noqa: PLW0603 - the parent plays chunks too
    _WORKER_ENCOUNTER = encounter
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
        initargs=(encounter,),
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
