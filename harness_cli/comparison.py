"""The end-of-comparison table: per designer and suite, the "Sum" of each rate the task reports
(valid, and optimal in each of its senses; the mean score for a task without optima), as the
task reads its suite results (`Task.suite_rates`): the mean over the values of its first cut
(MAPF-FrozenLake: map sizes) of the per-value rate.

With several seeds the table shows the mean over seeds; intervals belong to the leaderboards.
The table fits 80 columns (logs, CI, pipes) with no cell wrapped or cut: how each designer's
design steps went is said under it, one line per designer some of whose steps failed, marked
`‡` in the table as the boards mark it, the reasons (however long) in full. A count of runs is
headed `runs`, so that a `1` reads as one run, not as seed 1 (ids are always "seed 0").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from leaderboards.render.cells import DESIGN_MARK
from run_records import ResultRecord, pct, recorded_task, tally_design_steps
from tasks import Rates, Task, mean_rates

ALL_DESIGNED = "design steps: none failed"
"""Said under the table when no designer has a failed design step."""


def comparison(records: Sequence[ResultRecord], task: Task[Any, Any] | None = None) -> Group:
    """The table, and under it how the design steps went (`design_lines`); `task` reads the
    records (by default the one the first record names)."""
    return Group(comparison_table(records, task), *(Text(line) for line in design_lines(records)))


def rate_labels(rates: Rates) -> tuple[str, ...]:
    """The rows of each designer in `comparison_table`: valid, then each optimum the task
    names (the mean score where it names none)."""
    if not rates.optimal:
        return ("valid", "score")
    return ("valid", *(f"opt. {kind}" for kind in rates.optimal))


def rate_values(rates: Rates | None) -> tuple[float | None, ...] | None:
    """`rates` in `rate_labels` order; None for a suite the designer has no run of."""
    if rates is None:
        return None
    rest = tuple(rates.optimal.values()) if rates.optimal else (rates.score,)
    return (rates.valid_rate, *rest)


def comparison_table(records: Sequence[ResultRecord], task: Task[Any, Any] | None = None) -> Table:
    """Designers as row groups, one row per rate; per suite the Sum (%), mean over seeds.

    A row per rate rather than several numbers per cell, and design failures under the table
    rather than in a column, so the table fits 80 columns and no cell wraps (the leaderboards
    lay rates out the same way). Designer names are user- and model-written, so they go in as
    plain `Text`: a name such as `[link=...]x[/link]` prints as written instead of as rich
    markup; a name too long for the width folds rather than being cut."""
    task = task or recorded_task(records[0].experiment.as_dict() if records else None)
    cut = task.cuts[0] if task.cuts else "item"
    suites = sorted({name for r in records for name in r.suites})
    sums: dict[tuple[str, str], Rates] = {}
    for designer in {r.designer for r in records}:
        for s in suites:
            found = [task.suite_rates(r.suites[s]).sum() for r in records
                     if r.designer == designer and s in r.suites]  # fmt: skip
            if found:
                sums[designer, s] = mean_rates(found)
    labels = rate_labels(next(iter(sums.values()))) if sums else ("valid",)
    first = next(iter(sums.values()), None)
    table = Table(
        title=f"Sum (%), greedy: mean over {cut}s of the per-{cut} rate, then seeds",
        caption=_caption(first),
    )  # both as narrow as the table of three suites, so that neither wraps
    table.add_column("designer", style="bold", overflow="fold")
    table.add_column("runs", justify="right")
    table.add_column("rate", no_wrap=True)
    for suite in suites:
        table.add_column(suite, justify="right")
    for designer in sorted({r.designer for r in records}):
        mine = [r for r in records if r.designer == designer]
        name = f"{designer} {DESIGN_MARK}" if design_note(mine) else designer
        values = [rate_values(sums.get((designer, s))) for s in suites]
        for k, label in enumerate(labels):
            head = k == 0
            table.add_row(
                Text(name) if head else "", str(len(mine)) if head else "", label,
                *("-" if v is None else pct(v[k]) for v in values),
                end_section=k == len(labels) - 1,
            )  # fmt: skip
    return table


def _caption(rates: Rates | None) -> str | None:
    """What the first optimum means; None for a task without optima."""
    if rates is None or not rates.optimal:
        return None
    kind = next(iter(rates.optimal))
    return f"opt. {kind}: valid at the minimal {kind}"


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
