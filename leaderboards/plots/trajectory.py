"""A designer's configuration over rounds, as heatmaps: a row per arm, a column per round.

The rows are the task's arms (`designers.arms`: the values of its first cut that hold a share
of the round's budget -- MAPF-FrozenLake's map sizes, reasoning-gym's datasets), the panels the
share itself and then each difficulty knob beside it (MAPF-FrozenLake: ratio, hole_ratio,
wait_ratio; reasoning-gym: weight, level), all read from what the task declares on its knobs.
With several runs a cell is the mean over the runs that have it. The colour scales are fixed
-- a difficulty knob's to its declared bounds, the share's to `share_limit` shared by every
trajectory of a site -- so two designers' heatmaps compare at a glance. Rounds are labelled
from 1, as the CLI numbers them (`harness runs show`), though the records count from 0.

A site draws one per run and one per designer: at a thousand runs, a matplotlib figure each
(about 0.7 s) would take longer than the rest of the site together, so these are written as
SVG directly: a rectangle per cell in matplotlib's viridis, labels as text. Nothing else is
drawn that a plotting library would add, and the same records give byte-identical files.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from designers.arms import Arm, budget_knob, task_arms
from designers.knob_drafts import cell_value
from leaderboards.plots.canvas import require_matplotlib
from run_records import ResultRecord
from tasks import Task

EMPTY_CELL = "#e0e0e0"
"""A cell no run has (an arm one run's configuration lacks)."""


@dataclass(frozen=True)
class Panel:
    """One heatmap: a knob's name as the configuration writes it, and its colour scale."""

    name: str
    low: float
    high: float | None
    """None for the share: its top is the site's `share_limit`, an open bound."""
    integer: bool = False
    """A whole-number knob (a curriculum level): its whole values are labelled as such."""


def heatmap_panels(task: Task[Any, Any], arms: Sequence[Arm]) -> tuple[Panel, ...]:
    """The share first, then each difficulty knob in the order the arms list them, scaled
    over every arm's bounds of it."""
    if not arms:
        return ()
    out = [Panel(str(arms[0].share[-1]), 0.0, None)]
    levers = [lever for arm in arms for lever in arm.levers]
    for name in dict.fromkeys(lever.name for lever in levers):
        mine = [lever.knob for lever in levers if lever.name == name]
        integer = all(k.integer for k in mine)
        out.append(Panel(name, min(k.low for k in mine), max(k.high for k in mine), integer))
    return tuple(out)


def heatmaps_problem(task: Task[Any, Any]) -> str | None:
    """Why `task`'s configurations cannot be drawn as heatmaps (no arms), or None."""
    if budget_knob(task) is not None:
        return None
    return (
        f"task {task.id} declares no share knob over its first cut, so its configurations "
        "have no rows to draw"
    )


Layout = dict[tuple[str, str], tuple[Any, ...]]
"""(arm, panel name) -> the cell holding it."""


def _cells(task: Task[Any, Any], record: ResultRecord) -> Layout:
    """(arm, panel name) -> the cell holding it, laid out once from the run's first round
    (a run's configurations keep one layout: projection keeps every arm of the task)."""
    out: dict[tuple[str, str], tuple[Any, ...]] = {}
    for arm in task_arms(task, record.rounds[0].config):
        out[arm.name, str(arm.share[-1])] = arm.share
        for lever in arm.levers:
            out[arm.name, lever.name] = lever.cell
    return out


def _read(config: Any, cell: tuple[Any, ...]) -> float | None:
    """The number at `cell` of `config`; None where this configuration lacks the cell."""
    try:
        return float(cell_value(config, cell))
    except (KeyError, AttributeError, TypeError, ValueError):
        return None


def config_grid(
    task: Task[Any, Any],
    records: Sequence[ResultRecord],
    panel: str,
    layouts: Sequence[Layout] | None = None,
) -> tuple[list[str], list[list[float | None]]]:
    """(arm names, values[arm][round]) of one panel, the mean over the `records` that have
    the cell (None where none has), rows in the first record's order; `layouts`: each
    record's cells, where the caller has laid them out already."""
    rounds = min(len(r.rounds) for r in records)
    layouts = [_cells(task, r) for r in records] if layouts is None else layouts
    names = list(dict.fromkeys(name for name, _ in layouts[0]))
    grid: list[list[float | None]] = []
    for name in names:
        row: list[float | None] = []
        for n in range(rounds):
            read = (
                _read(r.rounds[n].config, cells[name, panel])
                for r, cells in zip(records, layouts, strict=True)
                if (name, panel) in cells
            )
            values = [v for v in read if v is not None]
            row.append(sum(values) / len(values) if values else None)
        grid.append(row)
    return names, grid


def share_limit(task: Task[Any, Any], records: Sequence[ResultRecord]) -> float:
    """A shared top for the share's colour scale: the largest share seen, at least 0.25."""
    shares: list[float] = []
    for record in records:
        if not record.rounds:
            continue
        arms = task_arms(task, record.rounds[0].config)
        read = (_read(rnd.config, arm.share) for rnd in record.rounds for arm in arms)
        shares += [v for v in read if v is not None]
    return max(0.25, round(max(shares, default=0.25) + 0.049, 1))


def trajectory_svg(
    task: Task[Any, Any], records: Sequence[ResultRecord], title: str, share_top: float = 0.5
) -> str:
    """Heatmaps of the share and each difficulty knob per arm x round (mean over records)."""
    if not records or not all(r.rounds for r in records):
        raise ValueError("a trajectory needs runs with at least one round")
    problem = heatmaps_problem(task)
    if problem is not None:
        raise ValueError(problem)
    rounds = min(len(r.rounds) for r in records)
    cell = CELL_WIDTH if rounds <= ANNOTATED_ROUNDS else max(6.0, 176.0 / rounds)
    arms = task_arms(task, records[0].rounds[0].config)
    layouts = [_cells(task, r) for r in records]
    left = max(LEFT, LABELS_FROM + LABEL_CHAR * max((len(a.name) for a in arms), default=0))
    drawn, x, top = [], left, 1.0
    names: list[str] = []
    for panel in heatmap_panels(task, arms):
        names, grid = config_grid(task, records, panel.name, layouts)
        top = share_top if panel.high is None else panel.high
        drawn.append(_panel(panel, names, grid, top, x, cell, rounds))
        x += cell * rounds + PANEL_GAP
    widest = max(len(f"{top:g}"), len(f"{top / 2:g}"))  # the last bar's labels end the panels
    x += BAR_LABEL_AT + DIGIT_WIDTH * widest + 2 - PANEL_GAP
    title_width = TITLE_CHAR * len(title)  # set as the title's length: no font measures it here
    x = max(x, 4 + title_width + 2)
    height = TOP + CELL_HEIGHT * len(names) + BOTTOM
    y_labels = "".join(
        _text(left - 4, TOP + CELL_HEIGHT * (len(names) - i - 0.5), name, anchor="end")
        for i, name in enumerate(names)
    )
    middle = TOP + CELL_HEIGHT * len(names) / 2
    cut = task.cut_titles.get(task.cuts[0], task.cuts[0])
    y_title = (f'<text transform="translate(10 {middle:.1f}) rotate(-90)" '
               f'text-anchor="middle" font-size="9">{escape(cut)}</text>')  # fmt: skip
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{x:.1f}pt" height="{height:.1f}pt" '
        f'viewBox="0 0 {x:.1f} {height:.1f}" font-family="DejaVu Sans, sans-serif">\n'
        f"<title>{escape(title)}</title>\n"
        f'<text x="4" y="13" font-size="10" textLength="{title_width:.1f}" '
        f'lengthAdjust="spacing">{escape(title)}</text>\n'
        f'<g class="y-ticks">{y_labels}</g>{y_title}\n' + "\n".join(drawn) + "\n</svg>\n"
    )


