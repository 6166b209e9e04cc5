"""From runs to a `Board`: the paper's Sum per designer and suite, with seeds and intervals.

"Sum" is the paper's headline: per agent count (suite), the mean over map sizes of the per-size
rate; a designer's cell is the mean of its seeds' Sums, the overall column the mean over suites.
Detail cuts (a size, a wait subset, a hole ratio) are the mean over the cut's sizes of the
per-size rate. Every cell holds the valid, makespan-optimal and SOC-optimal rate
(`leaderboards.metrics`); an optimal rate the suite version cannot give is None (the overall
column too, when any suite lacks it). Intervals and deltas follow `leaderboards.bootstrap`.
After the rows, `leaderboards.board_statistics` adds rliable's aggregates, the validation
curves, the controls and the detectable difference, reusing the rows' resampled Sums.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from statistics import mean

import numpy as np
from numpy.typing import NDArray

from envdesign_common import git_commit, package_version
from leaderboards.board import (
    Answers,
    Board,
    BootstrapSpec,
    Cut,
    DesignerRow,
    DesignFailures,
    DetailRow,
    Estimate,
    RateCell,
    RunRef,
    SuiteInfo,
    UnrankedRow,
)
from leaderboards.board_statistics import board_statistics
from leaderboards.bootstrap import (
    BOOTSTRAP_SEED,
    CONFIDENCE,
    METHOD,
    RESAMPLES,
    Floats,
    binary_replicates,
    rng_for,
)
from leaderboards.compat import check_compatible, shared_experiment
from leaderboards.costs import cost_row
from leaderboards.deltas import baseline_deltas
from leaderboards.design_steps import design_failures, unranked_note
from leaderboards.errors import LeaderboardError
from leaderboards.failures import failure_rows
from leaderboards.groups import Group, estimate, is_ranked, make_groups, overall_reps
from leaderboards.metrics import METRICS, Metric, available, unavailable_note
from leaderboards.readers import LoadedRun
from leaderboards.reference import load_reference
from leaderboards.score_arrays import CUTS


def build_board(
    runs: Sequence[LoadedRun],
    *,
    baseline: str | None = "random",
    strict_baseline: bool = False,
    answers: Answers = "greedy",
    resamples: int = RESAMPLES,
    reference: bool = False,
    details: Sequence[Cut] = CUTS,
    pool_machines: bool = False,
) -> Board:
    """The board of `runs` (checked compatible); deltas against `baseline` when it is present.

    With `strict_baseline`, a baseline missing from the runs is an error rather than a note.
    `details` are the cuts computed (all by default; each costs bootstrap time). A designer whose
    design steps all failed is left out of the rows (`Board.unranked` says why) unless its runs
    allowed it; one with some failed steps is ranked and flagged (`leaderboards.design_steps`).
    `pool_machines` pools runs that computed differently (`leaderboards.compat`).
    """
    check_compatible(runs, pool_machines=pool_machines)
    groups = make_groups(runs, answers, resamples)
    flags = {(g.kind, g.designer): design_failures([r.record for r in g.runs]) for g in groups}
    ranked = [g for g in groups if is_ranked(flags[g.kind, g.designer])]
    unranked = [
        _unranked(g, f) for g in groups if (f := flags[g.kind, g.designer]) and not f.ranked
    ]
    suites = list(runs[0].record.suites)
    base = next((g for g in ranked if g.designer == baseline), None)
    note = _baseline_note(baseline, base, groups, flags, strict_baseline)
    rows = _ranked_rows(ranked, base, flags, suites, resamples)
    order = {(r.kind, r.designer): i for i, r in enumerate(rows)}
    in_rows = sorted(ranked, key=lambda g: order[g.runs[0].record.kind, g.designer])
    return Board(
        package_version=package_version(),
        git_commit=git_commit(),
        answers=answers,
        baseline=baseline if base is not None else None,
        baseline_note=note,
        experiment=shared_experiment(runs[0], pool_machines=pool_machines),
        suites=tuple(_suite_info(runs[0], name) for name in suites),
        bootstrap=BootstrapSpec(
            resamples=resamples, confidence=CONFIDENCE, rng_seed=BOOTSTRAP_SEED, method=METHOD
        ),
        runs=tuple(_run_ref(run) for g in groups for run in g.runs),
        rows=tuple(rows),
        unranked=tuple(unranked),
        detail_cuts=tuple(c for c in CUTS if c in details),
        details=all_details(ranked, suites, details),
        failures=tuple(f for g in ranked for f in failure_rows(g.designer, g.runs, suites)),
        costs=tuple(cost_row(g.designer, [r.record for r in g.runs]) for g in groups),
        reference=load_reference() if reference else None,
        **board_statistics(in_rows, base, suites, resamples),
    )


Flags = dict[tuple[str, str], DesignFailures | None]


def _ranked_rows(
    groups: list[Group],
    base: Group | None,
    flags: Flags,
    suites: list[str],
    resamples: int,
) -> list[DesignerRow]:
    """The ranked designers' rows with their deltas, best overall valid rate first."""
    rows = []
    plain = [_row(g, suites) for g in groups]  # every group's means before any delta
    for g, row in zip(groups, plain, strict=True):
        update: dict[str, object] = {"design_failures": flags[g.kind, g.designer]}
        if base is not None and g is not base and g.kind == base.kind:
            update["delta"], update["delta_overall"] = baseline_deltas(g, base, suites, resamples)
        rows.append(row.model_copy(update=update))
    return sorted(rows, key=lambda r: (r.kind, -r.overall.valid.mean, r.designer))


