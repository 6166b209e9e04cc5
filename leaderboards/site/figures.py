"""The index page's plots, in the order the page tells its story, each with its caption.

The story: rate per value of the task's first cut (MAPF-FrozenLake: per map size; what the
headline Sums are made of), performance profiles (the whole distribution of run-cell scores),
normalised scores (where each designer lies between no design and the strongest fixed
configuration, and whether this budget can tell those two apart), validation per round (how
fast a designer gets there), configuration heatmaps (what it chose). A plot whose data the
board lacks -- no controls among the runs, no rounds, a task without arms -- is never drawn as
an empty axes: its group carries a one-line note saying why instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from designers.arms import task_arms
from leaderboards.board import Board, Controls, NormalisedScore
from leaderboards.metrics import Metric
from leaderboards.render.cells import delta_text
from leaderboards.render.sensitivity import sensitivity_lines, verdict
from leaderboards.seeds import mean_over_seeds
from leaderboards.site.runs import RunView
from run_records import ResultRecord
from tasks import Task

Writer = Callable[[str, str], None]
PROFILES = 2
"""Profiles drawn: the board's first rates (MAPF-FrozenLake: validity and the paper's "opt.")."""
SVG_SIZE = re.compile(r'<svg [^>]*width="([\d.]+)pt" height="([\d.]+)pt"')
PX_PER_PT = 4 / 3
NO_CONTROLS = (
    "No normalised scores: the board carries no controls (run `harness compare --preset "
    "controls`: random, matched and harder)."
)


@dataclass(frozen=True)
class Figure:
    """One plot on a page; `width`/`height` (CSS px) are the SVG's own, so the page lays out
    before the image loads."""

    src: str
    alt: str
    caption: str
    width: int = 0
    height: int = 0


@dataclass(frozen=True)
class PlotGroup:
    """A heading of the story: its figures, and a note when some (or all) were left out."""

    id: str
    title: str
    figures: list[Figure] = field(default_factory=list)
    note: str | None = None
    side_by_side: bool = False


@dataclass(frozen=True)
class Trajectory:
    """A designer's configuration heatmap (mean over its seeds) and the runs behind it."""

    designer: str
    slug: str
    runs: Sequence[RunView]


def figure(write: Writer, src: str, svg: str, alt: str, caption: str) -> Figure:
    """Write `svg` to `src` and describe it, sized as the SVG says."""
    write(src, svg)
    match = SVG_SIZE.search(svg)
    if match is None:
        raise ValueError(f"{src}: the SVG states no width and height in pt")
    width, height = (round(float(v) * PX_PER_PT) for v in match.groups())
    return Figure(src, alt, caption, width, height)


def board_figures(board: Board) -> tuple[list[PlotGroup], dict[str, str]]:
    """The index page's groups drawn from the board alone, in story order (the heatmaps,
    drawn from the runs, follow: `heatmaps`), and the SVG files they need, by name: drawn
    apart from the pages, so that another process can draw them meanwhile. With more than
    `PLOTTED` designers, each group's note says which are drawn (`plotted`)."""
    files: dict[str, str] = {}
    write = files.__setitem__
    shown, drawn = plotted(board)
    groups = [_sizes(shown, write), _profiles(shown, write), _normalised(shown, write),
              _validation(shown, write)]  # fmt: skip
    if drawn:
        groups = [replace(g, note=" ".join(filter(None, (g.note, drawn)))) for g in groups]
    return groups, files


PLOTTED = 10
"""Designers a plot draws at most: a legend of a hundred lines hides the plot under it, and the
tables hold every designer."""


def plotted(board: Board) -> tuple[Board, str]:
    """`board` with only the rows its plots draw -- the `PLOTTED` best-ranked (overall valid
    Sum), and the baseline and the controls where they are ranked lower -- and a sentence
    saying so; `board` itself, and no sentence, when it has no more rows than that."""
    if len(board.rows) <= PLOTTED:
        return board, ""
    controls = board.controls
    named = {board.baseline} | (
        {controls.zero, controls.positive, controls.negative} if controls else set()
    )
    best = {(r.kind, r.designer) for r in board.rows[:PLOTTED]}
    rows = tuple(r for r in board.rows if (r.kind, r.designer) in best or r.designer in named)
    kept = {r.designer for r in rows}
    update: dict[str, object] = {"rows": rows}
    if controls is not None:
        normalised = tuple(s for s in controls.normalised if s.designer in kept)
        update["controls"] = controls.model_copy(update={"normalised": normalised})
    extra = sorted(kept - {d for _, d in best})
    also = f", and {', '.join(extra)}" if extra else ""
    sentence = (
        f"Drawn: the {PLOTTED} best-ranked of the {len(board.rows)} designers (overall valid "
        f"Sum){also}; the tables hold every designer."
    )
    return board.model_copy(update=update), sentence


