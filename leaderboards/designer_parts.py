"""What one ranked designer's runs give a board on their own: its row (the Sum cells and the
deltas against the baseline), its detail cells, its rliable rows and its validation curves.

They are nearly all of a board's bootstrap work, and independent between designers: each cell
seeds its own generator from what it resamples, and a delta needs only the baseline's own
cells, made first. So with many designers one process per CPU computes them -- forked, so the
runs' records are inherited rather than sent -- and the parts come back in order, the same as
computed here. Each part brings back the designer's resampled Sums and paired differences
too (`leaderboards.sums.Drawn`), which the controls (`leaderboards.controls`) combine across
designers.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from statistics import mean

from leaderboards.board import Cut, DesignerRow, DesignFailures, DetailRow, Estimate, RateCell
from leaderboards.board_statistics import DesignerStatistics, designer_statistics
from leaderboards.cell_scores import CellScores, cell_scores
from leaderboards.deltas import baseline_deltas
from leaderboards.groups import Group, estimate, overall_reps
from leaderboards.sums import (
    Drawn,
    Replicates,
    Resampled,
    instance_counts,
    instance_reps,
    resample_sums,
)

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
    drawn: Drawn
    """Its resampled Sums and paired differences against the baseline, for the controls."""


@dataclass(frozen=True)
class _Baseline:
    """The baseline's group and what every comparison with it reads, computed once."""

    group: Group
    sums: Resampled
    """Its Sums, for the deltas."""
    scores: CellScores
    """Its task scores, for P(improvement)."""


@dataclass(frozen=True)
class _Shared:
    """What every part reads besides its own group."""

    base: _Baseline | None
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
    """Every ranked group's part, in order, each with what it resampled (`DesignerPart.drawn`)."""
    baseline = None
    if base is not None:
        sums, scores = resample_sums(base, suites), cell_scores(base, suites, resamples)
        baseline = _Baseline(base, sums, scores)
    shared = _Shared(baseline, flags, suites, resamples, cuts)
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
    return parts


_FORKED: list[tuple[list[Group], _Shared]] = []
"""What forked workers read (inherited, not sent: a group holds its runs' records)."""


def _forked_part(index: int) -> DesignerPart:
    groups, shared = _FORKED[0]
    return _part(groups[index], shared)


def _part(g: Group, shared: _Shared) -> DesignerPart:
    base, suites = shared.base, shared.suites
    sums = base.sums if base is not None and g is base.group else resample_sums(g, suites)
    row = _row(g, sums, suites)
    update: dict[str, object] = {"design_failures": shared.flags[g.kind, g.designer]}
    base_scores = None  # the baseline's, where this row is compared with it
    paired: dict[str, Replicates] = {}
    if base is not None and g is not base.group and g.kind == base.group.kind:
        deltas = baseline_deltas(g, base.group, sums, base.sums, suites, shared.resamples)
        update["delta"], update["delta_overall"] = deltas.per_suite, deltas.overall
        if deltas.paired is not None:
            paired[base.group.designer] = deltas.paired
        base_scores = base.scores
    scores = cell_scores(g, suites, shared.resamples)
    return DesignerPart(
        row=row.model_copy(update=update),
        details=tuple(_details(g, suites, shared.cuts)),
        statistics=designer_statistics(g, scores, base_scores),
        drawn=Drawn(sums, paired),
    )


def _row(g: Group, sums: Resampled, suites: list[str]) -> DesignerRow:
    """Per suite Sum and the overall mean, from `g`'s resampled Sums."""
    cells = {}
    for suite in suites:
        cell: dict[str, Estimate | None] = {
            m: estimate(sums.means[suite, m], sums.reps.get((suite, m)), len(g.runs))
            if g.has(suite, m)
            else None
            for m in g.metrics
        }
        cells[suite] = RateCell.model_validate(cell)
    overall: dict[str, Estimate | None] = {
        m: estimate(
            sums.overall_mean(suites, m),
            overall_reps(sums.reps, suites, m),
            len(g.runs),
        )
        if all(g.has(s, m) for s in suites)
        else None
        for m in g.metrics
    }
    first = g.runs[0].record
    return DesignerRow(
        designer=g.designer,
        kind=first.kind,
        backend=first.backend,
        policy=first.experiment.policy,
        seeds=g.seeds,
        suites=cells,
        overall=RateCell.model_validate(overall),
        package_versions=tuple(sorted({r.record.package_version for r in g.runs})),
        git_commits=tuple(sorted({r.record.git_commit for r in g.runs})),
    )


def _details(g: Group, suites: list[str], cuts: Sequence[Cut]) -> list[DetailRow]:
    chosen = [c for c in g.task.cuts if c in cuts]
    return [
        _detail(g, suite, cut, key)
        for suite in suites
        for cut in chosen
        for key in g.arrays[suite][0].keys(cut)
    ]


def _detail(g: Group, suite: str, cut: Cut, key: str) -> DetailRow:
    """One cut's cell: per seed the mean over the cut's strata, then over seeds."""
    cell: dict[str, Estimate | None] = {}
    for metric in g.metrics:
        if not g.has(suite, metric):
            cell[metric] = None
            continue
        ones, sizes = instance_counts(g, suite, metric, cut, key)
        per_run = (ones / sizes).mean(axis=1)  # each run's mean over the cut's strata
        reps = instance_reps(g, suite, metric, cut, key) if len(g.runs) > 1 else None
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
