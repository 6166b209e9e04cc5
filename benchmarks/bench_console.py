"""The console every benchmark script prints with: its tables are never cut, piped or not.

A rich Console that writes to a file or a pipe assumes 80 columns and shortens cells to "…" to
fit, so a benchmark logged with `> bench.txt` lost its labels and figures. Off a terminal the
console is given room for any table (`PIPED_WIDTH`); on one, at least `MIN_WIDTH` columns (a
narrower terminal wraps the lines rather than rich cutting the cells).
"""

from __future__ import annotations

from rich.console import Console

PIPED_WIDTH = 400
"""Columns when writing to a file or pipe: wider than any benchmark table."""
MIN_WIDTH = 170
"""Columns on a terminal at the least: the widest table (the solver's) fits."""


def bench_console() -> Console:
    """A console for benchmark tables: the terminal's width (at least `MIN_WIDTH`), or wide."""
    probe = Console()
    if probe.is_terminal:
        return Console(width=max(probe.width, MIN_WIDTH))
    return Console(width=PIPED_WIDTH)
