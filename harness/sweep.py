"""Sweeps: deployment variants × strategies of one side, N fights per cell.

A cell is one way of deploying the studied side (a *variant*: its map zone,
another zone, start squares or a formation, see :mod:`engine.state.deployment`) played
with one policy of that side (a *strategy*); the other sides keep their zone and
their policy. Every cell plays run ``i`` with ``SeededRng(seed + i)``: the same
seeds in every cell (common random numbers), so cells are compared on the same
dice as far as the fights stay alike.

Each cell's win rate gets its 3σ band and its Wilson score interval at the same
z = 3 (the band shrinks to a point at 0 and all wins, the interval does not); the
cells that may still match the best one are decided with the Wilson intervals.

Work is cut into pieces (a cell's runs, split when there are few cells for the
workers); each piece returns integer counts, summed per cell, so the result is
identical for any number of workers. A finished cell is written to the
checkpoint (:mod:`harness.checkpoint`) at once; cells found there are not
played again.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import multiprocessing
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from engine.core.errors import DataError, EncounterError
from engine.run.runner import play_fight
from engine.run.stats import wilson_band, win_rate_band
from engine.state.deployment import (
    FACING_FR,
    SHAPE_FR,
    CellsDeployment,
    Deployment,
    ZoneDeployment,
    facing_towards,
)
from engine.state.encounter import Encounter, build_encounter
from harness.checkpoint import Checkpoint
from harness.encounter_file import ZoneRectangle
from harness.parallel import PolicySet, stop_pool
from harness.report import band, pct, unmodelled_lines, wilson
from harness.text import table
from policies.registry import PolicySpec

SWEEP_SCHEMA = "pf1e-sim/sweep@1"

#: progress callback: fights done, cells done
ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Variant:
    """A deployment of the studied side (``None``: its map zone) and the encounter it gives."""

    name: str
    deployment: Deployment | None
    encounter: Encounter


@dataclass(frozen=True, slots=True)
class Strategy:
    """A policy of the studied side, with its name in the sweep."""

    name: str
    policy: PolicySpec


@dataclass(slots=True)
class CellCounts:
    """Integer sums over some runs of one cell (merging is exact and order-free)."""

    runs: int = 0
    wins: int = 0
    draws: int = 0
    #: sum of the fights' lengths in rounds
    rounds: int = 0

    def merge(self, other: CellCounts) -> None:
        self.runs += other.runs
        self.wins += other.wins
        self.draws += other.draws
        self.rounds += other.rounds

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> CellCounts:
        """:raises ValueError: not four non-negative integers."""
        if not isinstance(data, dict):
            raise ValueError("counts")
        values = {k: data.get(k) for k in ("runs", "wins", "draws", "rounds")}  # pyright: ignore[reportUnknownMemberType]
        if not all(isinstance(v, int) and v >= 0 for v in values.values()):
            raise ValueError("counts")
        return cls(**values)  # pyright: ignore[reportArgumentType]


def build_variants(
    base: Encounter,
    side: str,
    variants: Sequence[tuple[str, Deployment | ZoneRectangle | None]],
    source: str | None = None,
) -> list[Variant]:
    """One encounter per variant, from the base encounter's sides and combatants.

    :raises DataError: a variant cannot be deployed (the message names it).
    """
    sides = [(s, [p.profile for p in base.placements if p.side == s]) for s in base.sides]
    out: list[Variant] = []
    for name, given in variants:
        if given is None:
            out.append(Variant(name, None, base))
            continue
        try:
            how = given.on(base.gmap) if isinstance(given, ZoneRectangle) else given
            enc = build_encounter(base.gmap, sides, {side: how}, spells=base.spells)
        except EncounterError as err:
            raise DataError(
                f"variante « {name} » : {err}", source=source, location=f'sweep.variants["{name}"]'
            ) from None
        out.append(Variant(name, how, enc))
    return out


# -- playing the cells ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Job:
    encounters: tuple[Encounter, ...]
    #: per strategy: one policy spec per combatant (placement order, the same in every variant)
    specs: tuple[tuple[PolicySpec, ...], ...]
    side: str
    seed: int
    round_cap: int
    monsters_die_at_zero: bool
    model: str | None


_JOB: _Job | None = None
_SETS: dict[int, PolicySet] = {}


def _init(job: _Job, ignore_interrupt: bool = False) -> None:
    global _JOB  # noqa: PLW0603 - per-process copy of what to play
    _JOB = job
    _SETS.clear()
    if ignore_interrupt:  # Ctrl-C is the parent's to handle (it cancels the pieces)
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _piece(v: int, s: int, start: int, stop: int) -> tuple[int, int, CellCounts]:
    """Runs ``start … stop − 1`` of cell (v, s)."""
    job = _JOB
    assert job is not None
    policies = _SETS.get(s)
    if policies is None:
        policies = _SETS[s] = PolicySet(job.specs[s], job.model)
    enc = job.encounters[v]
    counts = CellCounts()
    for i in range(start, stop):
        result = play_fight(
            enc,
            job.seed + i,
            policies,
            round_cap=job.round_cap,
            monsters_die_at_zero=job.monsters_die_at_zero,
        )
        counts.runs += 1
        counts.wins += result.winner == job.side
        counts.draws += result.winner is None
        counts.rounds += result.rounds
    return v, s, counts


def _pieces(runs: int, cells: int, workers: int) -> list[tuple[int, int]]:
    """Run ranges of one cell: enough pieces to keep ``workers`` busy, at most 250 runs."""
    per_cell = max(1, -(-4 * workers // max(1, cells))) if workers > 1 else 1
    size = max(1, min(250, -(-runs // per_cell)))
    return [(a, min(runs, a + size)) for a in range(0, runs, size)]


@dataclass(slots=True)
class SweepResult:
    title: str | None
    map_name: str
    side: str
    variants: tuple[Variant, ...]
    strategies: tuple[Strategy, ...]
    seed: int
    runs: int
    round_cap: int
    #: cells[v][s]
    cells: list[list[CellCounts]]
    #: cells read from the checkpoint rather than played
    resumed: int = 0

    def best(self) -> tuple[int, int]:
        """The cell with the most wins (the first in row order on a tie)."""
        flat = [(v, s) for v in range(len(self.variants)) for s in range(len(self.strategies))]
        return max(flat, key=lambda vs: (self.cells[vs[0]][vs[1]].wins, -vs[0], -vs[1]))

    def to_dict(self) -> dict[str, Any]:
        variants = [
            {
                "name": v.name,
                "deployment": _deployment_dict(v, self.side),
                "starts": {
                    p.id: list(v.encounter.gmap.rc(p.cell))
                    for p in v.encounter.placements
                    if p.side == self.side
                },
            }
            for v in self.variants
        ]
        cells: list[dict[str, Any]] = []
        for vi, v in enumerate(self.variants):
            for si, s in enumerate(self.strategies):
                c = self.cells[vi][si]
                p, lo, hi = win_rate_band(c.wins, c.runs)
                cells.append({
                    "variant": v.name, "strategy": s.name, "runs": c.runs, "wins": c.wins,
                    "draws": c.draws, "losses": c.runs - c.wins - c.draws, "rate": p,
                    "band_3sigma": [lo, hi], "wilson_3sigma": list(wilson_band(c.wins, c.runs)),
                    "rounds_mean": c.rounds / c.runs if c.runs else 0.0,
                })  # fmt: skip
        bv, bs = self.best()
        best = cells[bv * len(self.strategies) + bs]
        overlapping = [[c["variant"], c["strategy"]] for c in overlapping_cells(cells, best)]
        return {
            "schema": SWEEP_SCHEMA,
            "title": self.title,
            "map": self.map_name,
            "side": self.side,
            "runs": self.runs,
            "seed": self.seed,
            "round_cap": self.round_cap,
            "variants": variants,
            "strategies": [{"name": s.name, "policy": str(s.policy)} for s in self.strategies],
            "cells": cells,
            "best": {
                "variant": best["variant"],
                "strategy": best["strategy"],
                "overlapping": overlapping,
            },
        }


def _deployment_dict(v: Variant, side: str) -> dict[str, Any]:
    how = v.deployment
    gmap = v.encounter.gmap
    if how is None:
        return {"kind": "map_zone", "zone": gmap.deployment[side]}
    if isinstance(how, ZoneDeployment):
        if how.letter is not None:
            return {"kind": "zone", "zone": how.letter}
        return {"kind": "zone", "squares": [list(rc) for rc in sorted(set(how.squares))]}
    if isinstance(how, CellsDeployment):
        return {"kind": "cells", "squares": [list(rc) for rc in how.squares]}
    others = [letter for s, letter in gmap.deployment.items() if s != side]
    return {
        "kind": "formation",
        "shape": how.shape,
        "anchor": list(how.anchor),
        "facing": how.facing or facing_towards(gmap, how.anchor, others),
        "facing_given": how.facing is not None,
        "spacing": how.spacing,
    }


def run_sweep(
    variants: Sequence[Variant],
    base: Sequence[PolicySpec],
    side: str,
    strategies: Sequence[Strategy],
    *,
    runs: int,
    seed: int,
    round_cap: int,
    monsters_die_at_zero: bool = False,
    workers: int = 1,
    model: str | None = None,
    checkpoint: Checkpoint | None = None,
    progress: ProgressFn | None = None,
    title: str | None = None,
) -> SweepResult:
    """Play ``runs`` fights in every cell not already in ``checkpoint``.

    ``base`` is one policy spec per combatant (placement order); the studied
    side's combatants get the cell's strategy instead.

    :raises DataError: the checkpoint holds a cell that does not fit this sweep,
        or cannot be written.
    """
    first = variants[0].encounter
    specs = tuple(
        tuple(
            strat.policy if p.side == side else spec
            for p, spec in zip(first.placements, base, strict=True)
        )
        for strat in strategies
    )
    for v in variants:  # a deployment moves combatants, never renames or reorders them
        assert [p.id for p in v.encounter.placements] == [p.id for p in first.placements]
    shape = (len(variants), len(strategies))
    cells = [[CellCounts() for _ in strategies] for _ in variants]
    done: set[tuple[int, int]] = set()
    book = checkpoint or Checkpoint(None, "sweep", "")
    for key, entry in book.done.items():
        if len(key) != 2 or not (0 <= key[0] < shape[0] and 0 <= key[1] < shape[1]):
            raise DataError("point de reprise invalide (case hors du balayage)",
                            source=str(book.path))  # fmt: skip
        try:
            counts = CellCounts.from_dict(entry.get("counts"))
        except ValueError:
            raise DataError("point de reprise invalide (comptes d'une case)",
                            source=str(book.path)) from None  # fmt: skip
        if counts.runs != runs:
            raise DataError("point de reprise invalide (nombre de combats d'une case)",
                            source=str(book.path))  # fmt: skip
        cells[key[0]][key[1]] = counts
        done.add((key[0], key[1]))
    resumed = len(done)
    todo = [(v, s) for v in range(shape[0]) for s in range(shape[1]) if (v, s) not in done]
    job = _Job(
        tuple(v.encounter for v in variants), specs, side, seed, round_cap,
        monsters_die_at_zero, model,
    )  # fmt: skip
    state = _Tracker(runs * resumed, resumed, progress)

    def finish(v: int, s: int) -> None:
        done.add((v, s))
        book.add((v, s), {
            "variant": variants[v].name, "strategy": strategies[s].name,
            "counts": cells[v][s].to_dict(),
        })  # fmt: skip
        state.cell()

    if todo:
        pieces = _pieces(runs, len(todo), workers)
        if workers <= 1 or len(todo) * len(pieces) < 2:
            _init(job)
            for v, s in todo:
                for a, b in pieces:
                    cells[v][s].merge(_piece(v, s, a, b)[2])
                    state.fights(b - a)
                finish(v, s)
        else:
            _play_pool(job, todo, pieces, workers, cells, finish, state)
    return SweepResult(
        title, first.gmap.name, side, tuple(variants), tuple(strategies), seed, runs,
        round_cap, cells, resumed,
    )  # fmt: skip


class _Tracker:
    def __init__(self, fights: int, cells: int, report: ProgressFn | None) -> None:
        self.done_fights, self.done_cells, self.report = fights, cells, report
        if report is not None:
            report(fights, cells)

    def fights(self, n: int) -> None:
        self.done_fights += n
        if self.report is not None:
            self.report(self.done_fights, self.done_cells)

    def cell(self) -> None:
        self.done_cells += 1
        if self.report is not None:
            self.report(self.done_fights, self.done_cells)


def _play_pool(
    job: _Job,
    todo: list[tuple[int, int]],
    pieces: list[tuple[int, int]],
    workers: int,
    cells: list[list[CellCounts]],
    finish: Callable[[int, int], None],
    state: _Tracker,
) -> None:
    uses_llm = any(s.kind == "llm" for specs in job.specs for s in specs)
    if not uses_llm and "fork" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("fork")
    else:
        ctx = multiprocessing.get_context("spawn")
        gmap = dataclasses.replace(job.encounters[0].gmap, cache={})
        job = dataclasses.replace(
            job, encounters=tuple(dataclasses.replace(e, gmap=gmap) for e in job.encounters)
        )
    left = {vs: len(pieces) for vs in todo}
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(todo) * len(pieces)),
        mp_context=ctx,
        initializer=_init,
        initargs=(job, True),
    )
    try:
        futures: list[Future[tuple[int, int, CellCounts]]] = [
            pool.submit(_piece, v, s, a, b) for v, s in todo for a, b in pieces
        ]
        for fut in as_completed(futures):
            v, s, counts = fut.result()
            cells[v][s].merge(counts)
            state.fights(counts.runs)
            left[v, s] -= 1
            if left[v, s] == 0:
                finish(v, s)
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown()


# -- French rendering -------------------------------------------------------------------


def _rc(rc: Sequence[int]) -> str:
    return f"({rc[0]},{rc[1]})"


def describe_deployment(d: dict[str, Any]) -> str:
    """A variant's deployment in French (from its ``to_dict`` form)."""
    kind = d["kind"]
    if kind == "map_zone":
        return f"zone « {d['zone']} » de la carte"
    if kind == "zone":
        if "zone" in d:
            return f"zone « {d['zone']} » de la carte"
        n = len(d["squares"])
        return f"zone de {n} case{'s' if n > 1 else ''}"
    if kind == "cells":
        return "cases de départ données"
    facing = FACING_FR[d["facing"]] + ("" if d["facing_given"] else " (vers l'ennemi)")
    spacing = f", espacement {d['spacing']}" if d["spacing"] != 1 else ""
    return (
        f"formation en {SHAPE_FR[d['shape']]} ancrée en {_rc(d['anchor'])}, face à "
        f"{facing}{spacing}"
    )


