"""What every plot shares: the fixed style, the SVG writer, axis limits and designer colours.

Figures never touch pyplot or the process-wide backend: each is a `Figure` on an Agg canvas,
saved as SVG under `rc_context` with a fixed hash salt, no date and glyphs drawn as paths, so
the same board gives byte-identical files that need no fonts to display. Each is cropped to
what it draws (`bbox_inches="tight"`), so its width and height are its content's and a page
never shows a band of empty figure around a plot.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

from leaderboards.board import Board

if TYPE_CHECKING:
    from matplotlib.axes import Axes
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
PAD_INCHES = 0.04
"""Room kept around the drawn content when a figure is cropped to it."""
PALETTE = "tab10"
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
"""Beyond the palette's ten colours, the marker tells designers apart."""
BAND_ALPHA = 0.18


def require_matplotlib() -> None:
    """Raise ImportError naming the extra to install when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as err:
        raise ImportError(
            "plots and the static site need matplotlib: pip install 'envdesign-bench[site]'"
        ) from err


def draw(
    width: float, height: float, paint: Callable[[Figure], None], constrained: bool = True
) -> str:
    """Build, paint and save one figure (inches), all under the fixed style; its SVG text."""
    require_matplotlib()
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(cast(Any, RC)):  # typed as Literal keys in newer matplotlib
        fig = Figure(figsize=(width, height), layout="constrained" if constrained else None)
        FigureCanvasAgg(fig)
        paint(fig)
        buffer = io.StringIO()
        creator = f"envdesign-bench, matplotlib {matplotlib.__version__}"  # no URL in the file
        fig.savefig(buffer, format="svg", bbox_inches="tight", pad_inches=PAD_INCHES,
                    metadata={"Date": None, "Creator": creator})  # fmt: skip
        return buffer.getvalue()


def fit_range(
    values: Iterable[float | None],
    *,
    floor: float | None = None,
    ceiling: float | None = None,
    min_span: float = 1.0,
    pad: float = 0.06,
) -> tuple[float, float]:
    """Axis limits that hold every value with a little room around them.

    A 0-100 axis squeezes rates that all lie in 20-45 into a quarter of the panel, where the
    differences a board is about cannot be seen. Callers pass every value drawn -- means and
    interval ends -- so no interval is cut. A span under `min_span` (all values equal) is
    widened to it, kept within `floor`..`ceiling` where the quantity has such bounds.
    """
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        raise ValueError("no finite value to fit an axis to")
    low, high = min(finite), max(finite)
    if high - low < min_span:
        middle = (low + high) / 2
        low, high = middle - min_span / 2, middle + min_span / 2
        if floor is not None and low < floor:
            low, high = floor, floor + min_span
        if ceiling is not None and high > ceiling:
            low, high = ceiling - min_span, ceiling
    room = pad * (high - low)
    return low - room, high + room


def designer_styles(board: Board) -> dict[str, dict[str, Any]]:
    """A colour and marker per ranked designer, in the board's row order.

    Every plot of a site draws a designer in the same colour, so a reader can follow one
    designer from the size curves to the profiles without reading each legend again.
    """
    require_matplotlib()
    from matplotlib import colormaps

    palette = colormaps[PALETTE]
    colours = [palette(k) for k in range(palette.N)]
    styles: dict[str, dict[str, Any]] = {}
    for row in board.rows:
        if row.designer in styles:
            continue
        k = len(styles)
        styles[row.designer] = {"color": colours[k % len(colours)],
                                "marker": MARKERS[(k // len(colours)) % len(MARKERS)]}  # fmt: skip
    return styles


def bottom_legend(fig: Figure, axes: Axes, columns: int) -> None:
    """The legend of `axes`' lines under the figure, outside every panel."""
    handles, labels = axes.get_legend_handles_labels()
    if labels:
        fig.legend(handles, labels, loc="outside lower center", fontsize=7, frameon=False,
                   borderpad=0.2, ncols=min(len(labels), columns))  # fmt: skip
