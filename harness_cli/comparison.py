"""The end-of-comparison table: per designer, 3/4/5-agent valid and optimal "Sum" rates.

With several seeds the table shows the mean over seeds; intervals belong to the leaderboards.
The table fits 80 columns (logs, CI, pipes) with no cell wrapped or cut: how each designer's
design steps went is said under it, one line per designer some of whose steps failed, marked
`‡` in the table as the boards mark it, the reasons (however long) in full. A count of runs is
headed `runs`, so that a `1` reads as one run, not as seed 1 (ids are always "seed 0").
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from leaderboards.render.cells import DESIGN_MARK
from run_records import ResultRecord, mean_sum, pct, size_mean, tally_design_steps

RATE_LABELS = ("valid", "opt. makespan", "opt. SOC")
"""The rows of each designer in `comparison_table`, in `SuiteSum` order."""
ALL_DESIGNED = "design steps: none failed"
"""Said under the table when no designer has a failed design step."""


def comparison(records: Sequence[ResultRecord]) -> Group:
    """The table, and under it how the design steps went (`design_lines`)."""
    return Group(comparison_table(records), *(Text(line) for line in design_lines(records)))


def comparison_table(records: Sequence[ResultRecord]) -> Table:
    """Designers as row groups, one row per rate; per suite the Sum (%), mean over seeds.

    A row per rate rather than three numbers per cell, and design failures under the table
    rather than in a column, so the table fits 80 columns and no cell wraps (the leaderboards
    lay rates out the same way). Designer names are user- and model-written, so they go in as
    plain `Text`: a name such as `[link=...]x[/link]` prints as written instead of as rich
    markup; a name too long for the width folds rather than being cut."""
    suites = sorted({name for r in records for name in r.suites})
    table = Table(
        title="Sum (%), greedy: mean over sizes of the per-size rate, then seeds",
        caption="opt. makespan: valid at the minimal makespan, the paper's 'opt.'",
    )  # both as narrow as the table of three suites, so that neither wraps
    table.add_column("designer", style="bold", overflow="fold")
    table.add_column("runs", justify="right")
    table.add_column("rate", no_wrap=True)
    for suite in suites:
        table.add_column(suite, justify="right")
    for designer in sorted({r.designer for r in records}):
        mine = [r for r in records if r.designer == designer]
        name = f"{designer} {DESIGN_MARK}" if design_note(mine) else designer
        sums = [
            mean_sum(found) if (found := [size_mean(r.suites[s]) for r in mine if s in r.suites])
            else None
            for s in suites
        ]  # fmt: skip
        for k, label in enumerate(RATE_LABELS):
            first = k == 0
            table.add_row(
                Text(name) if first else "", str(len(mine)) if first else "", label,
                *("-" if total is None else pct(total[k]) for total in sums),
                end_section=k == len(RATE_LABELS) - 1,
            )  # fmt: skip
    return table


def design_lines(records: Sequence[ResultRecord]) -> list[str]:
    """`‡ gpt: 2/19 design steps failed: rate limit (429)` per designer some of whose design
    steps failed, or `ALL_DESIGNED`: a step that could not design is shown, never passed over."""
    lines = []
    for designer in sorted({r.designer for r in records}):
        note = design_note([r for r in records if r.designer == designer])
        if note is not None:
            lines.append(f"{DESIGN_MARK} {designer}: {note}")
    return lines or [ALL_DESIGNED]


def design_note(records: Sequence[ResultRecord]) -> str | None:
    """'2/19 design steps failed: rate limit' over `records`, or None when none failed."""
    tally = tally_design_steps(records)
    return None if tally is None else tally.summary
