"""Confidence intervals: a two-level bootstrap over seeds, then instances.

A designer's score varies with the seed of its run (training noise, the random round 0) and
with which benchmark instances happen to be in the suite. The interval covers both. Per
designer, with B resamples (2,000 by default) and a 95% percentile interval:

1. **Seeds.** Draw k seeds with replacement from the designer's k seeds. The draw is made once
   per resample and shared by every suite, cut and metric of that designer, so the overall
   aggregate (the mean of the suites' Sums) sees the same seeds in every suite.
2. **Instances.** For each drawn seed -- each draw on its own, so a seed drawn twice gets two
   independent resamples -- and each suite, resample that run's benchmark instances with
   replacement *within each map size* (stratified: every size keeps its instance count, as the
   benchmark fixes it).
3. **Statistic.** Per drawn seed, the Sum: the mean over map sizes of the resampled per-size
   rate (the paper's "Sum"); then the mean over the k drawn seeds. A detail cut (one size, one
   wait subset, one hole ratio) does the same on the cut's instances only.
4. **Interval.** The 2.5th and 97.5th percentiles of the B resampled statistics.

**Deltas against a baseline.** When the designer and the baseline ran the same seeds, the
difference is *paired*: one seed draw serves both, and within a drawn seed every instance is
resampled together with the baseline's answer to the same instance (both ran the same
benchmark), i.e. the bootstrap resamples per-instance differences. When their seeds differ it is
*unpaired*: the difference of the two designers' independent resamples. An interval that
includes 0 is marked on the board.

**One seed.** Seed-to-seed variation cannot be estimated from one seed, so no interval is given
(`Estimate.note` = "n/a (1 seed)"; for a paired delta, one common seed). With two or three
seeds the seed level has few distinct draws and the interval is rough: use more seeds to
publish.

**Reproducible.** Resampling n values with replacement matters only through how often each
distinct value is drawn, which is multinomial(n, observed shares); it is drawn here as a chain of
binomials (the same distribution, without materialising n x B indices). Random numbers come from
`numpy.random.default_rng` seeded with `BOOTSTRAP_SEED` and a stable hash of what is being
resampled (designer, suite, cut, metric): a board rebuilt from the same runs is identical, and
adding a designer does not move another designer's interval.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

BOOTSTRAP_SEED = 2606_17682
RESAMPLES = 2000
CONFIDENCE = 0.95
ONE_SEED = "n/a (1 seed)"
METHOD = (
    "two-level percentile bootstrap: resample seeds, then instances within each "
    "(seed, suite, map size); statistic = mean over drawn seeds of the mean over sizes of the "
    "per-size rate; deltas paired by seed and instance when seeds match"
)

Floats = NDArray[np.float64]
Strata = Sequence[Floats]
"""One run's values in one cut: an array of 0/1 (or -1/0/1 differences) per map size."""


def rng_for(*key: object) -> np.random.Generator:
    """A generator seeded from `BOOTSTRAP_SEED` and a stable hash of `key`."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in key).encode()).digest()
    return np.random.default_rng([BOOTSTRAP_SEED, int.from_bytes(digest[:8], "little")])


def seed_draws(rng: np.random.Generator, seeds: int, resamples: int) -> NDArray[np.int64]:
    """(resamples, seeds) indices of the seeds drawn with replacement."""
    return rng.integers(seeds, size=(resamples, seeds))


def stratified_mean(strata: Strata) -> float:
    """The mean over strata (map sizes) of the stratum mean: one run's Sum."""
    return float(np.mean([values.mean() for values in strata]))


def resampled_means(values: Floats, rng: np.random.Generator, shape: tuple[int, ...]) -> Floats:
    """Means of `values` resampled with replacement, `shape` times over."""
    distinct, counts = np.unique(values, return_counts=True)
    n = int(values.size)
    left = np.full(shape, n, dtype=np.int64)
    left_count = n
    total = np.zeros(shape)
    for value, count in zip(distinct[:-1], counts[:-1], strict=True):
        drawn = rng.binomial(left, int(count) / left_count)
        total += float(value) * drawn
        left -= drawn
        left_count -= int(count)
    total += float(distinct[-1]) * left
    return total / n


def run_replicates(strata: Strata, rng: np.random.Generator, shape: tuple[int, ...]) -> Floats:
    """Resampled Sums of one run: instances resampled within each stratum."""
    total = np.zeros(shape)
    for values in strata:
        total += resampled_means(values, rng, shape)
    return total / len(strata)


def replicates(
    runs: Sequence[Strata], draws: NDArray[np.int64], rng: np.random.Generator
) -> Floats:
    """B resampled statistics: per resample, the mean over drawn seeds of their resampled Sum.

    `runs` are the seeds' strata in the order `draws` indexes them.
    """
    shape = draws.shape
    per_run = np.stack([run_replicates(strata, rng, shape) for strata in runs])
    chosen = np.take_along_axis(per_run, draws[np.newaxis], axis=0)[0]
    return np.asarray(chosen.mean(axis=1), dtype=np.float64)


def interval(reps: Floats, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of the resampled statistics."""
    low, high = intervals(reps, confidence)
    return float(low), float(high)


def intervals(reps: Floats, confidence: float = CONFIDENCE) -> tuple[Floats, Floats]:
    """Percentile intervals along the first axis (the resamples): one per remaining entry."""
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(reps, [tail, 100 - tail], axis=0)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