def heatmaps(
    task: Task[Any, Any], trajectories: Sequence[Trajectory], views: Sequence[RunView],
    write: Writer,
) -> tuple[PlotGroup, dict[str, Figure]]:  # fmt: skip
    """Write every configuration heatmap: the index page's group (a heatmap per designer),
    and each run page's own figure, by page; for a task whose configurations have no arms to
    draw, none, the group's note saying why."""
    from leaderboards import plots

    problem = plots.heatmaps_problem(task)
    if problem is not None:
        note = f"Configuration heatmaps left out: {problem}."
        return PlotGroup("trajectories", "Configuration heatmaps", note=note), {}
    share_top = plots.share_limit(task, [v.record for v in views if v.record.rounds])
    runs = {}
    for view in views:
        if view.plot is not None:
            head = f"{view.title}: configuration per round"
            svg = plots.trajectory_svg(task, [view.record], head, share_top)
            shown, per = heatmap_words(task, view.record)
            alt = f"{view.title}: configuration per {per} and round"
            caption = (f"This run's {shown} per {per} and round (the configuration each "
                       "round trained on).")  # fmt: skip
            runs[view.page] = figure(write, view.plot, svg, alt, caption)
    return _trajectories(task, trajectories, share_top, write), runs


def heatmap_words(task: Task[Any, Any], record: ResultRecord) -> tuple[str, str]:
    """(what the panels show, what a row is): ("ratio, hole_ratio and wait_ratio", "map
    size") for MAPF-FrozenLake."""
    from leaderboards import plots

    names = [p.name for p in plots.heatmap_panels(task, task_arms(task, record.rounds[0].config))]
    return _listed(names), task.cut_titles.get(task.cuts[0], task.cuts[0])


def sentence(text: str) -> str:
    """`text` as a sentence of its own: capitalised, ended by a full stop."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def band_text(banded: int, lines: int, band: str, what: str) -> str:
    """'shaded: 95% band' when `banded` of the `lines` drawn have one; or why none has."""
    if not banded:
        return f"no {what} (one seed each)"
    if banded == lines:
        return f"shaded: {band}"
    return f"shaded: {band} (only where a designer ran several seeds)"


def _sizes(board: Board, write: Writer) -> PlotGroup:
    from leaderboards import plots

    per = board.cut_titles[board.strata_cut]
    rates = _listed([board.rate(m).short for m in board.metrics])
    figures = [
        figure(write, f"plots/sizes-{s.name}.svg", plots.size_curves_svg(board, s.name),
               f"{s.name}: {rates} rate per {per}", _size_caption(board, s.name))
        for s in board.suites
    ]  # fmt: skip
    return PlotGroup("sizes", f"Rate per {per}", figures)


def _listed(words: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _size_caption(board: Board, suite: str) -> str:
    from leaderboards import plots

    several = sum(len(r.seeds) > 1 for r in board.rows)
    band = band_text(several, len(board.rows), "95% interval", "interval")
    answers = board.answers.replace("_", "-")
    panels = ", ".join(board.rate(m).label for m in board.metrics)
    text = (
        f"{suite}, {answers} answers: mean over seeds per "
        f"{board.cut_titles[board.strata_cut]}; {band}. Panels: {panels}."
    )
    info = next(s for s in board.suites if s.name == suite)
    if info.unavailable:
        text += " " + " ".join(sentence(note) for note in info.unavailable.values())
    if plots.paper_rows(board, suite):
        text += (
            " Dashed: the paper's per-size figures (reported, not reproduced) on the valid and "
            "makespan panels; it reports no SOC-optimal rate."
        )
    return text


def _profiles(board: Board, write: Writer) -> PlotGroup:
    from leaderboards import plots

    cells = sum(len(s.strata) for s in board.suites)
    figures, missing = [], []
    for metric in board.metrics[:PROFILES]:
        profiles = plots.ranked_profiles(board, metric)
        if not profiles:
            missing.append(board.rate(metric).short)
            continue
        banded = sum(p.low is not None for p in profiles)
        band = band_text(banded, len(profiles), "95% band", "band")
        caption = (
            f"{board.rate(metric).short}: the share of run-cell scores (one run's rate on one "
            f"suite x {board.cut_titles[board.strata_cut]}; {cells} cells per run) above each "
            "threshold tau; a line above another "
            f"everywhere is better at every threshold; {band}."
        )
        alt = f"performance profile of the {board.rate(metric).short} rate"
        svg = plots.profiles_svg(board, metric)
        figures.append(figure(write, f"plots/profile-{metric}.svg", svg, alt, caption))
    note = None
    if missing:
        note = (f"No {' or '.join(missing)} profile: the board holds no such run-task scores "
                "(no ranked rows, or records that cannot give the rate).")  # fmt: skip
    return PlotGroup("profiles", "Performance profiles", figures, note, side_by_side=True)


def _normalised(board: Board, write: Writer) -> PlotGroup:
    """A figure per rate with normalised scores; the sensitivity lines always, in a caption or,
    where no figure could be drawn for its rate, in the group's note."""
    from leaderboards import plots

    controls = board.controls
    title = "Normalised scores"
    if controls is None:
        return PlotGroup("normalised", title, note=NO_CONTROLS)
    figures, drawn = [], []
    for metric in board.metrics:
        scores = plots.normalised_scores(board, metric)
        if not scores:
            continue
        caption = (
            f"{board.rate(metric).short}: each designer's overall Sum rescaled so "
            f"{controls.zero} is 0 and {controls.positive} is 1; {_intervals(scores)}. "
            f"{sensitivity_line(board, controls, [metric])}"
        )
        alt = f"normalised {board.rate(metric).short} score per designer"
        svg = plots.normalised_svg(board, metric)
        figures.append(figure(write, f"plots/normalised-{metric}.svg", svg, alt, caption))
        drawn.append(metric)
    parts = [sentence(controls.note)] if controls.note else []
    if not figures and not controls.note:
        parts.append(NO_CONTROLS)
    lined = {m for line in sensitivity_lines(controls) for m in line.deltas}
    rest = [m for m in board.metrics if m in lined and m not in drawn]
    if rest:
        parts.append(sensitivity_line(board, controls, rest))
    return PlotGroup("normalised", title, figures, " ".join(parts) or None, side_by_side=True)


