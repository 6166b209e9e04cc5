"""`harness leaderboard bundle | verify | merge`: result bundles that anyone can check.

    harness leaderboard bundle runs/quick --out quick.zip    records, answers, manifest
    harness leaderboard verify quick.zip                     re-score every stored answer here
    harness leaderboard merge quick.zip --into board/        verified runs join a shared board

Refusals are one line and exit 2; a verify whose re-scored verdicts disagree with the stored
ones lists the first few mismatches, counts the rest and exits 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from harness_cli.common import fail
from leaderboards.bundles import bundle_runs, merge_bundles, verify_bundle
from leaderboards.errors import LeaderboardError

console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)

BundleRuns = Annotated[
    list[Path], typer.Argument(help="Run directories, result.json files, or roots above them.")
]
BundleArgument = Annotated[Path, typer.Argument(help="A bundle written by `bundle`.")]


def bundle_cmd(
    runs: BundleRuns,
    out: Annotated[Path, typer.Option(help="The bundle file to write (a zip archive).")],
) -> None:
    """Write one file of finished runs' records, stored answers and a checksummed manifest."""
    try:
        summary = bundle_runs(runs, out)
    except LeaderboardError as err:
        raise fail(str(err)) from None
    manifest = summary.manifest
    console.print(
        f"bundle written to {escape(str(out))}: {len(manifest.runs)} runs, "
        f"{len(manifest.files)} files, {summary.size / 2**20:.1f} MiB"
    )


def verify_cmd(bundle: BundleArgument) -> None:
    """Check a bundle's checksums and suites, and re-score every stored answer here."""
    try:
        with _progress("re-scoring answers") as advance:
            verification = verify_bundle(bundle, on_progress=advance)
    except LeaderboardError as err:
        raise fail(str(err)) from None
    if not verification.ok:
        for line in verification.mismatches:
            errors.print(f"[bold red]mismatch:[/] {escape(line)}")
        more = verification.mismatch_count - len(verification.mismatches)
        if more:
            errors.print(f"[bold red]mismatch:[/] ... and {more} more")
        errors.print(f"[bold red]error:[/] {escape(verification.summary())}")
        raise typer.Exit(1)
    console.print(escape(verification.summary()))


def merge_cmd(
    bundles: Annotated[list[Path], typer.Argument(help="Bundles written by `bundle`.")],
    into: Annotated[Path, typer.Option(help="The board's run directory (created if new).")],
    pool_machines: Annotated[
        bool,
        typer.Option(
            "--pool-machines",
            help="Accept runs that computed differently from the board's (precision, torch, "
            "CPU kernels, threads), as `show --pool-machines` pools them.",
        ),
    ] = False,
) -> None:
    """Verify bundles and add their runs to a board directory, or refuse and change nothing."""
    try:
        with _progress("verifying bundles") as advance:
            merged = merge_bundles(bundles, into, pool_machines=pool_machines,
                                   on_progress=advance)  # fmt: skip
    except LeaderboardError as err:
        raise fail(str(err)) from None
    already = f"; {len(merged.already)} already there" if merged.already else ""
    console.print(
        f"merged {len(merged.added)} runs from {len(bundles)} bundles into "
        f"{escape(str(into))}{already}: `harness leaderboard show {escape(str(into))}` shows them"
    )


@contextmanager
def _progress(label: str) -> Iterator[Callable[[int, int], None]]:
    """A transient rich bar fed by (done, total) callbacks."""
    bar = Progress(f"[progress.description]{label}", BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=console, transient=True)  # fmt: skip
    task = bar.add_task(label, total=None)
    with bar:
        yield lambda done, total: bar.update(task, completed=done, total=total)


def register(app: typer.Typer) -> None:
    """Add `bundle`, `verify` and `merge` to the `harness leaderboard` commands."""
    app.command("bundle")(bundle_cmd)
    app.command("verify")(verify_cmd)
    app.command("merge")(merge_cmd)
