"""A designer's configuration over rounds: ratio, hole_ratio and wait_ratio per map size x round.

Heatmaps, one per field; with several runs, the mean over them (per cell). The colour scales
are fixed (hole_ratio to its legal top, wait_ratio to 1, ratio to `ratio_limit` shared by every
trajectory of a site), so two designers' heatmaps compare at a glance. Rounds are labelled from
1, as the CLI numbers them (`harness runs show`), though the records count from 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from leaderboards.plots.canvas import draw
from mapf_env.config import MAX_HOLE_RATIO
from run_records import ResultRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIELDS = ("ratio", "hole_ratio", "wait_ratio")
FIELD_LIMITS = {"ratio": None, "hole_ratio": MAX_HOLE_RATIO, "wait_ratio": 1.0}


def config_grid(records: Sequence[ResultRecord], field: str) -> tuple[list[int], list[list[float]]]:
    """(sizes, values[size][round]) of one config field, the mean over `records` per cell."""
    rounds = min(len(r.rounds) for r in records)
    sizes = sorted(records[0].rounds[0].config.sizes)
    grid = [
        [
            sum(getattr(r.rounds[n].config.sizes[s], field) for r in records) / len(records)
            for n in range(rounds)
        ]
        for s in sizes
    ]
    return sizes, grid


def ratio_limit(records: Sequence[ResultRecord]) -> float:
    """A shared top for the ratio colour scale: the largest ratio seen, at least 0.25."""
    top = max(
        (c.ratio for r in records for rnd in r.rounds for c in rnd.config.sizes.values()),
        default=0.25,
    )
    return max(0.25, round(top + 0.049, 1))


def trajectory_svg(records: Sequence[ResultRecord], title: str, ratio_top: float = 0.5) -> str:
    """Heatmaps of ratio, hole_ratio and wait_ratio per map size x round (mean over records)."""
    if not records or not all(r.rounds for r in records):
        raise ValueError("a trajectory needs runs with at least one round")
    rounds = min(len(r.rounds) for r in records)
    annotate = rounds <= 8

    def paint(fig: Figure) -> None:
        axes = fig.subplots(1, 3, sharey=True)
        # A fixed layout: half the cost of a constrained one, and the shape never changes.
        inch = 1 / fig.get_figwidth()
        fig.subplots_adjust(left=0.85 * inch, right=1 - 0.3 * inch, bottom=0.16, top=0.84,
                            wspace=0.3)  # fmt: skip
        for ax, field in zip(axes, FIELDS, strict=True):
            sizes, grid = config_grid(records, field)
            top = FIELD_LIMITS[field] or ratio_top
            image = ax.imshow(grid, aspect="auto", origin="lower", cmap="viridis", vmin=0.0,
                              vmax=top, interpolation="nearest")  # fmt: skip
            ax.set_title(field)
            ax.set_xlabel("round")
            columns = range(0, rounds, -(-rounds // 10))
            ax.set_xticks(columns, [str(n + 1) for n in columns])
            ax.set_yticks(range(len(sizes)), [f"{s}x{s}" for s in sizes])
            ax.grid(False)
            if annotate:
                for i, row in enumerate(grid):
                    for j, value in enumerate(row):
                        shade = "black" if value > 0.6 * top else "white"
                        ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=6,
                                color=shade)  # fmt: skip
            fig.colorbar(image, ax=ax, fraction=0.08, pad=0.03,
                         extend="max" if field == "ratio" else "neither")  # fmt: skip
        axes[0].set_ylabel("map size")
        fig.suptitle(title)

    width = 9.0 + max(0, rounds - 8) * 0.25
    return draw(min(width, 16.0), 3.0, paint, constrained=False)
