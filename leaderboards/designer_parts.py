"""What one ranked designer's runs give a board on their own: its row (the Sum cells and the
deltas against the baseline), its detail cells, its rliable rows and its validation curves.

They are nearly all of a board's bootstrap work, and independent between designers: each cell
seeds its own generator from what it resamples, and a delta needs only the baseline's own
cells, made first. So with many designers one process per CPU computes them -- forked, so the
runs' records are inherited rather than sent -- and the parts come back in order, the same as
computed here. Each part brings back the designer's resampled Sums and paired differences
too, which the controls (`leaderboards.controls`) combine across designers.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from statistics import mean

import numpy as np
from numpy.typing import NDArray

from leaderboards.board import Cut, DesignerRow, DesignFailures, DetailRow, Estimate, RateCell
from leaderboards.board_statistics import DesignerStatistics, designer_statistics
from leaderboards.bootstrap import Floats, binary_replicates, rng_for
from leaderboards.deltas import baseline_deltas
from leaderboards.groups import Group, estimate, overall_reps
from leaderboards.metrics import METRICS, Metric
from leaderboards.score_arrays import CUTS
from leaderboards.task_scores import TaskScores, task_scores

Flags = dict[tuple[str, str], DesignFailures | None]

PARALLEL_FROM = 4
"""Designers from which their parts are computed by one process per CPU."""


@dataclass(frozen=True)
class DesignerPart:
    """One ranked designer's share of a board."""

    row: DesignerRow
    """Its Sum cells, flags and (against the baseline) deltas."""
    details: tuple[DetailRow, ...]
    statistics: DesignerStatistics
    means: dict[tuple[str, Metric], float]
    reps: dict[tuple[str, Metric], Floats]
    paired: dict[str, dict[tuple[str, Metric], Floats]]


@dataclass(frozen=True)
class _Shared:
    """What every part reads besides its own group."""

    base: Group | None
    base_scores: TaskScores | None
    flags: Flags
    suites: list[str]
    resamples: int
    cuts: Sequence[Cut]


