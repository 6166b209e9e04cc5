"""Each rate per value of the task's first cut on one suite, a line per designer (MAPF-FrozenLake:
valid, makespan-optimal and SOC-optimal rate per map size).

A panel per rate, a line per ranked row (mean over seeds) with its 95% band where the board
has per-value intervals, and -- when the board carries the reference -- the paper's per-size
rows of the board's kinds (dashed, "reported, not reproduced") on the valid and makespan panels
(the paper reports no SOC-optimal rate). A rate the records cannot give (their suite version
carries no such minima) is an empty panel that says so. The panels share one rate axis fitted to
everything drawn, so a gap between panels reads as a gap between rates. Values that are whole
numbers (map sizes) lie on a number axis; others (dataset names) one beside the other, in the
board's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from leaderboards.board import Board, ReferenceRow
from leaderboards.metrics import NA, Metric
from leaderboards.plots.canvas import BAND_ALPHA, bottom_legend, designer_styles, draw, fit_range
from leaderboards.reference import size_rows

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

REFERENCE_STYLE: dict[str, Any] = {"linestyle": "--", "linewidth": 1.0, "markersize": 4}
REFERENCE_GREYS = ("0.25", "0.45", "0.6", "0.75")
REFERENCE_MARKERS = ("x", "+", "1", "s", "^", "v", "d")
PAPER_METRICS: dict[Metric, str] = {"valid": "valid", "optimal_makespan": "optimal_makespan"}
"""Panel -> the paper's figure drawn on it (it reports no SOC-optimal rate)."""

Series = tuple[list[float], list[float], list[tuple[float, float]] | None]
"""Positions on the x axis, means, and (low, high) per value where every value has one."""


def paper_rows(board: Board, suite: str) -> list[ReferenceRow]:
    """The paper's per-size rows a size plot draws: those of the kinds the board's rows are."""
    if board.reference is None:
        return []
    kinds = {row.kind for row in board.rows}
    return [r for r in size_rows(board.reference, suite) if r.kind in kinds]


def x_positions(values: Sequence[str]) -> dict[str, float]:
    """Where each value of the cut lies: at its number where every value is a whole number,
    else one after the other in the order given."""
    if all(v.isdigit() for v in values):
        return {v: float(int(v)) for v in values}
    return {v: float(i) for i, v in enumerate(values)}


def size_series(board: Board, suite: str, metric: Metric) -> dict[str, Series]:
    """Per ranked designer with cells for `metric` on `suite`: what its line draws."""
    cut = board.strata_cut
    cells = [d for d in board.details if d.suite == suite and d.cut == cut]
    info = next(s for s in board.suites if s.name == suite)
    at = x_positions([*info.strata, *(d.key for d in cells if d.key not in info.strata)])
    out: dict[str, Series] = {}
    for row in board.rows:
        mine = {at[d.key]: e for d in cells if d.designer == row.designer
                and (e := d.rates.get(metric)) is not None}  # fmt: skip
        xs = sorted(mine)
        if not xs:
            continue
        bands = [(mine[x].low, mine[x].high) for x in xs]
        known = [(lo, hi) for lo, hi in bands if lo is not None and hi is not None]
        out[row.designer] = (xs, [mine[x].mean for x in xs],
                             known if len(known) == len(xs) else None)  # fmt: skip
    return out


def size_curves_svg(board: Board, suite: str) -> str:
    """Each rate (%) per value of the board's first cut on `suite`, a line per row."""
    info = next((s for s in board.suites if s.name == suite), None)
    if info is None:
        raise ValueError(f"the board has no suite {suite!r}")
    cut = board.strata_cut
    if not any(d.suite == suite and d.cut == cut for d in board.details):
        raise ValueError(f"the board was built without the {cut!r} cut; build it with it")
    reference = paper_rows(board, suite)
    series = {m: size_series(board, suite, m) for m in board.metrics}
    paper = {m: [sorted((int(s), getattr(v, field)) for s, v in ref.sizes[suite].items())
                 for ref in reference] for m, field in PAPER_METRICS.items()}  # fmt: skip
    drawn = [v for per in series.values() for _, means, bands in per.values()
             for v in (*means, *(x for band in bands or () for x in band))]  # fmt: skip
    drawn += [v for lines in paper.values() for points in lines for _, v in points]
    limits = fit_range(drawn or [0.0], floor=0.0, ceiling=100.0)
    styles = designer_styles(board)
    at = x_positions(info.strata)
    named = not all(s.isdigit() for s in info.strata)

    def paint(fig: Figure) -> None:
        axes = fig.subplots(1, len(board.metrics), sharey=True, squeeze=False)[0]
        for ax, metric in zip(axes, board.metrics, strict=True):
            ax.set_title(f"{suite}: {board.rate(metric).short}" + (" (paper's opt.)"
                         if metric == "optimal_makespan" else ""))  # fmt: skip
            ax.set_xlabel(board.cut_titles[cut])
            if named:
                ax.set_xticks([at[s] for s in info.strata], info.strata, rotation=30,
                              ha="right")  # fmt: skip
            else:
                ax.set_xticks([int(s) for s in info.strata])
            ax.set_ylim(*limits)
            if metric in info.unavailable:
                objective = board.rate(metric).short.removeprefix("opt. ")
                ax.text(0.5, 0.95, f"{NA}: suite version {info.suite_version} records\n"
                        f"hold no {objective} minima", ha="center",
                        va="top", transform=ax.transAxes, fontsize=8, color="0.35",
                        bbox={"facecolor": "white", "edgecolor": "0.8"})  # fmt: skip
            for designer, (sizes, means, bands) in series[metric].items():
                style = styles[designer]
                if named:  # no line between values without an order; the interval as a bar
                    _points(ax, sizes, means, bands, designer, style)
                    continue
                ax.plot(sizes, means, markersize=3, label=designer, **style)
                if bands is not None:
                    low, high = ([b[k] for b in bands] for k in (0, 1))
                    ax.fill_between(sizes, low, high, color=style["color"], alpha=BAND_ALPHA,
                                    linewidth=0)  # fmt: skip
            for k, points in enumerate(paper.get(metric, ())):
                label = f"{reference[k].label} (paper: reported, not reproduced)"
                grey = REFERENCE_GREYS[k % len(REFERENCE_GREYS)]
                marker = REFERENCE_MARKERS[k % len(REFERENCE_MARKERS)]
                ax.plot([s for s, _ in points], [v for _, v in points], **REFERENCE_STYLE,
                        color=grey, marker=marker, label=label)  # fmt: skip
        axes[0].set_ylabel("rate (%), mean over seeds")
        bottom_legend(fig, axes[0], 3)

    return draw(max(11.0 * len(board.metrics) / 3, 4.4), 3.6 + 0.15 * len(reference), paint)


def _points(
    ax: Axes, xs: list[float], means: list[float], bands: list[tuple[float, float]] | None,
    designer: str, style: dict[str, Any],
) -> None:  # fmt: skip
    """A designer's means at values one beside the other: a point each, its interval a bar."""
    errors = None
    if bands is not None:
        errors = [[m - lo for m, (lo, _) in zip(means, bands, strict=True)],
                  [hi - m for m, (_, hi) in zip(means, bands, strict=True)]]  # fmt: skip
    ax.errorbar(xs, means, yerr=errors, linestyle="none", marker=style["marker"],
                color=style["color"], markersize=4, capsize=3, label=designer)  # fmt: skip
