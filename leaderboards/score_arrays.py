"""One run's per-item verdicts on one suite as arrays, and the cuts a board makes of them."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from leaderboards.board import Answers, Cut
from leaderboards.bootstrap import Floats
from leaderboards.layouts import Layout, read_suite
from leaderboards.metrics import Metric
from tasks import Task


@dataclass(frozen=True)
class SuiteArrays:
    """Verdicts of one (run, suite), sorted by item id so runs line up item by item.

    `rates` holds a 0/1 array per rate the suite can give (`Task.verdict_table`); a rate it
    cannot give is absent, never zeros. The strata of a Sum are the values of the task's first
    cut (MAPF: map sizes).
    """

    layout: Layout
    rates: dict[Metric, Floats]

    @classmethod
    def from_result(cls, task: Task[Any, Any], result: BaseModel, answers: Answers) -> SuiteArrays:
        """`result`'s arrays, made once per result object and kind of answer: a board makes
        them for its groups and a site again for each run's page."""
        key = (id(result), answers)
        found = _ARRAYS.get(key)
        if found is None:
            read = read_suite(task, result)
            rates = {m: flags.astype(float) for m, flags in read.flags[answers].items()}
            found = _ARRAYS[key] = cls(read.layout, rates)
            weakref.finalize(result, _ARRAYS.pop, key, None)  # before the id is reused
        return found

    @property
    def strata_cut(self) -> Cut:
        return self.layout.first

    def has(self, metric: Metric) -> bool:
        return metric in self.rates

    def values(self, metric: Metric) -> Floats:
        return self.rates[metric]

    def keys(self, cut: Cut) -> list[str]:
        """The cut's values present in the suite, in natural order."""
        return self.layout.keys(cut)

    def mask(self, cut: Cut | None, key: str = "") -> NDArray[np.bool_]:
        if cut is None:
            return np.ones(len(self.layout.ids), dtype=bool)
        return np.asarray(self.layout.cuts[cut] == key)

    def strata(self, values: Floats, mask: NDArray[np.bool_]) -> list[Floats]:
        """`values` of the masked items, split by the first cut's value (those with none left
        out), in natural order."""
        strata = self.layout.strata
        return [values[mask & (strata == s)] for s in sorted(set(strata[mask].tolist()))]

    def plan(self, cut: Cut | None, key: str = "") -> CutPlan:
        """The cut's items, and their strata as columns: the same for every run of the
        benchmark (its layout is shared), so it is made once per layout and cut."""
        strata = self.layout.strata
        found = _PLANS.get((id(strata), cut, key))
        if found is None or found[0] is not strata:
            mask = self.mask(cut, key)
            masked = strata[mask]
            present, at = np.unique(masked, return_inverse=True)
            columns = np.zeros((masked.size, present.size))
            columns[np.arange(masked.size), at] = 1.0
            plan = CutPlan(np.flatnonzero(mask), columns, columns.sum(axis=0).astype(np.int64))
            found = _PLANS[id(strata), cut, key] = (strata, plan)
        return found[1]

    def counts(
        self, metric: Metric, cut: Cut | None, key: str = ""
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """`strata` of a 0/1 rate as counts: the ones and the items per stratum present in the
        cut (in order), which is all a bootstrap of 0/1 values needs."""
        plan = self.plan(cut, key)
        return plan.ones(self.values(metric)[np.newaxis])[0], plan.sizes

    def stratum_values(self, metric: Metric) -> list[Floats]:
        """Every item's `metric` (0/1), split by stratum: the cells the Sum, the rliable
        scores and the instance variance are made of."""
        return self.strata(self.values(metric), self.mask(None))

    def sum_of(self, metric: Metric) -> float:
        """One run's Sum (0-1): the mean over strata of the per-stratum rate (the
        `stratified_mean` of `stratum_values`, from counts)."""
        ones, sizes = self.counts(metric, None)
        return float(np.mean(ones / sizes))


@dataclass(frozen=True)
class CutPlan:
    """A cut of a benchmark layout: its items' positions, a 0/1 column per stratum present
    (in order), and the items per stratum."""

    positions: NDArray[np.intp]
    columns: Floats
    sizes: NDArray[np.int64]

    def ones(self, values: Floats) -> NDArray[np.int64]:
        """(runs, strata) ones of 0/1 `values` (runs, items) in the cut, per stratum."""
        return np.rint(values[:, self.positions] @ self.columns).astype(np.int64)


_ARRAYS: dict[tuple[int, Answers], SuiteArrays] = {}
_PLANS: dict[tuple[int, Cut | None, str], tuple[NDArray[np.int64], CutPlan]] = {}


def suite_sums(
    task: Task[Any, Any], result: BaseModel, answers: Answers
) -> dict[Metric, float | None]:
    """One run's Sum (0-1) of every rate of `task` on `result`; None for one it cannot give."""
    arrays = SuiteArrays.from_result(task, result, answers)
    return {r.key: arrays.sum_of(r.key) if arrays.has(r.key) else None for r in task.board_rates}
