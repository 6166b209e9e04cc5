"""The end-of-comparison table: per designer, 3/4/5-agent valid and optimal "Sum" rates.

With several seeds the table shows the mean over seeds; intervals belong to the leaderboards.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from run_records import ResultRecord, mean_sum, pct, size_mean, tally_design_steps

RATE_LABELS = ("valid", "opt. makespan", "opt. SOC")
"""The rows of each designer in `comparison_table`, in `SuiteSum` order."""


def comparison_table(records: Sequence[ResultRecord]) -> Table:
    """Designers as row groups, one row per rate; per suite the Sum (%), mean over seeds.

    A row per rate rather than three numbers per cell, so the table fits 80 columns and no
    cell wraps (the leaderboards lay rates out the same way). Designer names and design
    failure reasons are user- and model-written, so they go in as plain `Text`: a name such as
    `[link=...]x[/link]` prints as written instead of as rich markup."""
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
                Text(designer) if first else "", str(len(mine)) if first else "", label,
                *("-" if total is None else pct(total[k]) for total in sums),
                Text(design_note(mine) or "all designed") if first else "",
                end_section=k == len(RATE_LABELS) - 1,
            )  # fmt: skip
    return table


def design_note(records: Sequence[ResultRecord]) -> str | None:
    """'2/19 design steps failed: rate limit' over `records`, or None when none failed."""
    tally = tally_design_steps(records)
    return None if tally is None else tally.summary
