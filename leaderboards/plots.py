"""The board's plots as SVG text, drawn with matplotlib (install `envdesign-bench[site]`).

Three kinds, all from the board and the runs' `ResultRecord`s:

- `size_curves_svg`: valid, makespan-optimal (the paper's "opt.") and SOC-optimal rate per map
  size on one benchmark suite, a panel each, a line per designer (mean over seeds) with its 95%
  band where the board has per-size intervals, and -- when the board carries the reference --
  the paper's per-size rows of the board's kinds (dashed, "reported, not reproduced") on the
  valid and makespan panels (the paper reports no SOC-optimal rate). A rate the records cannot
  give (suite version 1 has no makespan minima) is an empty panel that says so.
- `trajectory_svg`: a designer's configuration over rounds -- ratio, hole_ratio and wait_ratio
  per map size x round, as heatmaps; with several runs, the mean over them (per cell).
- `validation_svg`: the 2-agent validation valid, makespan-optimal and SOC-optimal rate per
  round, a line per designer (mean over seeds) with its seeds' own lines faint behind it; a
  rate the rounds' reports do not hold (older records) is left out of its panel, which says so.

Figures never touch pyplot or the process-wide backend: each is a `Figure` on an Agg canvas,
saved as SVG under `rc_context` with a fixed hash salt, no date and glyphs drawn as paths, so
the same runs give byte-identical files that need no fonts to display.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from harness.records import ResultRecord
from leaderboards.board import Board, ReferenceRow
from leaderboards.metrics import METRICS, NA, SHORT, Metric
from leaderboards.reference import size_rows
from mapf_env.config import MAX_HOLE_RATIO

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SVG_SALT = "envdesign-bench"
RC: dict[str, Any] = {
    "svg.hashsalt": SVG_SALT,
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
FIELDS = ("ratio", "hole_ratio", "wait_ratio")
FIELD_LIMITS = {"ratio": None, "hole_ratio": MAX_HOLE_RATIO, "wait_ratio": 1.0}
REFERENCE_STYLE: dict[str, Any] = {"linestyle": "--", "linewidth": 1.0, "markersize": 4}
REFERENCE_GREYS = ("0.25", "0.45", "0.6", "0.75")
REFERENCE_MARKERS = ("x", "+", "1", "s", "^", "v", "d")
PAPER_METRICS: dict[Metric, str] = {"valid": "valid", "optimal_makespan": "optimal_makespan"}
"""Panel -> the paper's figure drawn on it (it reports no SOC-optimal rate)."""


