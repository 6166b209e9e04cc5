"""`harness leaderboard ...`: boards from run directories (tables, JSON schema, static site)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.console import Console
from rich.markup import escape

from harness.cli.common import fail
from leaderboards import (
    FORMATS,
    RESAMPLES,
    Cut,
    Format,
    LeaderboardError,
    board_json_schema,
    build_board,
    load_runs,
    render,
    terminal_renderable,
)
from leaderboards.site import publish_site
from leaderboards.verdicts import CUTS

app = typer.Typer(help="Leaderboards built from run directories.", no_args_is_help=True)
console = Console()


RunsArgument = Annotated[
    list[Path], typer.Argument(help="Run directories, result.json files, or roots above them.")
]
BaselineOption = Annotated[
    str | None,
    typer.Option(help="Designer the deltas are against [default: random, when present]."),
]
ReferenceOption = Annotated[
    bool, typer.Option(help="Show the paper's reported figures beside the runs.")
]
BestOfOption = Annotated[
    bool, typer.Option("--best-of", help="Best-of-n answers instead of greedy.")
]
ResamplesOption = Annotated[int, typer.Option(min=100, help="Bootstrap resamples.")]


@app.command("show")
def show_cmd(
    runs: RunsArgument,
    baseline: BaselineOption = None,
    suite_detail: Annotated[
        list[str] | None,
        typer.Option(
            "--suite-detail",
            help="Also show cuts by size, subset or hole (repeatable; JSON and CSV hold all).",
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help=f"One of {', '.join(FORMATS)}.")
    ] = "terminal",
    out: Annotated[Path | None, typer.Option(help="Write the board to this file.")] = None,
    reference: ReferenceOption = False,
    best_of: BestOfOption = False,
    resamples: ResamplesOption = RESAMPLES,
) -> None:
    """Sum per designer and agent count, mean over seeds with 95% intervals and deltas."""
    if fmt not in FORMATS:
        raise fail(f"unknown format {fmt!r}; formats are {', '.join(FORMATS)}")
    details = suite_detail or []
    for cut in details:
        if cut not in CUTS:
            raise fail(f"unknown --suite-detail {cut!r}; choose from {', '.join(CUTS)}")
    try:
        board = build_board(
            load_runs(runs),
            baseline=baseline or "random",
            strict_baseline=baseline is not None,
            answers="best_of" if best_of else "greedy",
            resamples=resamples,
            reference=reference,
            details=CUTS if fmt in ("json", "csv") else cast(list[Cut], details),
        )
    except LeaderboardError as err:
        raise fail(escape(str(err))) from None  # paths and values are not markup
    cuts = cast(list[Cut], details)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render(board, cast(Format, fmt), cuts), encoding="utf-8")
        console.print(f"board written to {out}")
    elif fmt == "terminal":
        wide = console if console.is_terminal else Console(width=max(console.width, 160))
        wide.print(terminal_renderable(board, cuts))
    else:
        typer.echo(render(board, cast(Format, fmt), cuts), nl=False)


@app.command("publish")
def publish_cmd(
    runs: RunsArgument,
    out: Annotated[
        Path,
        typer.Option(help="Directory of the site: new, empty, or an earlier site (replaced)."),
    ],
    baseline: BaselineOption = None,
    reference: ReferenceOption = False,
    best_of: BestOfOption = False,
    resamples: ResamplesOption = RESAMPLES,
    title: Annotated[str, typer.Option(help="The site's title.")] = "Designer leaderboard",
) -> None:
    """A static site (tables, plots, a page per run with its transcripts) that opens offline."""
    try:
        result = publish_site(
            load_runs(runs),
            out,
            baseline=baseline or "random",
            strict_baseline=baseline is not None,
            answers="best_of" if best_of else "greedy",
            resamples=resamples,
            reference=reference,
            title=title,
        )
    except (LeaderboardError, ImportError) as err:  # ImportError: matplotlib, naming the extra
        raise fail(escape(str(err))) from None
    console.print(
        f"site written to {escape(str(out))}/ ({len(result.files)} files, "
        f"{len(result.board.runs)} runs): open {escape(str(out / 'index.html'))}"
    )


@app.command("schema")
def schema_cmd(
    out: Annotated[Path | None, typer.Option(help="Write the schema to this file.")] = None,
) -> None:
    """The JSON schema of `--format json` boards (versioned), for other tools."""
    text = json.dumps(board_json_schema(), indent=2) + "\n"
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        console.print(f"schema written to {out}")
