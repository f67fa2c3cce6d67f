"""Running many fights, in one process or split across worker processes.

Runs are cut into contiguous chunks; every chunk is played by whichever worker
is free, and summaries are put back in run order before aggregation. Since run
``i`` always uses ``SeededRng(seed + i)`` and aggregation sums integers in run
order, the report is byte-identical for any number of workers.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

from engine.encounter import Encounter
from engine.runner import run_range
from engine.stats import FightSummary
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
) -> list[FightSummary]:
    assert _WORKER_ENCOUNTER is not None
    return list(
        run_range(
            _WORKER_ENCOUNTER,
            seed,
            start,
            stop,
            _policies(),
            round_cap=round_cap,
            monsters_die_at_zero=monsters_die_at_zero,
        )
    )


def simulate(
    encounter: Encounter,
    *,
    runs: int,
    seed: int,
    round_cap: int,
    monsters_die_at_zero: bool = False,
    workers: int = 1,
    progress: ProgressFn | None = None,
) -> list[FightSummary]:
    """Summaries of runs ``0 … runs − 1`` in run order."""
    if workers <= 1 or runs < 2:
        out: list[FightSummary] = []
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
            out.append(summary)
            if progress is not None and (i % step == 0 or i == runs):
                progress(i)
        return out
    workers = min(workers, runs)
    chunk = max(1, min(250, -(-runs // (workers * 4))))
    bounds = [(s, min(runs, s + chunk)) for s in range(0, runs, chunk)]
    clean = dataclasses.replace(encounter, gmap=dataclasses.replace(encounter.gmap, cache={}))
    ctx = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    )
    done = 0
    results: list[list[FightSummary]] = []
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(clean,)
    ) as pool:
        futures = [
            pool.submit(_run_chunk, seed, a, b, round_cap, monsters_die_at_zero) for a, b in bounds
        ]
        for fut in futures:
            part = fut.result()
            results.append(part)
            done += len(part)
            if progress is not None:
                progress(done)
    return [s for part in results for s in part]
