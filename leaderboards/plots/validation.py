"""Validation rate per round (sample efficiency): a line per designer with its band over seeds.

Drawn from the board's `curves` (`RoundCurve`: the mean over seeds of the 2-agent validation
rate after each round's training, with a 95% band over seeds where a designer ran several).
A panel per rate the curves hold -- a rate the rounds' reports do not count has no curves and
no panel, so no panel is ever empty. Only ranked designers are drawn: an unranked
one trained on its starting configuration throughout, and its curve would be that configuration's.
The panels share one rate axis fitted to every mean and band end. Rounds are numbered from 1,
as the CLI numbers them (`harness runs show`); the board's `rounds` count from 0, as the records
do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboards.board import Board, RoundCurve
from leaderboards.metrics import Metric
from leaderboards.plots.canvas import BAND_ALPHA, bottom_legend, designer_styles, draw, fit_range

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def ranked_curves(board: Board) -> dict[Metric, list[RoundCurve]]:
    """Per rate with curves: those of the board's ranked designers, in row order."""
    order = {r.designer: i for i, r in enumerate(board.rows) if r.kind == "designer"}
    out: dict[Metric, list[RoundCurve]] = {}
    for metric in board.metrics:
        curves = [c for c in board.curves if c.metric == metric and c.designer in order
                  and c.rounds]  # fmt: skip
        if curves:
            out[metric] = sorted(curves, key=lambda c: order[c.designer])
    return out


def validation_svg(board: Board) -> str:
    """Validation valid / makespan- / SOC-optimal rate (%) per round, a panel per rate held."""
    panels = ranked_curves(board)
    if not panels:
        raise ValueError("the board holds no validation curves of ranked designers")
    drawn = [v for curves in panels.values() for c in curves
             for v in (*c.mean, *(c.low or ()), *(c.high or ()))]  # fmt: skip
    limits = fit_range(drawn, floor=0.0, ceiling=100.0)
    rounds = sorted({n + 1 for curves in panels.values() for c in curves for n in c.rounds})
    styles = designer_styles(board)

    def paint(fig: Figure) -> None:
        axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
        for ax, (metric, curves) in zip(axes, panels.items(), strict=True):
            for c in curves:
                style = styles[c.designer]
                numbers = [n + 1 for n in c.rounds]
                ax.plot(numbers, c.mean, markersize=3, label=c.designer, **style)
                if c.low is not None and c.high is not None:
                    ax.fill_between(numbers, c.low, c.high, color=style["color"],
                                    alpha=BAND_ALPHA, linewidth=0)  # fmt: skip
            ax.set_title(f"validation {board.rate(metric).short} per round")
            ax.set_xlabel("round (after training on its config)")
            ax.set_ylim(*limits)
            ax.set_xlim(rounds[0] - 0.4, rounds[-1] + 0.4)
            ax.set_xticks(rounds[:: -(-len(rounds) // 10)])
        axes[0].set_ylabel("rate (%), mean over seeds")
        bottom_legend(fig, axes[0], 5)

    return draw(0.4 + 3.6 * len(panels), 3.3, paint)
