"""Validation curves per round (sample efficiency): mean over seeds with a band over seeds.

Each round's validation report (the task's validation suite, MAPF: 2 agents) gives a rate per
run, read through the task (`Task.rates`; `validation_rate`; the site's validation plot draws
these curves). The band resamples seeds with the designer's own seed draws -- the ones behind
its Sum intervals -- so one resampled set of seeds stands behind every number of a designer. A
rate some run's reports do not count gets no curve, rather than a mean over the runs that have
it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel

from leaderboards.board import RoundCurve
from leaderboards.bootstrap import intervals
from leaderboards.groups import Group
from leaderboards.metrics import Metric
from run_records import ResultRecord
from tasks import BoardRate, Rates, Task

DIGITS = 4


def validation_rate(
    task: Task[Any, Any], record: ResultRecord, metric: Metric
) -> list[float] | None:
    """A run's validation `metric` (%) per round; None when some round's report lacks it."""
    rates = [report_rates(task, rnd.validation)[metric] for rnd in record.rounds]
    if any(rate is None for rate in rates):
        return None
    return [100 * rate for rate in rates if rate is not None]


def report_rates(task: Task[Any, Any], report: BaseModel) -> dict[Metric, float | None]:
    """Each board rate of a validation report, overall (0-1; None where it lacks one)."""
    overall = task.rates(report).overall
    return {rate.key: _read(rate, overall) for rate in task.board_rates}


def _read(rate: BoardRate, rates: Rates) -> float | None:
    """`rate` of a report's `Rates` (an optimal kind's name matched whatever its case)."""
    if rate.optimal is None:
        return rates.valid_rate
    kind = rate.optimal.lower()
    return next((v for k, v in rates.optimal.items() if k.lower() == kind), None)


def round_curves(g: Group) -> list[RoundCurve]:
    """`g`'s curve per metric its runs' validation reports all hold; none without rounds."""
    records = [run.record for run in g.runs]
    if not all(r.rounds for r in records):
        return []
    out = []
    for metric in g.metrics:
        series = [validation_rate(g.task, r, metric) for r in records]
        if any(s is None for s in series):
            continue
        rounds = min(len(s) for s in series if s is not None)
        rates = np.array([s[:rounds] for s in series if s is not None], dtype=np.float64)
        band: dict[str, tuple[float, ...]] = {}
        if len(records) > 1:
            low, high = intervals(rates[g.draws].mean(axis=1))
            band = {"low": _rounded(low), "high": _rounded(high)}
        out.append(
            RoundCurve(
                designer=g.designer, metric=metric,
                rounds=tuple(rnd.round for rnd in records[0].rounds[:rounds]),
                mean=_rounded(rates.mean(axis=0)), seeds=len(records), **band,
            )
        )  # fmt: skip
    return out


def _rounded(values: np.ndarray) -> tuple[float, ...]:
    return tuple(round(float(v), DIGITS) for v in values)