def _intervals(scores: Sequence[NormalisedScore]) -> str:
    """What the bars are, and who has none (hollow points), grouped by why."""
    why: dict[str, list[str]] = {}
    for s in scores:
        if s.low is None or s.high is None:
            why.setdefault(s.note or "unknown", []).append(s.designer)
    if not why:
        return "bars: 95% interval"
    bare = "; ".join(f"{', '.join(names)}: {note}" for note, names in why.items())
    if sum(len(names) for names in why.values()) == len(scores):
        return f"no interval (hollow points): {bare}"
    return f"bars: 95% interval; hollow points have none ({bare})"


def sensitivity_line(board: Board, controls: Controls, metrics: Sequence[Metric]) -> str:
    """What this budget can see, per rate: each sensitivity line (`leaderboards.render.
    sensitivity`: each control against random first, then matched - harder) with its verdict."""
    head = "Sensitivity (overall Sum, points)"
    lines = [ln for ln in sensitivity_lines(controls) if any(m in ln.deltas for m in metrics)]
    if not lines:
        return f"{head}: not measured; random, matched and harder must be among the ranked runs."
    parts = []
    for line in lines:
        values = ", ".join(f"{board.rate(m).short} {delta_text(line.deltas[m])}"
                           for m in metrics if m in line.deltas)  # fmt: skip
        parts.append(f"{line.label}: {values}: {verdict(line, metrics, _short(board))}")
    return f"{head}: {'; '.join(parts)}."


def _short(board: Board) -> Callable[[Metric], str]:
    return lambda m: board.rate(m).short


def _validation(board: Board, write: Writer) -> PlotGroup:
    from leaderboards import plots

    title = "Validation per round"
    panels = plots.ranked_curves(board)
    if not panels:
        return PlotGroup("validation", title, note="Validation per round left out: no ranked "
                         "designer has rounds (zero-shot policies have none).")  # fmt: skip
    curves = [c for per in panels.values() for c in per]
    several = len({c.designer for c in curves if c.low is not None})
    band = band_text(several, len({c.designer for c in curves}), "95% band over seeds", "band")
    suite = board.experiment.get("validation", "validation")
    caption = (
        f"The {suite} suite, greedy answers, after each round's training; line: mean over "
        f"seeds; {band}."
    )
    absent = [board.rate(m).short for m in board.metrics if m not in panels]
    if absent:
        caption += (f" No {' or '.join(absent)} panel: the runs' validation reports hold no such "
                    "rate.")  # fmt: skip
    src = "plots/validation.svg"
    fig = figure(write, src, plots.validation_svg(board),
                 "validation rates per round", caption)  # fmt: skip
    return PlotGroup("validation", title, [fig])


def _trajectories(
    task: Task[Any, Any], trajectories: Sequence[Trajectory], share_top: float, write: Writer
) -> PlotGroup:
    from leaderboards import plots

    title = "Configuration heatmaps"
    figures = []
    for t in trajectories:
        records = [v.record for v in t.runs]
        over = mean_over_seeds(r.seed for r in records)
        head = f"{t.designer}: configuration per round ({over})"
        svg = plots.trajectory_svg(task, records, head, share_top)
        shown, per = heatmap_words(task, records[0])
        caption = (
            f"{t.designer}: {shown} per {per} and round (round 1: "
            f"the starting configuration), {over}; each run's own is on its page."
        )
        alt = f"{t.designer}: configuration per {per} and round"
        figures.append(figure(write, f"plots/trajectory-{t.slug}.svg", svg, alt, caption))
    note = None if figures else "Configuration heatmaps left out: no run has rounds."
    return PlotGroup("trajectories", title, figures, note)
