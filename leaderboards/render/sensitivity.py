"""The sensitivity lines as a reader meets them: which lines, in which order, and whether each
one's interval clears 0 on the side its control must reach.

A board shows each control against random first (`Controls.positive_minus_zero`, then
`negative_minus_zero`), then the older matched - harder (`Controls.sensitivity`). The tables
(`leaderboards.render.statistics`) and the site's captions (`leaderboards.site.figures`) both
say what a line lets the budget see from here, so they cannot disagree: matched must beat random
beyond its interval or the budget cannot see a good designer; harder must fall below it or the
budget cannot see a bad one; matched - harder only says whether the two are told apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from leaderboards.board import Controls, Delta
from leaderboards.metrics import Metric

Side = Literal["above", "below", "apart"]
"""Where a line's interval must lie: above 0, below 0, or anywhere but across 0."""


@dataclass(frozen=True)
class Line:
    """One sensitivity line: `first` minus `second`, per metric, and where it must lie."""

    first: str
    second: str
    deltas: Mapping[Metric, Delta]
    side: Side

    @property
    def label(self) -> str:
        return f"{self.first} - {self.second}"


def sensitivity_lines(controls: Controls) -> list[Line]:
    """The lines the controls hold, in the order a board shows them."""
    found = [
        Line(controls.positive, controls.zero, controls.positive_minus_zero, "above"),
        Line(controls.negative, controls.zero, controls.negative_minus_zero, "below"),
        Line(controls.positive, controls.negative, controls.sensitivity, "apart"),
    ]
    return [line for line in found if line.deltas]


def clears(d: Delta, side: Side) -> bool | None:
    """Whether `d`'s interval lies wholly on `side` of 0; None without an interval (one seed)."""
    if d.low is None or d.high is None:
        return None
    if side == "above":
        return d.low > 0
    if side == "below":
        return d.high < 0
    return not d.low <= 0 <= d.high


def verdict(line: Line, metrics: Sequence[Metric], short: Callable[[Metric], str]) -> str:
    """What `line` on `metrics` (those it holds) lets this budget see, in one clause."""
    shown = [m for m in metrics if m in line.deltas]
    cleared = {m: clears(line.deltas[m], line.side) for m in shown}
    if None in cleared.values():
        return "no interval (one seed), so whether it clears 0 is unknown"
    which = "its interval" if len(shown) == 1 else "every interval"
    failed = [short(m) for m, ok in cleared.items() if not ok]
    if line.side == "apart":
        if not failed:
            return f"{which} excludes 0, so this budget tells the controls apart"
        if len(failed) == len(shown):
            return f"{which} includes 0, so this budget cannot tell the controls apart"
        return (f"the interval includes 0 on {_listed(failed)}: on {_those(failed)} this budget "
                "cannot tell the controls apart")  # fmt: skip
    where, sees = ("above", "good") if line.side == "above" else ("below", "bad")
    if not failed:
        return f"{which} lies {where} 0, so this budget can see a {sees} designer"
    beats = "beat" if line.side == "above" else "fall below"
    why = (f"{line.first} does not {beats} {line.second} beyond its interval, so this budget "
           f"cannot see a {sees} designer")  # fmt: skip
    if len(failed) < len(shown):
        return (
            f"the interval does not lie {where} 0 on {_listed(failed)}: on {_those(failed)} {why}"
        )
    return (
        f"{'its interval does not lie' if len(shown) == 1 else 'no interval lies'} {where} 0: {why}"
    )


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _those(names: Sequence[str]) -> str:
    return "that rate" if len(names) == 1 else "those rates"
