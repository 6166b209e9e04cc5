"""How a number reads in a table: one decimal, its interval in brackets, the zero mark.

A table promises only what its cells show: its title says `[95% CI]` only when some cell has
an interval (with one seed none has), and a mark's legend is printed only under a table where
some cell carries the mark.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from leaderboards.board import Delta, Estimate
from leaderboards.metrics import NA

ZERO_MARK = "†"
ZERO_LEGEND = f"{ZERO_MARK} the 95% interval includes 0: no clear difference from the baseline"
DESIGN_MARK = "‡"
"""After a designer's name: some of its design steps failed (the table's notes say how many)."""
NO_INTERVAL = "1 seed: no interval"
"""Said once per board, for the numbers shown without brackets."""
CI = "[95% CI]"


class Ranged(Protocol):
    """A number that may have an interval (`Estimate`, `Delta`, `Improvement`, ...)."""

    @property
    def low(self) -> float | None: ...

    @property
    def high(self) -> float | None: ...


def has_interval(numbers: Iterable[Ranged | None]) -> bool:
    """Whether some of `numbers` has an interval to show."""
    return any(n is not None and n.low is not None and n.high is not None for n in numbers)


def ci_title(title: str, shown: bool) -> str:
    """`title [95% CI]` when the table shows intervals (`shown`), else `title` alone."""
    return f"{title} {CI}" if shown else title


def carries(mark: str, rows: Sequence[Sequence[str]]) -> bool:
    """Whether some cell of `rows` carries `mark`: its legend is printed only then."""
    return any(mark in cell for row in rows for cell in row)


def estimate_text(e: Estimate | None) -> str:
    """`51.7 [48.2, 55.0]`, or the bare `51.7` when the interval is unknown; `n/a` for a rate
    the records cannot give (the table's notes say why).

    Why an interval is unknown (one seed) is said once for the whole board (`NO_INTERVAL`),
    not repeated in every cell.
    """
    if e is None:
        return NA
    if e.low is None or e.high is None:
        return f"{e.mean:.1f}"
    return f"{e.mean:.1f} [{e.low:.1f}, {e.high:.1f}]"


def delta_text(d: Delta | None) -> str:
    """`+3.2 [-1.0, +7.4] †` (the mark where the interval includes 0); bare when unknown."""
    if d is None:
        return NA
    if d.low is None or d.high is None:
        return _signed(d.mean)
    mark = f" {ZERO_MARK}" if d.includes_zero else ""
    return f"{_signed(d.mean)} [{_signed(d.low)}, {_signed(d.high)}]{mark}"


def _signed(value: float) -> str:
    """One decimal with its sign; no "-0.0"."""
    text = f"{value:+.1f}"
    return "+0.0" if text == "-0.0" else text


def number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"