def cell_wilson(cell: dict[str, Any]) -> tuple[float, float]:
    """A cell's Wilson interval at z = 3 (computed from its counts for sweeps
    written before it was stored)."""
    return wilson(cell, "wins", cell["runs"])


def overlapping_cells(
    cells: Sequence[dict[str, Any]], best: dict[str, Any]
) -> list[dict[str, Any]]:
    """The other cells whose Wilson interval reaches the best cell's: not yet told
    apart from it (the 3σ band of a cell won 0 or every time has no width)."""
    floor = cell_wilson(best)[0]
    return [c for c in cells if c is not best and cell_wilson(c)[1] >= floor]


def band_text(cell: dict[str, Any]) -> str:
    """``rate [lo, hi]``: the cell's rate and its Wilson interval (in %)."""
    lo, hi = cell_wilson(cell)
    return f"{pct(cell['rate'])} [{100 * lo:.1f}, {100 * hi:.1f}]"


def render_sweep(data: dict[str, Any]) -> str:
    """The terminal form of a sweep object (``pf1e-sim/sweep@1``)."""
    side = data["side"]
    title = data["title"]
    nv, ns = len(data["variants"]), len(data["strategies"])
    out = [f"=== Balayage{' : ' + title if title else ''} ===", f"Carte : {data['map']}"]
    out.append(f"Camp étudié : {side} (les autres camps gardent leur zone et leur politique)")
    out.append(
        f"{nv} déploiement{'s' if nv > 1 else ''} × {ns} stratégie{'s' if ns > 1 else ''} = "
        f"{nv * ns} cases, {data['runs']} combats par case, mêmes graines dans chaque case "
        f"(seed {data['seed']}, plafond {data['round_cap']} rounds)"
    )
    out.append("")
    out.append("Déploiements :")
    for v in data["variants"]:
        starts = ", ".join(f"{cid} {_rc(rc)}" for cid, rc in v["starts"].items())
        out.append(f"- « {v['name']} » : {describe_deployment(v['deployment'])} → {starts}")
    out.append("")
    out.append("Stratégies :")
    for s in data["strategies"]:
        out.append(f"- « {s['name']} » : {s['policy']}")
    out.append("")
    out.append(f"Victoires {side} par case (taux [intervalle de Wilson à 3σ, en %]) :")
    rows: list[list[str]] = []
    for vi, v in enumerate(data["variants"]):
        row = [v["name"]]
        row += [band_text(data["cells"][vi * ns + si]) for si in range(ns)]
        rows.append(row)
    headers = ["Déploiement \\ stratégie", *(s["name"] for s in data["strategies"])]
    out += table(headers, rows, set(range(1, ns + 1)))
    cell = best_cell(data)
    out.append("")
    out.append(
        f"Meilleure case : « {cell['variant']} » × « {cell['strategy']} » — victoires {side} "
        f"{pct(cell['rate'])} ({cell['wins']}/{cell['runs']}), "
        f"bande 3σ : {band(*cell['band_3sigma'])}, Wilson : {band(*cell_wilson(cell))}"
    )
    # decided again from the cells: a sweep written before the Wilson intervals
    # stored an overlap decided with the 3σ bands
    near = overlapping_cells(data["cells"], cell)
    if not near:
        out.append(
            "Aucune autre case n'atteint son intervalle de Wilson : elle est nettement meilleure."
        )
    else:
        out.append(
            "Cases dont l'intervalle de Wilson atteint le sien (à départager avec plus de "
            "combats) :"
        )
        out += [f"- « {c['variant']} » × « {c['strategy']} » : {band_text(c)}" for c in near]
    out += unmodelled_lines(data)
    return "\n".join(out) + "\n"


def best_cell(data: dict[str, Any]) -> dict[str, Any]:
    """The cell named by a sweep object's ``best``."""
    best = data["best"]
    where = (best["variant"], best["strategy"])
    return next(c for c in data["cells"] if (c["variant"], c["strategy"]) == where)


def sweep_csv(data: dict[str, Any]) -> str:
    """One line per cell (comma-separated, header first, ``\\n`` line ends)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["variant", "strategy", "runs", "wins", "draws", "losses", "rate",
                "band_3sigma_low", "band_3sigma_high", "wilson_3sigma_low", "wilson_3sigma_high",
                "rounds_mean"])  # fmt: skip
    for c in data["cells"]:
        lo, hi = c["band_3sigma"]
        wlo, whi = cell_wilson(c)
        w.writerow([
            c["variant"], c["strategy"], c["runs"], c["wins"], c["draws"], c["losses"],
            f"{c['rate']:.6f}", f"{lo:.6f}", f"{hi:.6f}", f"{wlo:.6f}", f"{whi:.6f}",
            f"{c['rounds_mean']:.4f}",
        ])  # fmt: skip
    return buf.getvalue()
