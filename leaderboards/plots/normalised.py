"""Normalised scores: each designer's overall Sum between the fixed random configuration (0)
and the positive control `matched` (1), a point with its 95% interval per designer.

The two reference lines are the board's brackets: a designer left of 0 trained worse than no
design at all, one right of 1 beat the strongest "train on what you are tested on" fixed
configuration. Drawn from `Board.controls.normalised`; the x axis holds both lines and every
interval end, and no more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from leaderboards.board import Board, NormalisedScore
from leaderboards.metrics import Metric
from leaderboards.plots.canvas import designer_styles, draw, fit_range

if TYPE_CHECKING:
    from matplotlib.figure import Figure

REFERENCE_LINE: dict[str, Any] = {"color": "0.35", "linestyle": "--", "linewidth": 0.9}
OFF_BOARD = "0.3"
"""The colour of a score whose designer is not a ranked row (a control run alone)."""


def normalised_scores(board: Board, metric: Metric) -> list[NormalisedScore]:
    """`metric`'s normalised scores, bottom to top: designers off the board, then the rows from
    last to first (so the first row is drawn on top)."""
    if board.controls is None:
        return []
    order = {r.designer: i for i, r in enumerate(reversed(board.rows))}
    mine = [s for s in board.controls.normalised if s.metric == metric]
    return sorted(mine, key=lambda s: (order.get(s.designer, -1), s.designer))


def score_limits(scores: Sequence[NormalisedScore]) -> tuple[float, float]:
    """The score axis: both reference lines and every interval end, with a little room."""
    ends = [v for s in scores for v in (s.score, s.low, s.high)]
    return fit_range([0.0, 1.0, *ends], pad=0.08)


def normalised_svg(board: Board, metric: Metric) -> str:
    """`metric`'s normalised score per designer, 0 = `controls.zero`, 1 = `controls.positive`."""
    scores = normalised_scores(board, metric)
    if board.controls is None or not scores:
        raise ValueError(f"the board holds no normalised {metric} scores")
    controls = board.controls
    limits = score_limits(scores)
    styles = designer_styles(board)

    def paint(fig: Figure) -> None:
        ax = fig.subplots()
        ax.axvline(0.0, **REFERENCE_LINE)
        ax.axvline(1.0, **REFERENCE_LINE)
        for y, s in enumerate(scores):
            colour = styles.get(s.designer, {}).get("color", OFF_BOARD)
            if s.low is not None and s.high is not None:
                ax.errorbar([s.score], [y], xerr=[[s.score - s.low], [s.high - s.score]],
                            fmt="o", color=colour, markersize=5, capsize=3)  # fmt: skip
            else:
                ax.plot([s.score], [y], "o", color=colour, markersize=5, fillstyle="none")
        ax.set_yticks(range(len(scores)), [s.designer for s in scores])
        ax.set_ylim(-0.6, len(scores) - 0.4)
        ax.set_xlim(*limits)
        ax.grid(False, axis="y")
        top = ax.get_xaxis_transform()
        # Outward from each line, so the two labels never overlap however close 0 and 1 lie.
        for x, name, side in ((0.0, controls.zero, "right"), (1.0, controls.positive, "left")):
            ax.text(x, 1.01, f" {x:.0f} = {name} ", transform=top, ha=side, va="bottom",
                    fontsize=7, color="0.35")  # fmt: skip
        ax.set_title(f"normalised {board.rate(metric).short}", pad=14)
        ax.set_xlabel(f"overall {board.rate(metric).short} Sum, rescaled: 0 = {controls.zero}, "
                      f"1 = {controls.positive}")  # fmt: skip

    return draw(5.2, 1.2 + 0.3 * len(scores), paint)
