"""The paper's headline metric: per suite, the "Sum" of the valid and optimal rates.

"Sum" follows the paper: the mean over map sizes of the per-size rate, per agent count. Both
optimal rates are kept: makespan-optimal (the paper's definition) and SOC-optimal. The harness's
tables and the boards compute it here, so a number called "Sum" means one thing everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import mean
from typing import NamedTuple

from tasks.mapf_frozenlake.records import SuiteResult


class SuiteSum(NamedTuple):
    """A suite's "Sum" (mean over map sizes of the per-size rate) of each rate, as fractions.

    `optimal_makespan` is the paper's optimal rate; it and `optimal_soc` are None when the
    record's answers were judged without that exact minimum (a suite version whose answer keys
    do not carry it), so a reader never sees another rate in its place.
    """

    valid: float
    optimal_makespan: float | None
    optimal_soc: float | None

    def text(self, percent: Callable[[float | None], str]) -> str:
        """'valid / opt. makespan / opt. SOC' in the caller's number format."""
        return " / ".join(percent(v) for v in (self.valid, self.optimal_makespan, self.optimal_soc))


SUM_HEADER = "valid / opt. makespan (paper's) / opt. SOC"
"""How every harness table names the three rates of a `SuiteSum`."""


def size_mean(result: SuiteResult, best_of: bool = False) -> SuiteSum:
    """The suite's Sum of each rate: the mean of its per-size rates (greedy or best-of-n)."""
    report = result.best_of if best_of else result.greedy
    sizes = list(report.per_size.values())
    if not sizes:
        return SuiteSum(0.0, None, None)
    return SuiteSum(
        mean(c.valid_rate for c in sizes),
        _known_mean([c.optimal_makespan_rate for c in sizes]),
        _known_mean([c.optimal_soc_rate for c in sizes]),
    )


def _known_mean(rates: Sequence[float | None]) -> float | None:
    known = [r for r in rates if r is not None]
    return mean(known) if len(known) == len(rates) else None


def pct(rate: float | None) -> str:
    """A fraction as a percentage with one decimal; 'n/a' when unknown."""
    return "n/a" if rate is None else f"{100 * rate:.1f}"
