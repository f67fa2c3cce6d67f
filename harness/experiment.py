"""Experiments: several policies (arms) for one side, on the same fights.

Every arm plays run ``i`` with ``SeededRng(seed + i)``: the same seeds for every
arm (common random numbers). Each arm's win rate gets its 3σ band and its Wilson
score interval at the same z = 3 (the band shrinks to a point at 0 and all wins,
the interval does not); every other
arm is compared with the first (the baseline) by the paired difference of win
rates (its confidence interval and test use the fights on which exactly one of
the two arms won) and, for reference, by the pooled two-proportion z-test of
independent samples (conservative when the pairing helps).

Runs are cut into chunks; a chunk plays every arm on its runs and returns integer
counts, summed in any order, so the result is identical for any number of
workers. Adaptive stopping adds batches of runs (run indices continue) until
every interval is narrower than the target or the maximum is reached; batches
are fixed in advance, so it stops at the same point whatever the workers.

With a checkpoint (:mod:`harness.checkpoint`), every finished chunk is saved
with its counts (key: its first run and its last run + 1); on a new start the
saved chunks of each batch are read instead of played and only the gaps
between them are played, so the result is the same as without interruption.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engine.core.errors import DataError
from engine.run.runner import play_fight
from engine.run.stats import PairedDifference, two_proportion_test, wilson_band, win_rate_band
from engine.state.encounter import Encounter
from harness.checkpoint import Checkpoint
from harness.parallel import PolicySet, stop_pool
from harness.report import band, pct, unmodelled_lines, wilson
from policies.registry import PolicySpec

EXPERIMENT_SCHEMA = "pf1e-sim/experiment@1"

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Arm:
    """One arm: a name and the policy its side plays."""

    name: str
    policy: PolicySpec


@dataclass(slots=True)
class Counts:
    """Integer sums over a set of runs (merging is exact and order-free)."""

    arms: int
    runs: int = 0
    wins: list[int] = field(default_factory=list)
    draws: list[int] = field(default_factory=list)
    #: per arm k ≥ 1: runs arm k won and the baseline did not
    only_arm: list[int] = field(default_factory=list)
    #: per arm k ≥ 1: runs the baseline won and arm k did not
    only_base: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name in ("wins", "draws", "only_arm", "only_base"):
            if not getattr(self, name):
                setattr(self, name, [0] * self.arms)

    def merge(self, other: Counts) -> None:
        self.runs += other.runs
        for name in ("wins", "draws", "only_arm", "only_base"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for i, v in enumerate(theirs):
                mine[i] += v

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any, arms: int, runs: int) -> Counts:
        """:raises ValueError: not the counts of ``runs`` runs of ``arms`` arms."""
        if not isinstance(data, dict) or data.get("arms") != arms or data.get("runs") != runs:  # pyright: ignore[reportUnknownMemberType]
            raise ValueError("counts")
        lists: dict[str, list[int]] = {}
        for name in ("wins", "draws", "only_arm", "only_base"):
            values: Any = data.get(name)  # pyright: ignore[reportUnknownMemberType]
            if not (
                isinstance(values, list)
                and len(values) == arms  # pyright: ignore[reportUnknownArgumentType]
                and all(isinstance(v, int) and 0 <= v <= runs for v in values)  # pyright: ignore[reportUnknownVariableType]
            ):
                raise ValueError("counts")
            lists[name] = values  # pyright: ignore[reportUnknownArgumentType]
        return cls(arms, runs, **lists)


@dataclass(frozen=True, slots=True)
class _Job:
    encounter: Encounter
    #: per arm: one policy spec per combatant (deployment order)
    specs: tuple[tuple[PolicySpec, ...], ...]
    side: str
    seed: int
    round_cap: int
    monsters_die_at_zero: bool
    model: str | None


_JOB: _Job | None = None
_SETS: list[PolicySet] | None = None


def _init(job: _Job, ignore_interrupt: bool = False) -> None:
    global _JOB, _SETS
    _JOB, _SETS = job, None
    if ignore_interrupt:  # Ctrl-C is the parent's to handle (it cancels the chunks)
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _chunk(start: int, stop: int) -> Counts:
    global _SETS  # noqa: PLW0603
    job = _JOB
    assert job is not None
    if _SETS is None:
        _SETS = [PolicySet(specs, job.model) for specs in job.specs]
    enc = job.encounter
    side = enc.sides.index(job.side)
    counts = Counts(len(job.specs))
    for i in range(start, stop):
        won: list[bool] = []
        for k, policies in enumerate(_SETS):
            result = play_fight(
                enc,
                job.seed + i,
                policies,
                round_cap=job.round_cap,
                monsters_die_at_zero=job.monsters_die_at_zero,
            )
            win = result.winner is not None and enc.sides.index(result.winner) == side
            won.append(win)
            counts.wins[k] += win
            counts.draws[k] += result.winner is None
        for k in range(1, len(won)):
            counts.only_arm[k] += won[k] and not won[0]
            counts.only_base[k] += won[0] and not won[k]
        counts.runs += 1
    return counts


def _bounds(start: int, stop: int, workers: int) -> list[tuple[int, int]]:
    size = max(1, min(100, -(-(stop - start) // (workers * 4))))
    return [(a, min(stop, a + size)) for a in range(start, stop, size)]


@dataclass(slots=True)
class ExperimentResult:
    encounter: Encounter
    side: str
    arms: tuple[Arm, ...]
    seed: int
    round_cap: int
    level: float
    counts: Counts
    #: adaptive stopping: the target width, the maximum of runs, and whether reached
    target_width: float | None = None
    max_runs: int | None = None
    batches: int = 1

    def comparisons(self) -> list[PairedDifference]:
        c = self.counts
        return [
            PairedDifference(c.runs, c.only_arm[k], c.only_base[k], self.level)
            for k in range(1, len(self.arms))
        ]

    def widest(self) -> float:
        return max((d.interval[1] - d.interval[0] for d in self.comparisons()), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        c = self.counts
        arms: list[dict[str, Any]] = []
        for k, arm in enumerate(self.arms):
            p, lo, hi = win_rate_band(c.wins[k], c.runs)
            arms.append({
                "name": arm.name, "policy": str(arm.policy), "wins": c.wins[k],
                "draws": c.draws[k], "rate": p, "band_3sigma": [lo, hi],
                "wilson_3sigma": list(wilson_band(c.wins[k], c.runs)),
            })  # fmt: skip
        comparisons: list[dict[str, Any]] = []
        for k, d in enumerate(self.comparisons(), 1):
            z2, p2 = two_proportion_test(c.wins[k], c.runs, c.wins[0], c.runs)
            lo, hi = d.interval
            comparisons.append({
                "arm": self.arms[k].name, "baseline": self.arms[0].name,
                "difference": d.diff, "interval": [lo, hi],
                "only_arm_won": d.only_a, "only_baseline_won": d.only_b,
                "paired_z": d.z, "paired_p_value": d.p_value,
                "two_proportion_z": z2, "two_proportion_p_value": p2,
                "significant": d.significant,
            })  # fmt: skip
        return {
            "schema": EXPERIMENT_SCHEMA,
            "map": self.encounter.gmap.name,
            "side": self.side,
            "runs": c.runs,
            "seed": self.seed,
            "round_cap": self.round_cap,
            "level": self.level,
            "adaptive": None
            if self.target_width is None
            else {
                "target_width": self.target_width,
                "max_runs": self.max_runs,
                "batches": self.batches,
                "reached": self.widest() <= self.target_width,
            },
            "arms": arms,
            "comparisons": comparisons,
        }


def run_experiment(
    encounter: Encounter,
    base: Sequence[PolicySpec],
    side: str,
    arms: Sequence[Arm],
    *,
    runs: int,
    seed: int,
    round_cap: int,
    monsters_die_at_zero: bool = False,
    level: float = 0.05,
    workers: int = 1,
    target_width: float | None = None,
    max_runs: int | None = None,
    model: str | None = None,
    progress: ProgressFn | None = None,
    checkpoint: Checkpoint | None = None,
) -> ExperimentResult:
    """Play ``runs`` fights per arm (more, by batches of ``runs``, while an interval
    is wider than ``target_width`` and fewer than ``max_runs`` were played).

    Chunks saved in ``checkpoint`` are read, not played; played chunks are saved.

    :raises DataError: the checkpoint holds chunks that do not fit, or cannot be written.
    """
    specs = tuple(
        tuple(
            arm.policy if p.side == side else spec
            for p, spec in zip(encounter.placements, base, strict=True)
        )
        for arm in arms
    )
    job = _Job(encounter, specs, side, seed, round_cap, monsters_die_at_zero, model)
    result = ExperimentResult(
        encounter, side, tuple(arms), seed, round_cap, level, Counts(len(arms)),
        target_width, max_runs, 0,
    )  # fmt: skip
    limit = runs if target_width is None else max(runs, max_runs or runs)
    done = 0
    while done < limit:
        stop = min(limit, done + runs)
        result.counts.merge(
            _play(job, done, stop, workers, result.counts, progress, limit, checkpoint)
        )
        result.batches += 1
        done = stop
        if target_width is None or result.widest() <= target_width:
            break
    return result


def _saved(book: Checkpoint, arms: int, start: int, stop: int) -> list[tuple[int, int, Counts]]:
    """The checkpoint's chunks inside ``start … stop − 1``, in order.

    :raises DataError: invalid or overlapping chunks.
    """
    out: list[tuple[int, int, Counts]] = []
    for key in sorted(book.done):
        if len(key) != 2 or key[0] >= key[1]:
            raise DataError("point de reprise invalide (clé d'un lot)", source=str(book.path))
        a, b = key
        if a < start or b > stop:
            continue
        if out and a < out[-1][1]:
            raise DataError("point de reprise invalide (lots qui se chevauchent)",
                            source=str(book.path))  # fmt: skip
        try:
            counts = Counts.from_dict(book.done[key].get("counts"), arms, b - a)
        except ValueError:
            raise DataError("point de reprise invalide (comptes d'un lot)",
                            source=str(book.path)) from None  # fmt: skip
        out.append((a, b, counts))
    return out


def _play(
    job: _Job,
    start: int,
    stop: int,
    workers: int,
    so_far: Counts,
    progress: ProgressFn | None,
    limit: int,
    book: Checkpoint | None = None,
) -> Counts:
    arms = so_far.arms
    total = Counts(arms)
    gaps: list[tuple[int, int]] = []
    at = start
    for a, b, counts in _saved(book, arms, start, stop) if book is not None else []:
        if at < a:
            gaps.append((at, a))
        total.merge(counts)
        at = b
    if at < stop:
        gaps.append((at, stop))
    if total.runs and progress is not None:
        progress(so_far.runs + total.runs, limit)

    def done(a: int, b: int, part: Counts) -> None:
        total.merge(part)
        if book is not None:
            book.add((a, b), {"counts": part.to_dict()})
        if progress is not None:
            progress(so_far.runs + total.runs, limit)

    todo = [ab for g0, g1 in gaps for ab in _bounds(g0, g1, workers)]
    if not todo:
        return total
    if workers <= 1 or stop - start < 2:
        _init(job)
        for a, b in todo:
            done(a, b, _chunk(a, b))
        return total
    uses_llm = any(s.kind == "llm" for specs in job.specs for s in specs)
    if not uses_llm and "fork" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("fork")
    else:
        ctx = multiprocessing.get_context("spawn")
        enc = job.encounter
        job = dataclasses.replace(
            job, encounter=dataclasses.replace(enc, gmap=dataclasses.replace(enc.gmap, cache={}))
        )
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(todo)), mp_context=ctx, initializer=_init,
        initargs=(job, True),
    )  # fmt: skip
    try:
        for (a, b), part in zip(todo, pool.map(_chunk, *zip(*todo, strict=True)), strict=True):
            done(a, b, part)
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown()
    return total


# -- French rendering -------------------------------------------------------------------


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _p(p: float) -> str:
    return "p < 0.0001" if p < 0.0001 else f"p = {p:.4f}"


def render_experiment(data: dict[str, Any], title: str | None = None) -> str:
    """The terminal form of an experiment object (``pf1e-sim/experiment@1``)."""
    level = data["level"]
    conf = f"{100 * (1 - level):g} %"
    at = f"{100 * level:g} %"
    side = data["side"]
    out = [f"=== Expérience{' : ' + title if title else ''} ===", f"Carte : {data['map']}"]
    out.append(f"Camp comparé : {side} (les autres camps gardent leur politique)")
    out.append(
        f"{data['runs']} combats par bras, mêmes graines pour chaque bras "
        f"(seed {data['seed']}, plafond {data['round_cap']} rounds)"
    )
    adaptive = data["adaptive"]
    if adaptive is not None:
        width = f"{100 * adaptive['target_width']:g} points"
        if adaptive["reached"]:
            out.append(f"Arrêt adaptatif : intervalle plus étroit que {width}, atteint")
        else:
            out.append(
                f"Arrêt adaptatif : intervalle plus étroit que {width}, non atteint au maximum "
                f"de {adaptive['max_runs']} combats"
            )
    out.append("")
    for arm in data["arms"]:
        out.append(
            f"« {arm['name']} » ({arm['policy']}) : victoires {side} {pct(arm['rate'])} "
            f"({arm['wins']}) — bande 3σ : {band(*arm['band_3sigma'])}, "
            f"Wilson : {band(*wilson(arm, 'wins', data['runs']))}"
        )
    for c in data["comparisons"]:
        a, b = c["arm"], c["baseline"]
        lo, hi = c["interval"]
        out.append("")
        out.append(
            f"« {a} » − « {b} » : {_pts(c['difference'])} points, IC {conf} : "
            f"[{_pts(lo)}, {_pts(hi)}]"
        )
        out.append(
            f"  combats où un seul bras gagne : « {a} » {c['only_arm_won']}, "
            f"« {b} » {c['only_baseline_won']}"
        )
        out.append(
            f"  test apparié (McNemar) : z = {c['paired_z']:.2f}, {_p(c['paired_p_value'])} ; "
            "test de deux proportions "
            f"(échantillons indépendants) : z = {c['two_proportion_z']:.2f}, "
            f"{_p(c['two_proportion_p_value'])}"
        )
        if c["significant"]:
            better = a if c["difference"] > 0 else b
            out.append(
                f"  Verdict : la différence est réelle au seuil de {at} : « {better} » gagne "
                "plus souvent."
            )
        else:
            out.append(
                f"  Verdict : pas de différence démontrée au seuil de {at} (il faudrait plus de "
                "combats, ou les deux se valent)."
            )
    out += unmodelled_lines(data)
    return "\n".join(out) + "\n"
