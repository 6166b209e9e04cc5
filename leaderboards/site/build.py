"""`publish_site`: a board, its plots and a page per run, as static files that open from disk.

Layout of the site::

    index.html                    the story first: the headline Sums, then the plots (rates
                                  per value of the task's first cut, performance profiles,
                                  normalised scores, validation per round, configuration
                                  heatmaps per arm); then every other table,
                                  each collapsed under its title; a list of the runs, and the
                                  runs left out (when given a `RunSet`: each skipped run's line)
    runs/<designer>-seed-<n>.html  one run: its rounds, validation, the designer's proposals with
                                  rationale and changes asked, projection notes and model-call
                                  transcripts
    plots/*.svg                   the index's plots (`leaderboards.site.figures`) and each run's
                                  own configuration heatmap
    files/<designer>-seed-<n>/    the run's small files (run.json, result.json, per round
                                  round.json, config.yaml, curves.jsonl); checkpoints never.
                                  Each is sealed (`leaderboards.bundles.sealed`): a link, a
                                  device or a file that does not read as what it is stays
                                  out, its page and `SiteResult.withheld` saying so, and a
                                  run whose result.json is not sealed is left out whole
    board.json, board.csv         the board itself, for other tools
    site.json                     what wrote the site, and every file's sha256 (files a user
                                  added, which it does not list, are kept by the next publish)

No page fetches anything from the network or runs a script; the same runs and code give the
same bytes (plots are saved with a fixed hash salt and no date).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

from leaderboards.aggregate import build_board
from leaderboards.aside import aside
from leaderboards.board import Answers, Board
from leaderboards.bootstrap import RESAMPLES
from leaderboards.errors import LeaderboardError
from leaderboards.readers import LoadedRun, RunSet
from leaderboards.render import board_tables, render, template_environment
from leaderboards.render.tables import TextTable, board_notes, provenance_note
from leaderboards.site.earlier import Carried, carry_user_files, clear_leftovers
from leaderboards.site.figures import Trajectory, board_figures, heatmaps
from leaderboards.site.output import GENERATOR, MANIFEST, check_out, staged
from leaderboards.site.runs import RunView, copy_raw_files, designer_slugs, run_view, sealed_runs
from run_records import sha256_file

SITE_SCHEMA_VERSION = "1"
IO_THREADS = 4
"""Threads that copy run files into the site and hash them: a thousand runs are thousands of
files, each opened and written, waits the threads spend together."""
HEADLINE = "main-"
"""Tables whose id starts so are the headline (the Sum per agent count): shown open, first."""


@dataclass(frozen=True)
class SiteResult:
    """What `publish_site` wrote, the earlier site's files it kept or replaced, what it
    cleared of killed publishes, and the runs and files it left out for not being sealed (one
    line each)."""

    out: Path
    files: tuple[str, ...]
    board: Board
    carried: Carried = field(default_factory=Carried)
    cleared: tuple[str, ...] = ()
    withheld: tuple[str, ...] = ()


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
    """Write the static site of `runs` to `out` (replacing an earlier site there, atomically,
    with the files a user added to it carried over)."""
    from leaderboards import plots  # matplotlib is checked before the bootstrap's work

    plots.require_matplotlib()
    cleared = tuple(clear_leftovers(out))
    check_out(out)
    sealed, left_out = sealed_runs(runs)
    if left_out and not sealed:
        raise LeaderboardError(f"none of the runs can go on the site: {left_out[0]}")
    board = build_board(
        sealed,
        baseline=baseline,
        strict_baseline=strict_baseline,
        answers=answers,
        resamples=resamples,
        reference=reference,
        pool_machines=pool_machines,
    )
    with staged(out) as root:
        files, withheld = _write_site(root, board, sealed, title)
        carried = carry_user_files(out, root)
    return SiteResult(out=out, files=files, board=board, carried=carried, cleared=cleared,
                      withheld=(*left_out, *withheld))  # fmt: skip


def _write_site(
    root: Path, board: Board, runs: RunSet, title: str
) -> tuple[tuple[str, ...], list[str]]:
    """The site's files, and a line for each run file left out for not being sealed."""

    def write(name: str, text: str) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    env = template_environment()
    common: dict[str, Any] = {
        "board": board,
        "provenance": provenance_note(board),
        "notes": board_notes(board),
    }
    with aside(board_figures, board) as drawing:  # matplotlib's figures, while pages are written
        views, trajectories = _views(board, runs)
        with ThreadPoolExecutor(IO_THREADS) as io:  # opening and writing files waits on the disk
            copied = list(io.map(copy_raw_files, views, repeat(root)))
        withheld = [line for lines in copied for line in lines]
        configurations, run_figures = heatmaps(runs[0].task, trajectories, views, write)
        run_template = env.get_template("site_run.html.j2")
        for view in views:
            write(view.page, run_template.render(
                **common, title=f"{view.title} - {title}", root="../", view=view,
                site_title=title, plot=run_figures.get(view.page),
            ))  # fmt: skip
        groups, figures = drawing.result()
    for name, svg in figures.items():
        write(name, svg)
    headline, details = split_tables(board_tables(board, board.detail_cuts))
    write("index.html", env.get_template("site_index.html.j2").render(
        **common, title=title, root="", headline=headline, details=details,
        story=[*groups, configurations], runs=views, skipped=runs.skipped,
    ))  # fmt: skip
    write("board.json", render(board, "json"))
    write("board.csv", render(board, "csv"))
    return _write_manifest(root, board), withheld


def split_tables(tables: Sequence[TextTable]) -> tuple[list[TextTable], list[TextTable]]:
    """(headline, details): the Sum tables the page opens with, and every other in its order."""
    headline = [t for t in tables if t.id.startswith(HEADLINE)]
    return headline, [t for t in tables if not t.id.startswith(HEADLINE)]


def _views(board: Board, runs: Sequence[LoadedRun]) -> tuple[list[RunView], list[Trajectory]]:
    """A view per run, and a trajectory per designer whose runs all have rounds, in the board's
    row order (then by seed; unranked last)."""
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
    trajectories = []
    for (kind, name), slug in sorted(slugs.items(), key=lambda item: order[item[0]]):
        mine = [v for v in views if (v.record.kind, v.record.designer) == (kind, name)]
        if all(v.record.rounds for v in mine):
            trajectories.append(Trajectory(name, slug, mine))
    return views, trajectories


def _hashed(paths: list[Path]) -> list[str]:
    """The sha256 of each file, read by a few threads (hashing a large file frees the GIL)."""
    with ThreadPoolExecutor(IO_THREADS) as io:
        return list(io.map(sha256_file, paths))


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
        "files": dict(zip(files, _hashed([root / name for name in files]), strict=True)),
    }
    (root / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return (*files, MANIFEST)
