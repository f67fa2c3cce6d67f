"""Running many fights, in one process or split across worker processes.

Runs are cut into contiguous chunks; every chunk is played by whichever worker
is free and comes back as a :class:`~engine.run.stats.Tally` of integer sums. Where
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
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.run.runner import run_range
from engine.run.stats import Tally
from engine.state.encounter import Encounter
from engine.state.state import CombatantState
from engine.turn.battle import Policy
from policies.registry import HEURISTIC, PolicySpec, build_policy

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    # the LLM policy (jinja2, pydantic models) is imported only when one plays
    from policies.llm import ChatModel, Telemetry

ProgressFn = Callable[[int], None]

#: fights the parent plays before forking, so that workers inherit warm caches
WARMUP_FIGHTS = 40

_WORKER: tuple[Encounter, tuple[PolicySpec, ...], str | None, int | None] | None = None


class PolicySet:
    """The policies of one process: one object per distinct spec, chosen by index."""

    def __init__(
        self,
        specs: Sequence[PolicySpec],
        model: str | None = None,
        wrap: Callable[[ChatModel], ChatModel] | None = None,
        threads: int | None = None,
    ) -> None:
        models: dict[str, ChatModel] = {}

        def factory(name: str | None) -> ChatModel:
            key = name or model or "local"
            if key not in models:
                from harness.models import open_model

                opened: ChatModel = open_model(key, threads=threads)
                models[key] = wrap(opened) if wrap is not None else opened
            return models[key]

        cache: dict[tuple[str, str | None, str | None], Policy] = {}
        self._by_index: dict[int, Policy] = {}
        for i, spec in enumerate(specs):
            key = (spec.kind, spec.script_path, spec.model)
            if key not in cache:
                cache[key] = build_policy(spec, factory)
            self._by_index[i] = cache[key]
        self._llm = [policy for key, policy in cache.items() if key[0] == "llm"]
        self.models = models

    def __call__(self, actor: CombatantState) -> Policy:
        return self._by_index[actor.index]

    def telemetry(self) -> Telemetry | None:
        """Merged telemetry of the LLM policies, or ``None`` when none plays."""
        if not self._llm:
            return None
        from policies.llm import LLMPolicy, Telemetry

        found = [p.telemetry for p in self._llm if isinstance(p, LLMPolicy)]
        total = Telemetry()
        for t in found:
            total.merge(t)
        return total


def policy_source(specs: Sequence[PolicySpec], model: str | None = None) -> PolicySet:
    """Policies for one process (see :class:`PolicySet`)."""
    return PolicySet(specs, model)


def heuristic_everywhere(encounter: Encounter) -> tuple[PolicySpec, ...]:
    return (HEURISTIC,) * len(encounter.placements)


def _init_worker(
    encounter: Encounter,
    specs: tuple[PolicySpec, ...],
    model: str | None = None,
    threads: int | None = None,
) -> None:
    global _WORKER, _POLICIES  # noqa: PLW0603 - per-process copy of what to play
    _WORKER = (encounter, specs, model, threads)
    _POLICIES = None


def _init_child(*args: Any) -> None:
    """A pool worker: Ctrl-C is the parent's to handle (it stops the pool, see
    :func:`stop_pool`); the worker then plays what it is given."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init_worker(*args)


_POLICIES: PolicySet | None = None


def _process_policies() -> PolicySet:
    """This process's policies, built once (a local model loads once per process)."""
    global _POLICIES  # noqa: PLW0603
    assert _WORKER is not None
    if _POLICIES is None:
        _POLICIES = PolicySet(_WORKER[1], _WORKER[2], threads=_WORKER[3])
    return _POLICIES


def _run_chunk(
    seed: int, start: int, stop: int, round_cap: int, monsters_die_at_zero: bool
) -> tuple[Tally, Telemetry | None]:
    assert _WORKER is not None
    enc = _WORKER[0]
    policies = _process_policies()
    before = policies.telemetry()
    tally = Tally(len(enc.sides), len(enc.placements))
    for summary in run_range(
        enc,
        seed,
        start,
        stop,
        policies,
        round_cap=round_cap,
        monsters_die_at_zero=monsters_die_at_zero,
    ):
        tally.add(summary)
    after = policies.telemetry()
    return tally, _difference(after, before)


def _difference(after: Telemetry | None, before: Telemetry | None) -> Telemetry | None:
    """Telemetry gathered between two snapshots of the same process."""
    if after is None:
        return None
    if before is None:
        return after
    from policies.llm import Telemetry

    return Telemetry(
        decisions=after.decisions - before.decisions,
        model_calls=after.model_calls - before.model_calls,
        retries=after.retries - before.retries,
        cache_hits=after.cache_hits - before.cache_hits,
        tokens_in=after.tokens_in - before.tokens_in,
        tokens_out=after.tokens_out - before.tokens_out,
        tokens_reused=after.tokens_reused - before.tokens_reused,
        fallbacks={k: v - before.fallbacks.get(k, 0) for k, v in after.fallbacks.items()},
        latencies=after.latencies[len(before.latencies) :],
    )


