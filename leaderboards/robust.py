"""rliable's aggregates (Agarwal et al. 2021) in numpy: mean, IQM, P(improvement), profiles.

rliable itself (1.2.0) installs beside the project's pins but does not import: it needs
`arch<8`, and arch 7.2.0 raises at import under pandas 3 (`deprecate_kwarg() missing ...
'new_arg_name'`), the pandas the GPU extras pin. So its definitions are written here, and
`tests/leaderboards/test_robust.py` checks them against rliable's own outputs
(`tests/golden/rliable_reference.py` makes them in a separate environment).

A score matrix is runs x tasks: a task is one benchmark suite x map size, a score that run's
rate on that cell (0-1). Every function takes any leading batch axes (`(..., runs, tasks)`), so
the bootstrap evaluates all its resamples in one call:

- `aggregate_mean`: the mean over runs and tasks.
- `aggregate_iqm`: the interquartile mean -- the mean of the middle half of all run-task scores
  (`scipy.stats.trim_mean(scores, 0.25, axis=None)`: `int(0.25 n)` cut from each end).
- `probability_of_improvement`: P(X > Y), per task the Mann-Whitney share of run pairs where
  X's run beats Y's (ties count half), averaged over tasks.
- `score_profile`: the share of run-task scores strictly above each threshold tau (counted
  through each score's `threshold_ranks`, which the bootstrap resamples in the scores' place).

Intervals follow rliable's stratified bootstrap: runs are resampled with replacement
independently within each task (`stratified_resample`); P(improvement) resamples X's and Y's runs
independently. Percentile 95% intervals (`leaderboards.bootstrap.intervals`). rliable's bootstrap
covers run-to-run variation only: a cell's score is taken as given, so these intervals leave out
the instance sampling that the Sum cells' two-level intervals include.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from leaderboards.bootstrap import Floats

TRIM = 0.25
"""The IQM's share cut from each end."""
TAUS = np.arange(101, dtype=np.float64) / 100
"""Profile thresholds (0-1): k/100 for k = 0..100, each the exactly rounded fraction, so a rate
such as 21/150 compares equal to the threshold 14/100."""


def aggregate_mean(scores: Floats) -> Floats:
    """The mean over the last two axes (runs, tasks)."""
    return np.asarray(scores.mean(axis=(-2, -1)), dtype=np.float64)


def aggregate_iqm(scores: Floats) -> Floats:
    """The 25% trimmed mean of all run-task scores (over the last two axes)."""
    flat = np.sort(scores.reshape(*scores.shape[:-2], -1), axis=-1)
    cut = int(TRIM * flat.shape[-1])
    return np.asarray(flat[..., cut : flat.shape[-1] - cut].mean(axis=-1), dtype=np.float64)


def probability_of_improvement(x: Floats, y: Floats) -> Floats:
    """P(X > Y): per task, (P(x > y) + P(x = y) / 2) over all run pairs; mean over tasks.

    `x` is (..., m, tasks), `y` (..., n, tasks) with the same leading axes.
    """
    left, right = x[..., :, np.newaxis, :], y[..., np.newaxis, :, :]
    wins = (left > right).sum(axis=(-3, -2)) + 0.5 * (left == right).sum(axis=(-3, -2))
    per_task = wins / (x.shape[-2] * y.shape[-2])
    return np.asarray(per_task.mean(axis=-1), dtype=np.float64)


def score_profile(scores: Floats, taus: Floats = TAUS) -> Floats:
    """Share of run-task scores above each of `taus` (ascending): shape (..., len(taus))."""
    return profile_of_ranks(threshold_ranks(scores, taus), len(taus))


def threshold_ranks(scores: Floats, taus: Floats = TAUS) -> NDArray[np.int64]:
    """How many of `taus` (ascending) lie strictly below each score: a score is above tau k
    exactly when its rank exceeds k. Resampling ranks instead of scores spares the bootstrap a
    search per resampled score."""
    return np.asarray(np.searchsorted(taus, scores, side="left"), dtype=np.int64)


def profile_of_ranks(ranks: NDArray[np.int64], taus: int) -> Floats:
    """`score_profile` from `threshold_ranks` (..., runs, tasks): one pass over the scores,
    counting each rank once, rather than one comparison per score and threshold."""
    flat = ranks.reshape(-1, ranks.shape[-2] * ranks.shape[-1])
    width = taus + 1
    rows = np.arange(flat.shape[0])[:, np.newaxis]
    counts = np.bincount((rows * width + flat).ravel(), minlength=flat.shape[0] * width)
    at_most = np.cumsum(counts.reshape(flat.shape[0], width), axis=1)[:, :taus]
    share = 1.0 - at_most / flat.shape[1]
    return np.asarray(share.reshape(*ranks.shape[:-2], taus), dtype=np.float64)


def stratified_draws(
    rng: np.random.Generator, runs: int, tasks: int, resamples: int
) -> NDArray[np.int64]:
    """(resamples, runs, tasks) run indices: each task's runs drawn with replacement on its own."""
    return rng.integers(runs, size=(resamples, runs, tasks))


def stratified_resample(scores: NDArray[Any], draws: NDArray[np.int64]) -> NDArray[Any]:
    """`scores` (runs x tasks; or their ranks) resampled by `draws`: (resamples, runs, tasks)."""
    return np.asarray(scores[draws, np.arange(scores.shape[1])])
