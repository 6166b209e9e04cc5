"""A group's Sums as values: the mean of its seeds' Sums per suite and metric, and (2+ seeds)
their two-level resamples (`leaderboards.bootstrap`).

Every later step of a board reads them -- the Sum cells, the deltas against the baseline
(`leaderboards.deltas`), the controls (`leaderboards.controls`) -- so they are computed once,
by `resample_sums`, and handed on as a `Resampled` rather than left on the `Group`: whoever
needs them takes them as an argument, and no result depends on which step ran first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from statistics import mean

import numpy as np
from numpy.typing import NDArray

from leaderboards.board import Cut
from leaderboards.bootstrap import Floats, binary_replicates, rng_for
from leaderboards.groups import Group
from leaderboards.metrics import Metric

Replicates = dict[tuple[str, Metric], Floats]
"""Resampled values per (suite, metric): Sums, or differences of two groups' Sums."""


@dataclass(frozen=True)
class Resampled:
    """One group's Sum per (suite, metric) it can give: the mean over its seeds and its
    resamples (`reps`: empty with one seed, which has no interval)."""

    means: dict[tuple[str, Metric], float]
    reps: Replicates

    def overall_mean(self, suites: list[str], metric: Metric) -> float:
        """The overall column's Sum: the mean of the suites'."""
        return mean(self.means[s, metric] for s in suites)


@dataclass(frozen=True)
class Drawn:
    """What a ranked designer's part resampled and the controls combine across designers."""

    sums: Resampled
    paired: Mapping[str, Replicates] = field(default_factory=dict)
    """Per other designer of the same seeds (the baseline, when the part compared them):
    resampled per-suite differences, this one minus it (`leaderboards.deltas.paired_reps`)."""


def resample_sums(g: Group, suites: list[str]) -> Resampled:
    """`g`'s Sums per suite and metric it can give, resampled when it has 2+ seeds."""
    means: dict[tuple[str, Metric], float] = {}
    reps: Replicates = {}
    for suite in suites:
        for metric in g.metrics:
            if not g.has(suite, metric):
                continue
            means[suite, metric] = mean(a.sum_of(metric) for a in g.arrays[suite])
            if len(g.runs) > 1:
                reps[suite, metric] = instance_reps(g, suite, metric, None, "")
    return Resampled(means, reps)


def instance_reps(g: Group, suite: str, metric: Metric, cut: Cut | None, key: str) -> Floats:
    """The resampled mean over the cut's strata (all of them: the Sum), seeds drawn by
    `g.draws`."""
    ones, sizes = instance_counts(g, suite, metric, cut, key)
    rng = rng_for("instances", g.kind, g.designer, suite, cut or "all", key, metric)
    return binary_replicates(ones, sizes, g.draws, rng)


def instance_counts(
    g: Group, suite: str, metric: Metric, cut: Cut | None, key: str
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(runs, strata) ones of the cut's items per run and stratum, and the items per stratum
    (the same in every run: one benchmark)."""
    arrays = g.arrays[suite]
    if all(a.layout is arrays[0].layout for a in arrays):  # one shared layout: all runs at once
        plan = arrays[0].plan(cut, key)
        return plan.ones(np.stack([a.values(metric) for a in arrays])), plan.sizes
    found = [a.counts(metric, cut, key) for a in arrays]
    return np.stack([ones for ones, _ in found]), found[0][1]
