"""`publish_site`: a board, its plots and a page per run, as static files that open from disk.

Layout of the site::

    index.html                    the board's tables (as `render(board, "html")` draws them), the
                                  plots, a list of the runs, and the runs left out (when
                                  given a `RunSet`: each skipped run's line)
    runs/<designer>-seed-<n>.html  one run: its rounds, validation, the designer's proposals with
                                  rationale, projection notes and model-call transcripts
    plots/*.svg                   per-size curves per suite, validation per round, configuration
                                  trajectories (per designer: mean over seeds; per run: its own)
    files/<designer>-seed-<n>/    the run's small files (run.json, result.json, per round
                                  round.json, config.yaml, curves.jsonl); checkpoints never
    board.json, board.csv         the board itself, for other tools
    site.json                     what wrote the site, and every file's sha256

No page fetches anything from the network or runs a script; the same runs and code give the
same bytes (plots are saved with a fixed hash salt and no date).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.records import ResultRecord
from leaderboards.aggregate import build_board
from leaderboards.board import Answers, Board
from leaderboards.bootstrap import RESAMPLES
from leaderboards.readers import LoadedRun, RunSet
from leaderboards.render import board_tables, render, template_environment
from leaderboards.render.tables import board_notes, provenance_note
from leaderboards.site.output import GENERATOR, MANIFEST, check_out, staged
from leaderboards.site.runs import RunView, copy_raw_files, designer_slugs, run_view
from leaderboards.verdicts import CUTS

SITE_SCHEMA_VERSION = "1"


@dataclass(frozen=True)
class Figure:
    src: str
    alt: str
    caption: str


@dataclass(frozen=True)
class DesignerView:
    designer: str
    kind: str
    slug: str
    runs: list[RunView]
    trajectory: Figure | None


@dataclass(frozen=True)
class SiteResult:
    """What `publish_site` wrote."""

    out: Path
    files: tuple[str, ...]
    board: Board


def publish_site(
    runs: Sequence[LoadedRun],
    out: Path,
    *,
    baseline: str | None = "random",
    strict_baseline: bool = False,
    answers: Answers = "greedy",
    resamples: int = RESAMPLES,
    reference: bool = False,
    title: str = "Designer leaderboard",
    pool_machines: bool = False,
) -> SiteResult:
    """Write the static site of `runs` to `out` (replacing an earlier site there, atomically)."""
    from leaderboards import plots  # matplotlib is checked before the bootstrap's work

    plots.require_matplotlib()
    check_out(out)
    board = build_board(
        runs,
        baseline=baseline,
        strict_baseline=strict_baseline,
        answers=answers,
        resamples=resamples,
        reference=reference,
        details=CUTS,
        pool_machines=pool_machines,
    )
    with staged(out) as root:
        files = _write_site(root, board, runs, title)
    return SiteResult(out=out, files=files, board=board)


Writer = Callable[[str, str], None]


def _write_site(root: Path, board: Board, runs: Sequence[LoadedRun], title: str) -> tuple[str, ...]:
    def write(name: str, text: str) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    views, designers = _views(board, runs)
    for view in views:
        copy_raw_files(view, root)
    figures = _plots(board, views, designers, write)
    env = template_environment()
    common: dict[str, Any] = {
        "board": board,
        "provenance": provenance_note(board),
        "notes": board_notes(board),
    }
    write("index.html", env.get_template("site_index.html.j2").render(
        **common, title=title, root="", tables=board_tables(board, CUTS), designers=designers,
        runs=views, skipped=runs.skipped if isinstance(runs, RunSet) else (), **figures,
    ))  # fmt: skip
    run_template = env.get_template("site_run.html.j2")
    for view in views:
        write(view.page, run_template.render(
            **common, title=f"{view.title} - {title}", root="../", view=view, site_title=title,
        ))  # fmt: skip
    write("board.json", render(board, "json"))
    write("board.csv", render(board, "csv"))
    return _write_manifest(root, board)


def _views(board: Board, runs: Sequence[LoadedRun]) -> tuple[list[RunView], list[DesignerView]]:
    """A view per run and per designer, in the board's row order (then by seed; unranked last)."""
    slugs = designer_slugs([(r.record.kind, r.record.designer) for r in runs])
    left_out = {(u.kind, u.designer) for u in board.unranked}
    keys = [(r.kind, r.designer) for r in board.rows] + sorted(left_out)
    order: dict[tuple[str, str], int] = {key: i for i, key in enumerate(keys)}
    ordered = sorted(runs, key=lambda r: (order[r.record.kind, r.record.designer], r.record.seed))
    best_of = board.answers == "best_of"
    views = []
    for run in ordered:
        key = (run.record.kind, run.record.designer)
        views.append(run_view(run, slugs[key], best_of, ranked=key not in left_out))
    designers = []
    for (kind, name), slug in sorted(slugs.items(), key=lambda item: order[item[0]]):
        mine = [v for v in views if (v.record.kind, v.record.designer) == (kind, name)]
        figure = None
        if all(v.record.rounds for v in mine):
            how = "mean over seeds " + ", ".join(str(v.record.seed) for v in mine)
            figure = Figure(f"plots/trajectory-{slug}.svg",
                            f"{name}: configuration per map size and round",
                            f"{name}: ratio, hole_ratio and wait_ratio per map size and round, "
                            f"{how}; each run's own is on its page.")  # fmt: skip
        designers.append(DesignerView(name, kind, slug, mine, figure))
    return views, designers


