"""One run's per-instance verdicts on one suite as arrays, and the cuts a board makes of them."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from operator import attrgetter

import numpy as np
from numpy.typing import NDArray

from leaderboards.board import Answers, Cut
from leaderboards.bootstrap import Floats
from leaderboards.errors import LeaderboardError
from leaderboards.layouts import sorted_verdicts, suite_layout
from leaderboards.metrics import METRICS, Metric, available
from run_records import InstanceVerdict, SuiteResult

CUTS: tuple[Cut, ...] = ("size", "subset", "hole")

FLAGS: dict[Answers, dict[Metric, str]] = {
    "greedy": {"valid": "valid", "optimal_makespan": "optimal_makespan",
               "optimal_soc": "optimal_soc"},
    "best_of": {"valid": "best_of_valid", "optimal_makespan": "best_of_optimal_makespan",
                "optimal_soc": "best_of_optimal_soc"},
}  # fmt: skip
"""The verdict field each rate reads, per kind of answer."""


def suite_metrics(result: SuiteResult) -> tuple[Metric, ...]:
    """The rates `result` can give: validity, and each optimum its suite version carries."""
    optima = [o.value for o in result.optima]
    return tuple(m for m in METRICS if available(optima, m))


def missing_flags(result: SuiteResult) -> str | None:
    """The first verdict flag a rate of `result` needs but its verdicts lack, or None."""
    needed = [(answers, metric, fields[metric]) for metric in suite_metrics(result)
              for answers, fields in FLAGS.items()]  # fmt: skip
    return next(
        (f"{answers} {metric}" for answers, metric, f in needed
         if None in map(attrgetter(f), result.verdicts)),
        None,
    )  # fmt: skip


@dataclass(frozen=True)
class SuiteArrays:
    """Verdicts of one (run, suite), sorted by instance id so runs line up instance by instance.

    `rates` holds a 0/1 array per rate the suite can give (`suite_metrics`); a rate whose
    optimum the suite version lacks is absent, never zeros.
    """

    ids: tuple[str, ...]
    size: NDArray[np.int64]
    subset: NDArray[np.str_]
    hole: NDArray[np.str_]
    rates: dict[Metric, Floats]

    @classmethod
    def from_result(cls, result: SuiteResult, answers: Answers) -> SuiteArrays:
        """`result`'s arrays, made once per result object and kind of answer: a board makes
        them for its groups and a site again for each run's page."""
        key = (id(result), answers)
        found = _ARRAYS.get(key)
        if found is None:
            found = _ARRAYS[key] = cls._made(result, answers)
            weakref.finalize(result, _ARRAYS.pop, key, None)  # before the id is reused
        return found

    @classmethod
    def _made(cls, result: SuiteResult, answers: Answers) -> SuiteArrays:
        rows = sorted_verdicts(result)
        fields = FLAGS[answers]
        layout = suite_layout(result)
        return cls(
            ids=layout.ids,
            size=layout.size,
            subset=layout.subset,
            hole=layout.hole,
            rates={m: _flags(result, rows, fields[m]) for m in suite_metrics(result)},
        )

    def has(self, metric: Metric) -> bool:
        return metric in self.rates

    def values(self, metric: Metric) -> Floats:
        return self.rates[metric]

    def keys(self, cut: Cut) -> list[str]:
        """The cut's values present in the suite, in natural order."""
        if cut == "size":
            return [str(s) for s in sorted(set(self.size.tolist()))]
        if cut == "hole":
            return sorted(set(self.hole.tolist()), key=float)
        return sorted(set(self.subset.tolist()))

    def mask(self, cut: Cut | None, key: str = "") -> NDArray[np.bool_]:
        if cut is None:
            return np.ones(len(self.ids), dtype=bool)
        if cut == "size":
            return np.asarray(self.size == int(key))
        return np.asarray((self.subset if cut == "subset" else self.hole) == key)

    def strata(self, values: Floats, mask: NDArray[np.bool_]) -> list[Floats]:
        """`values` of the masked instances, split by map size (sizes with none left out)."""
        out = []
        for size in sorted(set(self.size[mask].tolist())):
            out.append(values[mask & (self.size == size)])
        return out

    def plan(self, cut: Cut | None, key: str = "") -> CutPlan:
        """The cut's instances, and their sizes as columns: the same for every run of the
        benchmark (its layout is shared), so it is made once per layout and cut."""
        found = _PLANS.get((id(self.size), cut, key))
        if found is None or found[0] is not self.size:
            mask = self.mask(cut, key)
            sizes = self.size[mask]
            present, at = np.unique(sizes, return_inverse=True)
            columns = np.zeros((sizes.size, present.size))
            columns[np.arange(sizes.size), at] = 1.0
            plan = CutPlan(np.flatnonzero(mask), columns, columns.sum(axis=0).astype(np.int64))
            found = _PLANS[id(self.size), cut, key] = (self.size, plan)
        return found[1]

    def counts(
        self, metric: Metric, cut: Cut | None, key: str = ""
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """`strata` of a 0/1 rate as counts: the ones and the instances per size present in the
        cut (sizes ascending), which is all a bootstrap of 0/1 values needs."""
        plan = self.plan(cut, key)
        return plan.ones(self.values(metric)[np.newaxis])[0], plan.sizes

    def size_strata(self, metric: Metric) -> list[Floats]:
        """Every instance's `metric` (0/1), split by map size: the cells the Sum, the task
        scores and the instance variance are made of."""
        return self.strata(self.values(metric), self.mask(None))

    def sum_of(self, metric: Metric) -> float:
        """One run's Sum (0-1): the mean over map sizes of the per-size rate (the
        `stratified_mean` of `size_strata`, from counts)."""
        ones, sizes = self.counts(metric, None)
        return float(np.mean(ones / sizes))


@dataclass(frozen=True)
class CutPlan:
    """A cut of a benchmark layout: its instances' positions, a 0/1 column per map size present
    (ascending), and the instances per size."""

    positions: NDArray[np.intp]
    columns: Floats
    sizes: NDArray[np.int64]

    def ones(self, values: Floats) -> NDArray[np.int64]:
        """(runs, sizes) ones of 0/1 `values` (runs, instances) in the cut, per size."""
        return np.rint(values[:, self.positions] @ self.columns).astype(np.int64)


_ARRAYS: dict[tuple[int, Answers], SuiteArrays] = {}
_PLANS: dict[tuple[int, Cut | None, str], tuple[NDArray[np.int64], CutPlan]] = {}


def suite_sums(result: SuiteResult, answers: Answers) -> dict[Metric, float | None]:
    """One run's Sum (0-1) of every rate on `result`; None for a rate it cannot give."""
    arrays = SuiteArrays.from_result(result, answers)
    return {m: arrays.sum_of(m) if arrays.has(m) else None for m in METRICS}


def _flags(result: SuiteResult, rows: list[InstanceVerdict], field: str) -> Floats:
    values = list(map(attrgetter(field), rows))
    if None in values:
        raise LeaderboardError(
            f"suite {result.suite} (version {result.suite_version}) has verdicts without "
            f"{field}, which its version carries: the record is damaged; score the run again"
        )
    return np.array(values, dtype=float)
