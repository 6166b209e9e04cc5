"""The board's plots as SVG text, drawn with matplotlib (install `envdesign-bench[site]`).

All from the board (and, for configurations, the runs' `ResultRecord`s):

- `size_curves_svg`: valid, makespan-optimal (the paper's "opt.") and SOC-optimal rate per map
  size on one suite, a line per designer with its band, the paper's per-size rows beside them.
- `profiles_svg`: a performance profile per rate (share of run-task scores above tau).
- `normalised_svg`: each designer's overall Sum between random (0) and matched (1).
- `validation_svg`: the validation rate per round, a line per designer with its band (the
  board's `curves`, `leaderboards.curves`).
- `trajectory_svg`: a designer's configuration over rounds, as heatmaps: a row per arm of the
  task (a value of its first cut with a budget share), a panel per knob of the arm.

`leaderboards.plots.canvas` holds what they share: the fixed style that makes the files
byte-identical, cropping to the drawn content, axis limits fitted to the data, and one colour
per designer across every plot.
"""

from leaderboards.plots.canvas import designer_styles, fit_range, require_matplotlib
from leaderboards.plots.normalised import normalised_scores, normalised_svg
from leaderboards.plots.profiles import profiles_svg, ranked_profiles
from leaderboards.plots.sizes import paper_rows, size_curves_svg
from leaderboards.plots.trajectory import (
    config_grid,
    heatmap_panels,
    heatmaps_problem,
    share_limit,
    trajectory_svg,
)
from leaderboards.plots.validation import ranked_curves, validation_svg

__all__ = [
    "config_grid",
    "designer_styles",
    "fit_range",
    "heatmap_panels",
    "heatmaps_problem",
    "normalised_scores",
    "normalised_svg",
    "paper_rows",
    "profiles_svg",
    "ranked_curves",
    "ranked_profiles",
    "require_matplotlib",
    "share_limit",
    "size_curves_svg",
    "trajectory_svg",
    "validation_svg",
]
