"""`harness leaderboard ...`: boards from run directories (tables, JSON schema, static site)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from harness_cli.common import fail
from harness_cli.help_pages import App
from leaderboards import (
    FORMATS,
    RESAMPLES,
    Format,
    LeaderboardError,
    RunSet,
    board_json_schema,
    build_board,
    load_runs,
    machine_notes,
    render,
    terminal_renderable,
)
from leaderboards.power import ALPHA, POWER, power_lines, runs_power
from leaderboards.site import MANIFEST, Carried, check_out, publish_site

app = App(help="Leaderboards built from run directories.", no_args_is_help=True)
console = Console()
warnings = Console(stderr=True, soft_wrap=True)


RunsArgument = Annotated[
    list[Path], typer.Argument(help="Run directories, result.json files, or roots above them.")
]
BaselineOption = Annotated[
    str | None,
    typer.Option(help="Designer the deltas are against [default: random, when present]."),
]
ReferenceOption = Annotated[
    bool,
    typer.Option(
        help="Show the paper's reported figures beside the runs (its opt. is makespan-optimal); "
        "with --suite-detail size, its per-size cells beside ours, per suite."
    ),
]
BestOfOption = Annotated[
    bool, typer.Option("--best-of", help="Best-of-n answers instead of greedy.")
]
ResamplesOption = Annotated[int, typer.Option(min=100, help="Bootstrap resamples.")]
StrictOption = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Refuse the board when any run is unfinished, failed, unreadable or of another "
        "version, instead of listing it as skipped.",
    ),
]


PoolMachinesOption = Annotated[
    bool,
    typer.Option(
        "--pool-machines",
        help="Pool runs that computed differently (precision, torch, CPU kernels, threads) "
        "instead of refusing them; the board then says which were pooled.",
    ),
]


def note_machines(runs: RunSet, pool_machines: bool) -> RunSet:
    """Print, on stderr before the board, what its runs' machine records say (see compat)."""
    for note in machine_notes(runs, pool_machines=pool_machines):
        warnings.print(f"[yellow]note:[/] {escape(note)}")
    return runs


def read_runs(paths: list[Path], strict: bool) -> RunSet:
    """The runs a board is built from; each skipped run is one line on stderr, before the board.

    A root of many runs takes a while to read, so a transient bar on stderr counts them."""
    with stderr_progress("reading runs") as advance:
        loaded = load_runs(paths, strict=strict, on_progress=advance)
    for skipped in loaded.skipped:
        warnings.print(f"[yellow]skipped ({skipped.kind}):[/] {escape(skipped.line)}")
    if not loaded:
        raise LeaderboardError(
            f"none of the {len(loaded.skipped)} runs found can go on a board (each is listed "
            "above): finish or repair them, or pass other paths"
        )
    return loaded


@contextmanager
def stderr_progress(label: str) -> Iterator[Callable[[int, int], None]]:
    """A transient rich bar on stderr fed by (done, total) callbacks (stdout may be the board)."""
    bar = Progress(f"[progress.description]{label}", BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=warnings, transient=True)  # fmt: skip
    task = bar.add_task(label, total=None)
    with bar:
        yield lambda done, total: bar.update(task, completed=done, total=total)


@app.command("show")
def show_cmd(
    runs: RunsArgument,
    baseline: BaselineOption = None,
    suite_detail: Annotated[
        list[str] | None,
        typer.Option(
            "--suite-detail",
            help="Also show the cuts by one of the task's cuts (MAPF: size, subset or hole; "
            "repeatable; JSON and CSV hold all).",
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help=f"One of {', '.join(FORMATS)}.")
    ] = "terminal",
    out: Annotated[Path | None, typer.Option(help="Write the board to this file.")] = None,
    reference: ReferenceOption = False,
    best_of: BestOfOption = False,
    resamples: ResamplesOption = RESAMPLES,
    strict: StrictOption = False,
    pool_machines: PoolMachinesOption = False,
) -> None:
    """Sum per designer and agent count (valid, opt. makespan, opt. SOC), mean over seeds with
    95% intervals and deltas."""
    if fmt not in FORMATS:
        raise fail(f"unknown format {fmt!r}; formats are {', '.join(FORMATS)}")
    details = suite_detail or []
    try:
        loaded = note_machines(read_runs(runs, strict), pool_machines)
        known = loaded[0].task.cuts if len(loaded) else ()
        unknown = [cut for cut in details if cut not in known]
        if unknown:
            raise fail(f"unknown --suite-detail {unknown[0]!r}; choose from {', '.join(known)}")
        with warnings.status(f"building the board of {len(loaded)} runs"):
            board = build_board(
                loaded,
                baseline=baseline or "random",
                strict_baseline=baseline is not None,
                answers="best_of" if best_of else "greedy",
                resamples=resamples,
                reference=reference,
                details=None if fmt in ("json", "csv") else details,
                pool_machines=pool_machines,
            )
    except LeaderboardError as err:
        raise fail(str(err)) from None  # paths and values are not markup
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render(board, cast(Format, fmt), details), encoding="utf-8")
        console.print(f"board written to {out}")
    elif fmt == "terminal":
        wide = console if console.is_terminal else Console(width=max(console.width, 160))
        wide.print(terminal_renderable(board, details))
    else:
        typer.echo(render(board, cast(Format, fmt), details), nl=False)


