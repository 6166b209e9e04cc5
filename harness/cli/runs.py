"""`harness runs ...`: what is in the run directories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from harness.cli.common import fail
from harness.records import ResultRecord, RoundResult
from harness.run_dir import RESULT_FILE, ROUND_FILE, RUN_FILE
from harness.summary import size_mean

app = typer.Typer(help="List and inspect run directories.", no_args_is_help=True)
console = Console()


@app.command("list")
def list_cmd(
    root: Annotated[Path, typer.Argument(help="Root of the run directories.")] = Path("runs"),
) -> None:
    """Every run under ROOT with its progress."""
    runs = sorted(p.parent for p in root.glob(f"**/{RUN_FILE}"))
    if not runs:
        raise fail(f"no runs under {root}/")
    table = Table(title=f"Runs under {root}/")
    for name in ("run", "rounds done", "of", "finished", "package", "commit"):
        table.add_column(name)
    for run in runs:
        stamp = json.loads((run / RUN_FILE).read_text(encoding="utf-8"))
        done = sum(1 for _ in run.glob(f"round-*/{ROUND_FILE}"))
        total = stamp.get("experiment", {}).get("rounds", "?")
        finished = "yes" if (run / RESULT_FILE).exists() else "no"
        version, commit = str(stamp.get("package_version")), str(stamp.get("git_commit"))[:10]
        table.add_row(str(run.relative_to(root)), str(done), str(total), finished, version, commit)
    console.print(table)


@app.command("show")
def show_cmd(run: Annotated[Path, typer.Argument(help="A run directory.")]) -> None:
    """Rounds (configuration, validation, designer notes) and final results of one run."""
    if not (run / RUN_FILE).is_file():
        raise fail(f"{run} is not a run directory (no {RUN_FILE})")
    rounds = [RoundResult.model_validate_json(p.read_text(encoding="utf-8"))
              for p in sorted(run.glob(f"round-*/{ROUND_FILE}"))]  # fmt: skip
    table = Table(title=f"{run}: rounds")
    for name in ("round", "valid", "optimal", "train s", "designer", "projection notes"):
        table.add_column(name, justify="right")
    for r in rounds:
        overall = r.validation.overall
        proposal = r.proposal
        table.add_row(str(r.round), f"{overall.valid_rate:.3f}", f"{overall.optimal_rate:.3f}",
                      f"{r.train_seconds:.1f}", proposal.designer if proposal else "-",
                      str(len(proposal.notes)) if proposal else "-")  # fmt: skip
    console.print(table)
    if (run / RESULT_FILE).exists():
        record = ResultRecord.model_validate_json((run / RESULT_FILE).read_text(encoding="utf-8"))
        final = Table(title="Benchmarks: valid / optimal Sum (%), greedy and best-of-n")
        for name in ("suite", "greedy", f"best of {record.experiment.get('best_of', '?')}"):
            final.add_column(name, justify="right")
        for name, result in record.suites.items():
            g, b = size_mean(result), size_mean(result, best_of=True)
            final.add_row(name, f"{100 * g[0]:.1f} / {100 * g[1]:.1f}",
                          f"{100 * b[0]:.1f} / {100 * b[1]:.1f}")  # fmt: skip
        console.print(final)