def designer_parts(
    groups: list[Group],
    base: Group | None,
    flags: Flags,
    suites: list[str],
    resamples: int,
    cuts: Sequence[Cut],
) -> list[DesignerPart]:
    """Every ranked group's part, in order; each group keeps its resampled Sums and paired
    differences (`Group.means`, `.reps`, `.paired`), as if computed here."""
    base_scores = None
    if base is not None:
        _row(base, suites)  # the baseline's cells, which every delta reads
        base_scores = task_scores(base, suites, resamples)
    shared = _Shared(base, base_scores, flags, suites, resamples, cuts)
    workers = min(os.cpu_count() or 1, len(groups) // PARALLEL_FROM)
    if workers < 2 or "fork" not in mp.get_all_start_methods():
        parts = [_part(g, shared) for g in groups]
    else:
        _FORKED[:] = [(groups, shared)]
        try:
            with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
                parts = list(pool.map(_forked_part, range(len(groups))))
        finally:
            _FORKED.clear()
    for g, part in zip(groups, parts, strict=True):
        g.means.update(part.means)
        g.reps.update(part.reps)
        g.paired.update(part.paired)
    return parts


_FORKED: list[tuple[list[Group], _Shared]] = []
"""What forked workers read (inherited, not sent: a group holds its runs' records)."""


def _forked_part(index: int) -> DesignerPart:
    groups, shared = _FORKED[0]
    return _part(groups[index], shared)


def _part(g: Group, shared: _Shared) -> DesignerPart:
    base, suites = shared.base, shared.suites
    row = _row(g, suites)
    update: dict[str, object] = {"design_failures": shared.flags[g.kind, g.designer]}
    base_scores = None  # the baseline's, where this row is compared with it
    if base is not None and g is not base and g.kind == base.kind:
        update["delta"], update["delta_overall"] = baseline_deltas(g, base, suites,
                                                                   shared.resamples)  # fmt: skip
        base_scores = shared.base_scores
    scores = task_scores(g, suites, shared.resamples)
    return DesignerPart(
        row=row.model_copy(update=update),
        details=tuple(_details(g, suites, shared.cuts)),
        statistics=designer_statistics(g, scores, base_scores),
        means=dict(g.means),
        reps=dict(g.reps),
        paired=dict(g.paired),
    )


def _row(g: Group, suites: list[str]) -> DesignerRow:
    """Per suite Sum and the overall mean; stores the resampled Sums on `g` for the deltas."""
    cells = {}
    for suite in suites:
        cell: dict[str, Estimate | None] = {}
        for metric in METRICS:
            if not g.has(suite, metric):
                cell[metric] = None
                continue
            g.means[suite, metric] = mean(a.sum_of(metric) for a in g.arrays[suite])
            reps = _reps(g, suite, metric, None, "") if len(g.runs) > 1 else None
            if reps is not None:
                g.reps[suite, metric] = reps
            cell[metric] = estimate(g.means[suite, metric], reps, len(g.runs))
        cells[suite] = RateCell.model_validate(cell)
    overall: dict[str, Estimate | None] = {
        m: estimate(
            mean(g.means[s, m] for s in suites),
            overall_reps(g.reps, suites, m),
            len(g.runs),
        )
        if all(g.has(s, m) for s in suites)
        else None
        for m in METRICS
    }
    first = g.runs[0].record
    return DesignerRow(
        designer=g.designer,
        kind=first.kind,
        backend=first.backend,
        policy=str(first.experiment.get("policy", "?")),
        seeds=g.seeds,
        suites=cells,
        overall=RateCell.model_validate(overall),
        package_versions=tuple(sorted({r.record.package_version for r in g.runs})),
        git_commits=tuple(sorted({r.record.git_commit for r in g.runs})),
    )


def _reps(g: Group, suite: str, metric: Metric, cut: Cut | None, key: str) -> Floats:
    ones, sizes = _counts(g, suite, metric, cut, key)
    rng = rng_for("instances", g.kind, g.designer, suite, cut or "all", key, metric)
    return binary_replicates(ones, sizes, g.draws, rng)


def _counts(
    g: Group, suite: str, metric: Metric, cut: Cut | None, key: str
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(runs, sizes) ones of the cut's instances per run and size, and the instances per size
    (the same in every run: one benchmark)."""
    arrays = g.arrays[suite]
    if all(a.size is arrays[0].size for a in arrays):  # one shared layout: all runs at once
        plan = arrays[0].plan(cut, key)
        return plan.ones(np.stack([a.values(metric) for a in arrays])), plan.sizes
    found = [a.counts(metric, cut, key) for a in arrays]
    return np.stack([ones for ones, _ in found]), found[0][1]


def _details(g: Group, suites: list[str], cuts: Sequence[Cut]) -> list[DetailRow]:
    chosen = [c for c in CUTS if c in cuts]
    return [
        _detail(g, suite, cut, key)
        for suite in suites
        for cut in chosen
        for key in g.arrays[suite][0].keys(cut)
    ]


def _detail(g: Group, suite: str, cut: Cut, key: str) -> DetailRow:
    """One cut's cell: per seed the mean over the cut's sizes, then over seeds."""
    cell: dict[str, Estimate | None] = {}
    for metric in METRICS:
        if not g.has(suite, metric):
            cell[metric] = None
            continue
        ones, sizes = _counts(g, suite, metric, cut, key)
        per_run = (ones / sizes).mean(axis=1)  # each run's mean over the cut's sizes
        reps = _reps(g, suite, metric, cut, key) if len(g.runs) > 1 else None
        cell[metric] = estimate(mean(per_run.tolist()), reps, len(g.runs))
    first = g.arrays[suite][0]
    return DetailRow(
        designer=g.designer,
        suite=suite,
        cut=cut,
        key=key,
        instances=int(first.mask(cut, key).sum()),
        rates=RateCell.model_validate(cell),
    )