def _plots(
    board: Board, views: list[RunView], designers: list[DesignerView], write: Writer
) -> dict[str, Any]:
    """Write every plot; the figures the index shows besides the designers' trajectories."""
    from leaderboards import plots

    ratio_top = plots.ratio_limit([v.record for v in views if v.record.rounds])
    ranked = [d for d in designers if all(v.ranked for v in d.runs)]
    for d in designers:
        if d.trajectory is not None:
            records = [v.record for v in d.runs]
            seeds = ", ".join(str(r.seed) for r in records)
            write(d.trajectory.src, plots.trajectory_svg(
                records, f"{d.designer}: configuration per round (mean over seeds {seeds})",
                ratio_top,
            ))  # fmt: skip
    for view in views:
        if view.plot is not None:
            write(view.plot, plots.trajectory_svg([view.record], f"{view.title}: configuration "
                                                  "per round", ratio_top))  # fmt: skip
    size_figures = []
    for suite in board.suites:
        src = f"plots/sizes-{suite.name}.svg"
        write(src, plots.size_curves_svg(board, suite.name))
        size_figures.append(Figure(src, f"{suite.name}: valid, makespan-optimal and SOC-optimal "
                                   "rate per map size",
                                   _size_caption(board, suite.name)))  # fmt: skip
    return {"size_figures": size_figures, "validation": _validation_figure(ranked, write)}


def _write_manifest(root: Path, board: Board) -> tuple[str, ...]:
    """`site.json`: what wrote the site, and every other file's sha256; all the site's files."""
    files = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != MANIFEST
    )
    manifest = {
        "generator": GENERATOR,
        "schema_version": SITE_SCHEMA_VERSION,
        "package_version": board.package_version,
        "git_commit": board.git_commit,
        "board_schema_version": board.schema_version,
        "runs": [r.path for r in board.runs],
        "files": {name: _sha256(root / name) for name in files},
    }
    (root / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return (*files, MANIFEST)


def _validation_figure(designers: list[DesignerView], write: Writer) -> Figure | None:
    """Validation per round of the ranked designers (an unranked one trained on round 0's)."""
    from leaderboards import plots

    series: dict[str, list[ResultRecord]] = {
        d.designer: [v.record for v in d.runs if v.record.rounds]
        for d in designers
        if d.kind == "designer"
    }
    series = {k: v for k, v in series.items() if v}
    if not series:
        return None
    src = "plots/validation.svg"
    write(src, plots.validation_svg(series))
    return Figure(src, "validation valid, makespan-optimal and SOC-optimal rate per round",
                  "2-agent validation set, greedy answers, after each round's training; "
                  "thick: mean over seeds, faint: each seed.")  # fmt: skip


def _size_caption(board: Board, suite: str) -> str:
    from leaderboards import plots

    several = [r.designer for r in board.rows if len(r.seeds) > 1]
    if len(several) == len(board.rows):
        band = "shaded: 95% interval"
    elif several:
        band = "shaded: 95% interval (only where a designer ran several seeds)"
    else:
        band = "no interval (one seed each)"
    answers = board.answers.replace("_", "-")
    text = (
        f"{suite}, {answers} answers: mean over seeds per map size; {band}. Panels: valid, "
        "opt. makespan (the paper's opt.), opt. SOC."
    )
    info = next(s for s in board.suites if s.name == suite)
    if info.unavailable:
        text += " " + " ".join(info.unavailable.values()) + "."
    if plots.paper_rows(board, suite):
        text += (
            " Dashed: the paper's per-size figures (reported, not reproduced) on the valid and "
            "makespan panels; it reports no SOC-optimal rate."
        )
    return text


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
