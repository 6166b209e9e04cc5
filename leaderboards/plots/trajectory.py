"""A designer's configuration over rounds: ratio, hole_ratio and wait_ratio per map size x round.

Heatmaps, one per field; with several runs, the mean over them (per cell). The colour scales
are fixed (hole_ratio to its legal top, wait_ratio to 1, ratio to `ratio_limit` shared by every
trajectory of a site), so two designers' heatmaps compare at a glance. Rounds are labelled from
1, as the CLI numbers them (`harness runs show`), though the records count from 0.

A site draws one per run and one per designer: at a thousand runs, a matplotlib figure each
(about 0.7 s) would take longer than the rest of the site together, so these are written as
SVG directly: a rectangle per cell in matplotlib's viridis, labels as text. Nothing else is
drawn that a plotting library would add, and the same records give byte-identical files.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from html import escape

from leaderboards.plots.canvas import require_matplotlib
from mapf_env.config import MAX_HOLE_RATIO
from run_records import ResultRecord

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
    cell = CELL_WIDTH if rounds <= ANNOTATED_ROUNDS else max(6.0, 176.0 / rounds)
    panels, x, top = [], LEFT, 1.0
    for field in FIELDS:
        sizes, grid = config_grid(records, field)
        top = FIELD_LIMITS[field] or ratio_top
        panels.append(_panel(field, sizes, grid, top, x, cell, rounds))
        x += cell * rounds + PANEL_GAP
    widest = max(len(f"{top:g}"), len(f"{top / 2:g}"))  # the last bar's labels end the panels
    x += BAR_LABEL_AT + DIGIT_WIDTH * widest + 2 - PANEL_GAP
    title_width = TITLE_CHAR * len(title)  # set as the title's length: no font measures it here
    x = max(x, 4 + title_width + 2)
    height = TOP + CELL_HEIGHT * len(sizes) + BOTTOM
    y_labels = "".join(
        _text(LEFT - 4, TOP + CELL_HEIGHT * (len(sizes) - i - 0.5), f"{s}x{s}", anchor="end")
        for i, s in enumerate(sizes)
    )
    middle = TOP + CELL_HEIGHT * len(sizes) / 2
    y_title = (f'<text transform="translate(10 {middle:.1f}) rotate(-90)" '
               f'text-anchor="middle" font-size="9">map size</text>')  # fmt: skip
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{x:.1f}pt" height="{height:.1f}pt" '
        f'viewBox="0 0 {x:.1f} {height:.1f}" font-family="DejaVu Sans, sans-serif">\n'
        f"<title>{escape(title)}</title>\n"
        f'<text x="4" y="13" font-size="10" textLength="{title_width:.1f}" '
        f'lengthAdjust="spacing">{escape(title)}</text>\n'
        f'<g class="y-ticks">{y_labels}</g>{y_title}\n' + "\n".join(panels) + "\n</svg>\n"
    )


LEFT, TOP, BOTTOM = 52.0, 34.0, 30.0
"""Room (pt) for the size labels, the titles, and the round labels."""
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
    field: str, sizes: list[int], grid: list[list[float]], top: float, left: float,
    cell: float, rounds: int,
) -> str:  # fmt: skip
    """One field's heatmap at `left`: cells, values, round labels, title and colour bar."""
    bottom = TOP + CELL_HEIGHT * len(sizes)
    parts = [f'<g class="panel" id="{field}">']
    for i, row in enumerate(grid):
        y = bottom - CELL_HEIGHT * (i + 1)
        for j, value in enumerate(row[:rounds]):
            x = left + cell * j
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" '
                         f'height="{CELL_HEIGHT:.1f}" fill="{_colour(value / top)}"/>')  # fmt: skip
            if rounds <= ANNOTATED_ROUNDS:
                shade = "black" if value > 0.6 * top else "white"
                parts.append(_text(x + cell / 2, y + CELL_HEIGHT / 2 + 2, f"{value:.2f}",
                                   size=6, fill=shade))  # fmt: skip
    step = -(-rounds // 10)
    ticks = "".join(_text(left + cell * (n + 0.5), bottom + 11, str(n + 1))
                    for n in range(0, rounds, step))  # fmt: skip
    parts.append(f'<g class="x-ticks">{ticks}</g>')
    parts.append(_text(left + cell * rounds / 2, bottom + 24, "round", size=9))
    parts.append(_text(left + cell * rounds / 2, TOP - 6, field, size=9))
    parts.append(_bar(field, top, left + cell * rounds + 6, bottom))
    parts.append("</g>")
    return "".join(parts)


def _bar(field: str, top: float, x: float, bottom: float) -> str:
    """The colour bar beside a panel: 0 to `top`; the ratio's top is open (values above it
    take its colour), so its label reads as a bound."""
    height = bottom - TOP
    stops = "".join(
        f'<stop offset="{k / (BAR_STOPS - 1):.2f}" stop-color="{_colour(k / (BAR_STOPS - 1))}"/>'
        for k in range(BAR_STOPS)
    )
    ceiling = f"\u2265{top:g}" if field == "ratio" else f"{top:g}"
    at = x + BAR_LABEL_AT - 6
    labels = (_text(at, bottom, "0", anchor="start")
              + _text(at, TOP + height / 2 + 3, f"{top / 2:g}", anchor="start")
              + _text(at, TOP + 6, ceiling, anchor="start"))  # fmt: skip
    return (
        f'<defs><linearGradient id="bar-{field}" x1="0" y1="1" x2="0" y2="0">{stops}'
        f'</linearGradient></defs><rect x="{x:.1f}" y="{TOP:.1f}" width="8" '
        f'height="{height:.1f}" fill="url(#bar-{field})"/>{labels}'
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
