"""Performance profiles: the share of run-task scores above each threshold tau, a line per row.

rliable's view of a whole score distribution (Agarwal et al. 2021): a run-task score is one
run's rate on one suite x map size, and a line that lies above another everywhere is better
whatever threshold a reader cares about. Drawn from the board's `profiles`, with the 95% band
where a designer ran several seeds. The tau axis is cut to where some profile moves: below
it every share is 1 and above it every share is 0, and a 0-100 axis would squeeze the part
that tells designers apart into a sliver when all scores lie in 20-45.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from leaderboards.board import Board, Profile
from leaderboards.metrics import Metric
from leaderboards.plots.canvas import BAND_ALPHA, bottom_legend, designer_styles, draw, fit_range

if TYPE_CHECKING:
    from matplotlib.figure import Figure

EDGE = 1e-9
"""Shares are counts over counts: 1 and 0 are exact, this only absorbs float noise."""


def ranked_profiles(board: Board, metric: Metric) -> list[Profile]:
    """`metric`'s profiles of the board's ranked rows, in row order."""
    order = {(r.kind, r.designer): i for i, r in enumerate(board.rows)}
    mine = [p for p in board.profiles if p.metric == metric and (p.kind, p.designer) in order]
    return sorted(mine, key=lambda p: order[p.kind, p.designer])


def moving_taus(profiles: Sequence[Profile]) -> list[float]:
    """Thresholds bracketing where some profile (or band) is neither 1 nor 0."""
    out: list[float] = []
    for p in profiles:
        last = len(p.taus) - 1
        for series in (p.share, p.low, p.high):
            if series is None:
                continue
            below_one = [k for k, s in enumerate(series) if s < 1 - EDGE]
            above_zero = [k for k, s in enumerate(series) if s > EDGE]
            if below_one:
                out.append(p.taus[max(below_one[0] - 1, 0)])
            if above_zero:
                out.append(p.taus[min(above_zero[-1] + 1, last)])
    return out


def profiles_svg(board: Board, metric: Metric) -> str:
    """`metric`'s performance profile of every ranked row: share of scores above tau (%)."""
    profiles = ranked_profiles(board, metric)
    if not profiles:
        raise ValueError(f"the board holds no {metric} profiles of ranked rows")
    taus = moving_taus(profiles) or [profiles[0].taus[0], profiles[0].taus[-1]]
    x_limits = fit_range(taus, floor=0.0, ceiling=100.0, min_span=5.0, pad=0.03)
    shares = [v for p in profiles for series in (p.share, p.low, p.high) for v in series or ()]
    y_limits = fit_range(shares, floor=0.0, ceiling=1.0, min_span=0.05, pad=0.04)
    styles = designer_styles(board)

    def paint(fig: Figure) -> None:
        ax = fig.subplots()
        for p in profiles:
            style = styles[p.designer]
            label = p.designer + (" (zero-shot)" if p.kind == "policy" else "")
            ax.plot(p.taus, p.share, color=style["color"], linewidth=1.4, label=label)
            if p.low is not None and p.high is not None:
                ax.fill_between(p.taus, p.low, p.high, color=style["color"], alpha=BAND_ALPHA,
                                linewidth=0)  # fmt: skip
        ax.set_xlim(*x_limits)
        ax.set_ylim(*y_limits)
        ax.set_title(f"performance profile: {board.rate(metric).short}")
        ax.set_xlabel(f"threshold tau: {board.rate(metric).short} rate (%)")
        ax.set_ylabel("share of run-task scores > tau")
        bottom_legend(fig, ax, 3)

    return draw(5.2, 3.5, paint)