LEFT, TOP, BOTTOM = 52.0, 34.0, 30.0
"""Room (pt) for the arms' labels (at least), the titles, and the round labels."""
LABELS_FROM, LABEL_CHAR = 20.0, 4.3
"""Where an arm's label may start (right of the axis title), and an average character of the
7 pt labels (DejaVu Sans): a dataset's name widens the room its labels take."""
CELL_WIDTH, CELL_HEIGHT = 22.0, 14.0
ANNOTATED_ROUNDS = 8
"""Up to this many rounds, every cell carries its value."""
PANEL_GAP = 56.0
"""From a panel's last column to the next panel: its colour bar and the bar's labels."""
BAR_STOPS = 11
BAR_LABEL_AT = 18.0
"""From a panel's last column to its colour bar's labels."""
TITLE_CHAR = 5.6
"""An average character of the 10 pt title (DejaVu Sans)."""
DIGIT_WIDTH = 4.5
"""A digit of the 7 pt labels (DejaVu Sans: 0.64 em)."""


def _panel(
    panel: Panel, names: list[str], grid: list[list[float | None]], top: float, left: float,
    cell: float, rounds: int,
) -> str:  # fmt: skip
    """One panel's heatmap at `left`: cells, values, round labels, title and colour bar."""
    bottom = TOP + CELL_HEIGHT * len(names)
    span = (top - panel.low) or 1.0
    parts = [f'<g class="panel" id="{escape(panel.name)}">']
    for i, row in enumerate(grid):
        y = bottom - CELL_HEIGHT * (i + 1)
        for j, value in enumerate(row[:rounds]):
            x = left + cell * j
            share = None if value is None else (value - panel.low) / span
            fill = EMPTY_CELL if share is None else _colour(share)
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" '
                         f'height="{CELL_HEIGHT:.1f}" fill="{fill}"/>')  # fmt: skip
            if rounds <= ANNOTATED_ROUNDS and share is not None and value is not None:
                shade = "black" if value - panel.low > 0.6 * span else "white"
                label = f"{value:.0f}" if panel.integer and value.is_integer() else f"{value:.2f}"
                parts.append(_text(x + cell / 2, y + CELL_HEIGHT / 2 + 2, label, size=6,
                                   fill=shade))  # fmt: skip
    step = -(-rounds // 10)
    ticks = "".join(_text(left + cell * (n + 0.5), bottom + 11, str(n + 1))
                    for n in range(0, rounds, step))  # fmt: skip
    parts.append(f'<g class="x-ticks">{ticks}</g>')
    parts.append(_text(left + cell * rounds / 2, bottom + 24, "round", size=9))
    parts.append(_text(left + cell * rounds / 2, TOP - 6, panel.name, size=9))
    parts.append(_bar(panel, top, left + cell * rounds + 6, bottom))
    parts.append("</g>")
    return "".join(parts)


def _bar(panel: Panel, top: float, x: float, bottom: float) -> str:
    """The colour bar beside a panel: its low to `top`; the share's top is open (values above
    it take its colour), so its label reads as a bound."""
    height = bottom - TOP
    stops = "".join(
        f'<stop offset="{k / (BAR_STOPS - 1):.2f}" stop-color="{_colour(k / (BAR_STOPS - 1))}"/>'
        for k in range(BAR_STOPS)
    )
    ceiling = f"\u2265{top:g}" if panel.high is None else f"{top:g}"
    at = x + BAR_LABEL_AT - 6
    labels = (_text(at, bottom, f"{panel.low:g}", anchor="start")
              + _text(at, TOP + height / 2 + 3, f"{(panel.low + top) / 2:g}", anchor="start")
              + _text(at, TOP + 6, ceiling, anchor="start"))  # fmt: skip
    name = escape(panel.name)
    return (
        f'<defs><linearGradient id="bar-{name}" x1="0" y1="1" x2="0" y2="0">{stops}'
        f'</linearGradient></defs><rect x="{x:.1f}" y="{TOP:.1f}" width="8" '
        f'height="{height:.1f}" fill="url(#bar-{name})"/>{labels}'
    )


def _text(
    x: float, y: float, text: str, *, size: float = 7.0, anchor: str = "middle",
    fill: str = "black",
) -> str:  # fmt: skip
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}" '
            f'fill="{fill}">{escape(text)}</text>')  # fmt: skip


@functools.lru_cache(maxsize=512)
def _colour(share: float) -> str:
    """viridis at `share` of the scale (clipped to 0..1), as #rrggbb."""
    require_matplotlib()
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    return str(to_hex(colormaps["viridis"](min(max(share, 0.0), 1.0))))
