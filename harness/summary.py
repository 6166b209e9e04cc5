"""The end-of-comparison table: per designer, 3/4/5-agent valid and optimal "Sum" rates.

"Sum" follows the paper: the mean over map sizes of the per-size rate, per agent count. With
several seeds the table shows the mean over seeds; intervals belong to the leaderboards.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import mean

from rich.table import Table

from harness.design_tally import tally_design_steps
from harness.records import ResultRecord, SuiteResult


def size_mean(result: SuiteResult, best_of: bool = False) -> tuple[float, float]:
    """(valid, optimal) Sum of one suite: the mean of the per-size rates."""
    report = result.best_of if best_of else result.greedy
    sizes = list(report.per_size.values())
    if not sizes:
        return 0.0, 0.0
    return mean(c.valid_rate for c in sizes), mean(c.optimal_rate for c in sizes)


def comparison_table(records: Sequence[ResultRecord]) -> Table:
    """Designers as rows; per suite valid / optimal Sum (%), mean over seeds."""
    suites = sorted({name for r in records for name in r.suites})
    table = Table(title="Valid / optimal rate (%), mean over sizes (greedy)")
    table.add_column("designer", style="bold")
    table.add_column("seeds", justify="right")
    for suite in suites:
        table.add_column(suite, justify="right")
    table.add_column("design steps")
    for designer in sorted({r.designer for r in records}):
        mine = [r for r in records if r.designer == designer]
        cells = []
        for suite in suites:
            pairs = [size_mean(r.suites[suite]) for r in mine if suite in r.suites]
            if not pairs:
                cells.append("-")
                continue
            valid, optimal = mean(p[0] for p in pairs), mean(p[1] for p in pairs)
            cells.append(f"{100 * valid:.1f} / {100 * optimal:.1f}")
        table.add_row(designer, str(len(mine)), *cells, design_note(mine) or "all designed")
    return table


def design_note(records: Sequence[ResultRecord]) -> str | None:
    """'2/19 design steps failed: rate limit' over `records`, or None when none failed."""
    tally = tally_design_steps(records)
    return None if tally is None else tally.summary