def _unranked(g: Group, flag: DesignFailures) -> UnrankedRow:
    return UnrankedRow(designer=g.designer, kind=g.runs[0].record.kind, seeds=g.seeds,
                       design_failures=flag, note=unranked_note(g.designer, flag))  # fmt: skip


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


PARALLEL_DETAILS = 4
"""Designers from which detail cells are resampled by one process per CPU."""

_FORKED: list[tuple[list[Group], list[str], Sequence[Cut]]] = []
"""What forked detail workers read (inherited, not sent: a group holds its runs' records)."""


def all_details(
    groups: list[Group], suites: list[str], cuts: Sequence[Cut]
) -> tuple[DetailRow, ...]:
    """Every ranked group's detail rows, in order. They are most of a board's bootstrap cells,
    and independent of each other (each cell seeds its own generator), so with many designers
    each CPU resamples some of them; the rows are the same as resampled here."""
    workers = min(os.cpu_count() or 1, len(groups) // PARALLEL_DETAILS)
    if not cuts or workers < 2 or "fork" not in mp.get_all_start_methods():
        return tuple(d for g in groups for d in _details(g, suites, cuts))
    _FORKED[:] = [(groups, suites, cuts)]
    try:
        with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
            found = list(pool.map(_forked_details, range(len(groups))))
    finally:
        _FORKED.clear()
    return tuple(d for rows in found for d in rows)


def _forked_details(index: int) -> list[DetailRow]:
    groups, suites, cuts = _FORKED[0]
    return _details(groups[index], suites, cuts)


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


def _baseline_note(
    baseline: str | None, base: Group | None, groups: list[Group], flags: Flags, strict: bool
) -> str | None:
    if baseline is None or base is not None:
        return None
    left_out = [f for (_, name), f in flags.items() if name == baseline and f is not None]
    if left_out:
        message = f"baseline {baseline!r} is not ranked ({left_out[0].summary})"
        hint = "pass --baseline with a ranked designer"
    else:
        names = ", ".join(sorted({g.designer for g in groups}))
        message = f"baseline {baseline!r} is not among the runs (designers: {names})"
        hint = "pass --baseline with one of them"
    if strict:
        raise LeaderboardError(f"{message}; {hint}")
    return f"{message}: no deltas"


def _suite_info(run: LoadedRun, name: str) -> SuiteInfo:
    result = run.record.suites[name]
    optima = tuple(o.value for o in result.optima)
    return SuiteInfo(
        name=name,
        n_agents=result.n_agents,
        sizes=tuple(sorted(result.greedy.per_size)),
        instances=len(result.verdicts),
        suite_version=result.suite_version,
        content_sha256=result.content_sha256,
        optima=optima,
        unavailable={
            m: unavailable_note(name, result.suite_version, optima, m)
            for m in METRICS
            if not available(optima, m)
        },
    )


def _run_ref(run: LoadedRun) -> RunRef:
    r = run.record
    return RunRef(
        path=run.name,
        designer=r.designer,
        seed=r.seed,
        package_version=r.package_version,
        git_commit=r.git_commit,
    )