@dataclass(slots=True)
class RunOutcome:
    """What a series of fights produced: the tally and the LLM telemetry (if any)."""

    tally: Tally
    telemetry: Telemetry | None = None

    def add(self, part: tuple[Tally, Telemetry | None]) -> None:
        tally, telemetry = part
        self.tally.merge(tally)
        if telemetry is not None:
            if self.telemetry is None:
                from policies.llm import Telemetry

                self.telemetry = Telemetry()
            self.telemetry.merge(telemetry)


def _chunks(start: int, stop: int, workers: int) -> list[tuple[int, int]]:
    """Contiguous run ranges: about four per worker, at most 250 runs each."""
    size = max(1, min(250, -(-(stop - start) // (workers * 4))))
    return [(a, min(stop, a + size)) for a in range(start, stop, size)]


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
    model: str | None = None,
    policy_set: PolicySet | None = None,
) -> RunOutcome:
    """Runs ``0 … runs − 1`` (run ``i`` seeded with ``seed + i``).

    ``model`` is the default model string of ``llm`` policies. ``policy_set``
    (single process only) lets the caller keep the built policies, e.g. to save
    a recorded session afterwards.
    """
    specs = tuple(policies) if policies is not None else heuristic_everywhere(encounter)
    outcome = RunOutcome(Tally(len(encounter.sides), len(encounter.placements)))
    if workers <= 1 or runs < 2 or policy_set is not None:
        chosen = policy_set or PolicySet(specs, model)
        step = max(1, runs // 100)
        for i, summary in enumerate(
            run_range(
                encounter,
                seed,
                0,
                runs,
                chosen,
                round_cap=round_cap,
                monsters_die_at_zero=monsters_die_at_zero,
            ),
            1,
        ):
            outcome.tally.add(summary)
            if progress is not None and (i % step == 0 or i == runs):
                progress(i)
        outcome.telemetry = chosen.telemetry()
        return outcome
    # several processes: multiprocessing and the pool are imported only then
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    workers = min(workers, runs)
    uses_llm = any(spec.kind == "llm" for spec in specs)
    if not uses_llm and "fork" in multiprocessing.get_all_start_methods():
        _simulate_forked(
            encounter, specs, model, outcome, runs, seed, round_cap, monsters_die_at_zero,
            workers, progress,
        )  # fmt: skip
        return outcome
    # LLM sides: fresh processes (a loaded model's thread pool must not be
    # forked), each model with its share of the cores so they do not fight over them.
    threads = max(1, (os.cpu_count() or 1) // workers) if uses_llm else None
    bounds = _chunks(0, runs, workers)
    clean = dataclasses.replace(encounter, gmap=dataclasses.replace(encounter.gmap, cache={}))
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_child,
        initargs=(clean, specs, model, threads),
    )
    try:
        futures = [
            pool.submit(_run_chunk, seed, a, b, round_cap, monsters_die_at_zero) for a, b in bounds
        ]
        for fut in as_completed(futures):
            outcome.add(fut.result())
            if progress is not None:
                progress(outcome.tally.fights)
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown()
    return outcome


def _simulate_forked(
    encounter: Encounter,
    specs: tuple[PolicySpec, ...],
    model: str | None,
    outcome: RunOutcome,
    runs: int,
    seed: int,
    round_cap: int,
    monsters_die_at_zero: bool,
    workers: int,
    progress: ProgressFn | None,
) -> None:
    """The parent is one of the ``workers``: it warms the map's geometry caches on
    the first runs, forks ``workers − 1`` children that inherit them, then plays
    whichever queued chunks no child has started yet."""
    _init_worker(encounter, specs, model)
    warm = min(runs, WARMUP_FIGHTS)
    outcome.add(_run_chunk(seed, 0, warm, round_cap, monsters_die_at_zero))
    if progress is not None:
        progress(outcome.tally.fights)
    rest = runs - warm
    if rest <= 0:
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    bounds = _chunks(warm, runs, workers)
    pool = ProcessPoolExecutor(
        max_workers=max(1, workers - 1),
        mp_context=multiprocessing.get_context("fork"),
        initializer=_init_child,
        initargs=(encounter, specs, model),
    )
    try:
        futures = [
            pool.submit(_run_chunk, seed, a, b, round_cap, monsters_die_at_zero) for a, b in bounds
        ]
        for (a, b), fut in zip(reversed(bounds), reversed(futures), strict=True):
            if fut.cancel():  # not started by a child: the parent plays it
                outcome.add(_run_chunk(seed, a, b, round_cap, monsters_die_at_zero))
                if progress is not None:
                    progress(outcome.tally.fights)
        for fut in futures:
            if not fut.cancelled():
                outcome.add(fut.result())
                if progress is not None:
                    progress(outcome.tally.fights)
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown()


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool at once (Ctrl-C in the parent): cancel the queued work and end the
    workers, whose current pieces are lost (never saved half done).

    Without it, workers that ignore SIGINT would go on with the pieces already
    sent to them and, once the parent has left, wait for more forever.
    """
    running: Any = getattr(pool, "_processes", None) or {}
    processes = list(running.values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.terminate()
    for proc in processes:
        proc.join(5)