@app.command("publish")
def publish_cmd(
    runs: RunsArgument,
    out: Annotated[
        Path,
        typer.Option(
            help="Directory of the site: new, empty, or an earlier site (replaced; files you "
            "added to it are kept)."
        ),
    ],
    baseline: BaselineOption = None,
    reference: ReferenceOption = False,
    best_of: BestOfOption = False,
    resamples: ResamplesOption = RESAMPLES,
    strict: StrictOption = False,
    title: Annotated[str, typer.Option(help="The site's title.")] = "Designer leaderboard",
    pool_machines: PoolMachinesOption = False,
) -> None:
    """A static site (tables, plots, a page per run with its transcripts) that opens offline."""
    try:
        check_out(out)  # before reading any run: a place the site cannot go is said at once
        loaded = note_machines(read_runs(runs, strict), pool_machines)
        with warnings.status(f"building the site of {len(loaded)} runs"):
            result = publish_site(
                loaded,
                out,
                baseline=baseline or "random",
                strict_baseline=baseline is not None,
                answers="best_of" if best_of else "greedy",
                resamples=resamples,
                reference=reference,
                title=title,
                pool_machines=pool_machines,
            )
    except (LeaderboardError, ImportError) as err:  # ImportError: matplotlib, naming the extra
        raise fail(str(err)) from None
    for line in result.cleared:
        warnings.print(f"[yellow]note:[/] {escape(line)}")
    for line in result.withheld:
        warnings.print(f"[yellow]skipped:[/] {escape(line)}")
    console.print(
        f"site written to {escape(str(out))}/ ({len(result.files)} files, "
        f"{len(result.board.runs)} runs): open {escape(str(out / 'index.html'))}"
    )
    for line in carried_lines(result.carried):
        console.print(escape(line), soft_wrap=True)


def carried_lines(carried: Carried, shown: int = 5) -> list[str]:
    """What happened to the earlier site's files that were not its own, in a line each."""

    def names(found: tuple[str, ...]) -> str:
        more = f" and {len(found) - shown} more" if len(found) > shown else ""
        return ", ".join(found[:shown]) + more

    def files(found: tuple[str, ...]) -> str:
        return f"{len(found)} file{'' if len(found) == 1 else 's'}"

    lines = []
    if carried.kept:
        lines.append(
            f"kept {files(carried.kept)} you added to the earlier site (its {MANIFEST} "
            f"does not list them): {names(carried.kept)}"
        )
    if carried.replaced:
        lines.append(
            f"did not keep {files(carried.replaced)} you changed in the earlier site (the new "
            f"site writes its own in their place, or no longer has them): "
            f"{names(carried.replaced)}"
        )
    return lines


@app.command("power")
def power_cmd(
    runs: RunsArgument,
    delta: Annotated[float, typer.Option(help="The difference to resolve, points.")],
    metric: Annotated[
        str | None,
        typer.Option(
            help="Only this rate: one of the task's (MAPF: valid, optimal_makespan, optimal_soc)."
        ),
    ] = None,
    power: Annotated[float, typer.Option(help="The chance wanted to detect it.")] = POWER,
    alpha: Annotated[float, typer.Option(help="Two-sided significance level.")] = ALPHA,
    best_of: BestOfOption = False,
    strict: StrictOption = False,
    pool_machines: PoolMachinesOption = False,
) -> None:
    """The smallest difference the runs can detect, and the seeds a difference of DELTA needs:
    paired against random where designers ran its seeds, else unpaired (and said so)."""
    for name, value, share in (("--delta", delta, False), ("--power", power, True),
                               ("--alpha", alpha, True)):  # fmt: skip
        if value <= 0 or (share and value >= 1):
            bounds = "strictly between 0 and 1" if share else "above 0"
            raise fail(f"{name} must be {bounds}, not {value:g}")
    try:
        loaded = note_machines(read_runs(runs, strict), pool_machines)
        rates = [r.key for r in loaded[0].task.board_rates] if len(loaded) else []
        if metric is not None and rates and metric not in rates:
            raise fail(f"unknown --metric {metric!r}; choose from {', '.join(rates)}")
        found = runs_power(loaded,
                           answers="best_of" if best_of else "greedy", alpha=alpha, power=power,
                           pool_machines=pool_machines)  # fmt: skip
    except LeaderboardError as err:
        raise fail(str(err)) from None
    chosen = [d for d in found if metric is None or d.metric == metric]
    if not chosen:
        raise fail(f"the runs cannot give {metric}: their suites hold no such optimum")
    for line in power_lines(chosen, delta):
        console.print(escape(line), highlight=False, soft_wrap=True)


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


# Result bundles (`bundle`, `verify`, `merge`) live in their own module.
from harness_cli.bundles import register as register_bundle_commands  # noqa: E402

register_bundle_commands(app)
