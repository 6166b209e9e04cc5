"""What a board calls a rate, and how a cell that cannot be given reads.

A board's rates are its task's (`Task.board_rates`: validity first, then each optimum the
task knows; MAPF-FrozenLake's are valid, makespan-optimal -- the paper's "opt." -- and
SOC-optimal), each a 0/1 flag per answer. A suite result that cannot give a rate (its items
carry no such optimum) has no array for it: boards show such a cell as "n/a" with
the reason the task gives (`unavailable_line`) -- never 0, and never another rate in its place.
"""

from __future__ import annotations

from collections.abc import Iterable

from tasks import BoardRate

Metric = str
"""A rate's key (`BoardRate.key`): ``valid``, ``optimal_makespan``, ..."""

NA = "n/a"


def rate_keys(rates: Iterable[BoardRate]) -> tuple[Metric, ...]:
    return tuple(r.key for r in rates)


def unavailable_line(suites: str, reason: str) -> str:
    """Why the cells of `suites` (one name, or several joined) read n/a for a rate."""
    return f"{NA}: the {suites} {reason}"
