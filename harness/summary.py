"""The end-of-comparison table: per designer, 3/4/5-agent valid and optimal "Sum" rates.

Both optimal rates are shown: makespan-optimal (the paper's definition) and SOC-optimal.

"Sum" follows the paper: the mean over map sizes of the per-size rate, per agent count. With
several seeds the table shows the mean over seeds; intervals belong to the leaderboards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import mean
from typing import NamedTuple

from rich.table import Table

from harness.design_tally import tally_design_steps
from harness.records import ResultRecord, SuiteResult


class SuiteSum(NamedTuple):
    """A suite's "Sum" (mean over map sizes of the per-size rate) of each rate, as fractions.

    `optimal_makespan` is the paper's optimal rate; it and `optimal_soc` are None when the
    record's answers were judged without that exact minimum (suites before version 2 carry no
    makespan minima), so a reader never sees another rate in its place.
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


def mean_sum(sums: Sequence[SuiteSum]) -> SuiteSum:
    """The mean over seeds of each rate; unknown when any seed's is."""
    return SuiteSum(
        mean(s.valid for s in sums),
        _known_mean([s.optimal_makespan for s in sums]),
        _known_mean([s.optimal_soc for s in sums]),
    )


def pct(rate: float | None) -> str:
    """A fraction as a percentage with one decimal; 'n/a' when unknown."""
    return "n/a" if rate is None else f"{100 * rate:.1f}"


RATE_LABELS = ("valid", "opt. makespan", "opt. SOC")
"""The rows of each designer in `comparison_table`, in `SuiteSum` order."""


def comparison_table(records: Sequence[ResultRecord]) -> Table:
    """Designers as row groups, one row per rate; per suite the Sum (%), mean over seeds.

    A row per rate rather than three numbers per cell, so the table fits 80 columns and no
    cell wraps (the leaderboards lay rates out the same way)."""
    suites = sorted({name for r in records for name in r.suites})
    table = Table(
        title="Sum (%): mean over sizes of the per-size rate, mean over seeds (greedy)",
        caption="opt. makespan: valid at the exact minimal makespan, the paper's 'opt.'",
    )
    table.add_column("designer", style="bold")
    table.add_column("seeds", justify="right")
    table.add_column("rate", no_wrap=True)
    for suite in suites:
        table.add_column(suite, justify="right")
    table.add_column("design steps")
    for designer in sorted({r.designer for r in records}):
        mine = [r for r in records if r.designer == designer]
        sums = [
            mean_sum(found) if (found := [size_mean(r.suites[s]) for r in mine if s in r.suites])
            else None
            for s in suites
        ]  # fmt: skip
        for k, label in enumerate(RATE_LABELS):
            first = k == 0
            table.add_row(
                designer if first else "", str(len(mine)) if first else "", label,
                *("-" if total is None else pct(total[k]) for total in sums),
                (design_note(mine) or "all designed") if first else "",
                end_section=k == len(RATE_LABELS) - 1,
            )  # fmt: skip
    return table


def design_note(records: Sequence[ResultRecord]) -> str | None:
    """'2/19 design steps failed: rate limit' over `records`, or None when none failed."""
    tally = tally_design_steps(records)
    return None if tally is None else tally.summary