def require_matplotlib() -> None:
    """Raise ImportError naming the extra to install when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as err:
        raise ImportError(
            "plots and the static site need matplotlib: pip install 'envdesign-bench[site]'"
        ) from err


def _figure(width: float, height: float, constrained: bool = True) -> Figure:
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained" if constrained else None)
    FigureCanvasAgg(fig)
    return fig


def _svg(fig: Figure) -> str:
    import matplotlib

    buffer = io.StringIO()
    creator = f"envdesign-bench, matplotlib {matplotlib.__version__}"  # no URL in the file
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": creator})
    return buffer.getvalue()


def _draw(width: float, height: float, draw: Any, constrained: bool = True) -> str:
    """Build, draw and save one figure, all under the fixed style."""
    require_matplotlib()
    import matplotlib

    with matplotlib.rc_context(cast(Any, RC)):  # typed as Literal keys in newer matplotlib
        fig = _figure(width, height, constrained)
        draw(fig)
        return _svg(fig)


def paper_rows(board: Board, suite: str) -> list[ReferenceRow]:
    """The paper's per-size rows a size plot draws: those of the kinds the board's rows are."""
    if board.reference is None:
        return []
    kinds = {row.kind for row in board.rows}
    return [r for r in size_rows(board.reference, suite) if r.kind in kinds]


def size_curves_svg(board: Board, suite: str) -> str:
    """Valid, makespan-optimal and SOC-optimal rate (%) per map size on `suite`, a line per row."""
    info = next((s for s in board.suites if s.name == suite), None)
    if info is None:
        raise ValueError(f"the board has no suite {suite!r}")
    cells = [d for d in board.details if d.suite == suite and d.cut == "size"]
    if not cells:
        raise ValueError("the board was built without the 'size' cut; build it with it")
    reference = paper_rows(board, suite)

    def draw(fig: Figure) -> None:
        axes = fig.subplots(1, len(METRICS), sharey=True)
        for ax, metric in zip(axes, METRICS, strict=True):
            ax.set_title(f"{suite}: {SHORT[metric]}" + (" (paper's opt.)"
                         if metric == "optimal_makespan" else ""))  # fmt: skip
            ax.set_xlabel("map size (N x N)")
            ax.set_xticks(list(info.sizes))
            ax.set_ylim(0, 100)
            if metric in info.unavailable:
                ax.text(0.5, 0.95, f"{NA}: suite version {info.suite_version or 1} records\n"
                        f"hold no {SHORT[metric].removeprefix('opt. ')} minima", ha="center",
                        va="top", transform=ax.transAxes, fontsize=8, color="0.35",
                        bbox={"facecolor": "white", "edgecolor": "0.8"})  # fmt: skip
            for row in board.rows:
                mine = {int(d.key): e for d in cells if d.designer == row.designer
                        and (e := d.rates.get(metric)) is not None}  # fmt: skip
                sizes = sorted(mine)
                if not sizes:
                    continue
                means = [mine[s].mean for s in sizes]
                (line,) = ax.plot(sizes, means, marker="o", markersize=3, label=row.designer)
                bands = [(mine[s].low, mine[s].high) for s in sizes]
                if all(lo is not None and hi is not None for lo, hi in bands):
                    ax.fill_between(sizes, [b[0] for b in bands], [b[1] for b in bands],
                                    color=line.get_color(), alpha=0.18, linewidth=0)  # fmt: skip
            field = PAPER_METRICS.get(metric)
            for k, ref in enumerate(reference if field is not None else ()):
                points = sorted(
                    (int(s), getattr(v, str(field))) for s, v in ref.sizes[suite].items()
                )
                ax.plot([s for s, _ in points], [v for _, v in points], **REFERENCE_STYLE,
                        color=REFERENCE_GREYS[k % len(REFERENCE_GREYS)],
                        marker=REFERENCE_MARKERS[k % len(REFERENCE_MARKERS)],
                        label=f"{ref.label} (paper: reported, not reproduced)")  # fmt: skip
        axes[0].set_ylabel("rate (%), mean over seeds")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 3),
                   fontsize=7, frameon=False)  # fmt: skip

    return _draw(11.0, 3.8 + 0.15 * len(reference), draw)


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

    def draw(fig: Figure) -> None:
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
            ax.set_xticks(range(0, rounds, -(-rounds // 10)))
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
    return _draw(min(width, 16.0), 3.0, draw, constrained=False)


def validation_rate(record: ResultRecord, metric: Metric) -> list[float] | None:
    """A run's validation `metric` (%) per round; None when some round's report lacks it."""
    rates = [getattr(rnd.validation.overall, f"{metric}_rate") for rnd in record.rounds]
    if any(rate is None for rate in rates):
        return None
    return [100 * rate for rate in rates]


def validation_svg(runs: Mapping[str, Sequence[ResultRecord]]) -> str:
    """Validation valid, makespan- and SOC-optimal rate (%) per round: a line per designer."""

    def draw(fig: Figure) -> None:
        axes = fig.subplots(1, len(METRICS), sharey=True)
        for ax, metric in zip(axes, METRICS, strict=True):
            missing = 0
            for designer, records in runs.items():
                rated = [validation_rate(r, metric) for r in records if r.rounds]
                series = [s for s in rated if s is not None]
                missing += len(rated) - len(series)
                if not series:
                    continue
                rounds = min(len(s) for s in series)
                means = [sum(s[n] for s in series) / len(series) for n in range(rounds)]
                (line,) = ax.plot(range(rounds), means, marker="o", markersize=3, label=designer)
                if len(series) > 1:
                    for s in series:
                        ax.plot(range(len(s)), s, color=line.get_color(), alpha=0.25,
                                linewidth=0.8)  # fmt: skip
            if missing:
                ax.text(0.5, 0.95, f"{NA} for {missing} runs: their validation reports hold\n"
                        f"no {SHORT[metric]} count (no such minima)", ha="center", va="top",
                        transform=ax.transAxes, fontsize=7, color="0.35")  # fmt: skip
            ax.set_title(f"validation {SHORT[metric]} per round")
            ax.set_xlabel("round (after training on its config)")
            ax.set_ylim(0, 100)
            ax.xaxis.get_major_locator().set_params(integer=True)
        axes[0].set_ylabel("rate (%), mean over seeds")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 5),
                   fontsize=7, frameon=False)  # fmt: skip

    return _draw(11.0, 3.4, draw)
