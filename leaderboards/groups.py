"""A designer's runs grouped for aggregation, and how a cell is made from resampled values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leaderboards.board import Answers, DesignFailures, Estimate
from leaderboards.bootstrap import ONE_SEED, Floats, interval, rng_for, seed_draws
from leaderboards.design_steps import design_failures
from leaderboards.metrics import Metric
from leaderboards.readers import LoadedRun
from leaderboards.score_arrays import SuiteArrays
from tasks import Task


@dataclass(frozen=True)
class Group:
    """One designer's runs (sorted by seed), their verdict arrays and its seed draws: what
    `make_groups` builds, and nothing computed from it later. Its resampled Sums are values
    (`leaderboards.sums.resample_sums`), its paired differences too
    (`leaderboards.deltas.paired_reps`), passed to whoever reads them."""

    designer: str
    kind: str
    task: Task[Any, Any]
    runs: list[LoadedRun]
    arrays: dict[str, list[SuiteArrays]]
    draws: np.ndarray
    """(resamples, seeds): every one of its cells resamples the seeds alike."""

    @property
    def metrics(self) -> tuple[Metric, ...]:
        """The task's rates, in board order (a suite may lack some: `has`)."""
        return tuple(r.key for r in self.task.board_rates)

    def short(self, metric: Metric) -> str:
        """`metric`'s column header (the task's)."""
        return next(r.short for r in self.task.board_rates if r.key == metric)

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(run.record.seed for run in self.runs)

    def has(self, suite: str, metric: Metric) -> bool:
        """Whether the suite's records can give `metric` (the same for every run: one version)."""
        return self.arrays[suite][0].has(metric)


def overall_reps(
    reps: dict[tuple[str, Metric], Floats], suites: list[str], metric: Metric
) -> Floats | None:
    """The resampled overall statistic: the mean of the suites' (resample by resample); None
    when `reps` is empty (one seed)."""
    if not reps:
        return None
    return np.asarray(np.mean([reps[s, metric] for s in suites], axis=0), dtype=np.float64)


def pct(x: float) -> float:
    return round(100 * x, 4)


def estimate(mean_: float, reps: Floats | None, seeds: int) -> Estimate:
    """A cell: the mean, and the interval of `reps` (None: one seed, no interval)."""
    if reps is None:
        return Estimate(mean=pct(mean_), seeds=seeds, note=ONE_SEED)
    low, high = interval(reps)
    return Estimate(mean=pct(mean_), low=pct(low), high=pct(high), seeds=seeds)


def make_groups(runs: Sequence[LoadedRun], answers: Answers, resamples: int) -> list[Group]:
    by_key: dict[tuple[str, str], list[LoadedRun]] = {}
    for run in runs:
        by_key.setdefault((run.record.kind, run.record.designer), []).append(run)
    groups = []
    for (kind, designer), mine in sorted(by_key.items()):
        mine.sort(key=lambda r: r.record.seed)
        task = mine[0].task
        arrays = {
            name: [SuiteArrays.from_result(task, r.record.suites[name], answers) for r in mine]
            for name in mine[0].record.suites
        }
        draws = seed_draws(rng_for("seeds", kind, designer), len(mine), resamples)
        groups.append(Group(designer, kind, task, mine, arrays, draws))
    return groups


def is_ranked(flag: DesignFailures | None) -> bool:
    """A designer is ranked unless every design step failed (and its runs did not allow it)."""
    return flag is None or flag.ranked


def ranked_groups(groups: Sequence[Group]) -> list[Group]:
    """The groups a board ranks (`leaderboards.design_steps`)."""
    return [g for g in groups if is_ranked(design_failures([r.record for r in g.runs]))]
