"""The board's rliable rows: each ranked designer's score matrix and what `leaderboards.robust`
makes of it (mean and IQM, the performance profile, P(improvement) over the baseline).

A designer's score matrix for one metric is runs x cells: a cell is one (suite, value of the
task's first cut) -- MAPF: a map size, 21 for the 3/4/5-agent suites; rliable calls them
"tasks" -- and a score that run's rate on the cell, read from the same verdict arrays as the
Sum cells (greedy or best-of, as the board's `answers`). A metric some suite cannot give has no
matrix (it is absent, as the overall column is n/a).

One stratified draw of run indices per designer (seeded by `rng_for` from the designer alone)
serves all its metrics, its mean, IQM and profile, and its side of every P(improvement) --
which resamples both sides independently, as rliable does. So a rebuilt board is identical,
and adding a designer moves nobody else's interval. With one run there is nothing to resample:
intervals are unknown, with the board's one-seed note.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from leaderboards.board import Aggregate, Improvement, Kind, Profile
from leaderboards.bootstrap import ONE_SEED, Floats, intervals, rng_for
from leaderboards.groups import Group, estimate
from leaderboards.metrics import Metric
from leaderboards.robust import (
    TAUS,
    aggregate_iqm,
    aggregate_mean,
    probability_of_improvement,
    profile_of_ranks,
    score_profile,
    stratified_draws,
    stratified_resample,
    threshold_ranks,
)

DIGITS = 6
"""Probabilities and shares are rounded to this many decimals on the board."""


@dataclass(frozen=True)
class CellScores:
    """One ranked row's score matrices (0-1, per metric) and its stratified run draws."""

    designer: str
    kind: Kind
    matrices: dict[Metric, Floats]
    draws: NDArray[np.int64] | None
    """(resamples, runs, cells); None with one run."""

    @property
    def runs(self) -> int:
        return len(next(iter(self.matrices.values()))) if self.matrices else 0

    def resampled(self, metric: Metric) -> Floats | None:
        if self.draws is None:
            return None
        return stratified_resample(self.matrices[metric], self.draws)


def cell_scores(g: Group, suites: list[str], resamples: int) -> CellScores:
    """`g`'s score matrices for every metric all its suites give, and its run draws."""
    matrices = {
        m: score_matrix(g, suites, m) for m in g.metrics if all(g.has(s, m) for s in suites)
    }
    cells = sum(len(g.arrays[s][0].keys(g.arrays[s][0].strata_cut)) for s in suites)
    draws = None
    if len(g.runs) > 1:
        rng = rng_for("stratified-runs", g.kind, g.designer)
        draws = stratified_draws(rng, len(g.runs), cells, resamples)
    return CellScores(g.designer, g.runs[0].record.kind, matrices, draws)


def score_matrix(g: Group, suites: list[str], metric: Metric) -> Floats:
    """Runs x cells: each run's per-stratum rate, suite by suite in board order, strata in
    natural order."""
    rows = []
    for i in range(len(g.runs)):
        row: list[float] = []
        for suite in suites:
            row.extend(float(v.mean()) for v in g.arrays[suite][i].stratum_values(metric))
        rows.append(row)
    return np.array(rows, dtype=np.float64)


def aggregates(scores: CellScores) -> list[Aggregate]:
    """Mean and IQM, with stratified-bootstrap intervals, per metric."""
    out = []
    for metric, matrix in scores.matrices.items():
        resampled = scores.resampled(metric)
        mean_reps = None if resampled is None else aggregate_mean(resampled)
        iqm_reps = None if resampled is None else aggregate_iqm(resampled)
        out.append(
            Aggregate(
                designer=scores.designer, kind=scores.kind, metric=metric, runs=scores.runs,
                cells=matrix.shape[1],
                mean=estimate(float(aggregate_mean(matrix)), mean_reps, scores.runs),
                iqm=estimate(float(aggregate_iqm(matrix)), iqm_reps, scores.runs),
            )
        )  # fmt: skip
    return out


def profiles(scores: CellScores) -> list[Profile]:
    """The share of run-cell scores above each tau, and its band, per metric."""
    out = []
    for metric, matrix in scores.matrices.items():
        band: dict[str, tuple[float, ...]] = {}
        if scores.draws is not None:
            ranks = stratified_resample(threshold_ranks(matrix), scores.draws)
            low, high = intervals(profile_of_ranks(ranks, len(TAUS)))
            band = {"low": _rounded(low), "high": _rounded(high)}
        out.append(
            Profile(
                designer=scores.designer, kind=scores.kind, metric=metric,
                taus=tuple(round(100 * t, 6) for t in TAUS.tolist()),
                share=_rounded(score_profile(matrix)), **band,
            )
        )  # fmt: skip
    return out


def improvements(scores: CellScores, base: CellScores) -> list[Improvement]:
    """P(scores' designer > base's) per metric both give, each side resampled on its own."""
    out = []
    for metric, matrix in scores.matrices.items():
        if metric not in base.matrices:
            continue
        point = float(probability_of_improvement(matrix, base.matrices[metric]))
        plain = Improvement(designer=scores.designer, baseline=base.designer, metric=metric,
                            probability=round(point, DIGITS), runs=scores.runs,
                            baseline_runs=base.runs)  # fmt: skip
        mine, theirs = scores.resampled(metric), base.resampled(metric)
        if mine is None or theirs is None:
            out.append(plain.model_copy(update={"note": ONE_SEED}))
            continue
        low, high = intervals(probability_of_improvement(mine, theirs))
        update = {"low": round(float(low), DIGITS), "high": round(float(high), DIGITS)}
        out.append(plain.model_copy(update=update))
    return out


def _rounded(values: Floats) -> tuple[float, ...]:
    return tuple(round(float(v), DIGITS) for v in values)
