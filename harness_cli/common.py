"""What the sub-commands share: one-line errors and the run options."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.executors import LocalExecutor, plan
from harness.experiment import ExperimentConfig, Override


def fail(message: str) -> typer.Exit:
    """Print a one-line error (no traceback) and return the exit to raise; the message is
    printed as written (it may quote user input: brackets are text, never rich markup)."""
    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(message)}")
    return typer.Exit(2)


class Debug:
    """Whether `--debug` was given, on `harness` itself or on the sub-command: tracebacks of
    failed runs are then printed, not only named."""

    on = False


def show_traceback(text: str) -> None:
    """Print a traceback to stderr as it is (no markup, no highlighting), under `--debug`."""
    if Debug.on:
        Console(stderr=True, soft_wrap=True).print(text.rstrip("\n"), markup=False,
                                                   highlight=False)  # fmt: skip


def fail_lines(lines: list[str], code: int = 2) -> typer.Exit:
    """Print one error line per problem (all of them at once) and return the exit to raise."""
    console = Console(stderr=True, soft_wrap=True)
    for line in lines:
        console.print(f"[bold red]error:[/] {escape(line)}")
    return typer.Exit(code)


def runs_at_once(experiment: ExperimentConfig, workers: int | None) -> int:
    """How many of the experiment's runs the local executor runs at once with `workers`
    (what the disk budget counts); a bad `--workers` exits with one line."""
    try:
        return LocalExecutor(workers).at_once(experiment, len(plan(experiment)))
    except ValueError as err:
        raise fail(str(err)) from None


def roster_overrides(designers: str | None, seeds: int | None) -> list[Override]:
    """`--designers a,b` and `--seeds N` as experiment overrides (none for options not given);
    a `typer.Exit` for an empty list or a seed count below 1."""
    names = tuple(d.strip() for d in (designers or "").split(",") if d.strip())
    if designers is not None and not names:
        raise fail("--designers needs at least one name")
    if seeds is not None and seeds < 1:
        raise fail("--seeds must be at least 1")
    chosen = [Override(("designers",), names, f"--designers {designers}")] if names else []
    if seeds:
        chosen.append(Override(("seeds",), tuple(range(seeds)), f"--seeds {seeds}"))
    return chosen


SetOption = Annotated[list[str] | None, typer.Option("--set", help="key=value override.")]
OutOption = Annotated[Path, typer.Option(help="Root of the run directories.")]
ResumeOption = Annotated[bool, typer.Option(help="Continue runs after their last round.")]
WorkersOption = Annotated[int | None, typer.Option(help="Runs in parallel.")]
QuietOption = Annotated[bool, typer.Option(help="Only the final table.")]
JsonOption = Annotated[bool, typer.Option("--json", help="JSON lines for scripts.")]
ExecutorOption = Annotated[
    str, typer.Option(help="Where runs execute: local (a process per run) or ray (a Ray cluster).")
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        help="With --executor ray: the Ray cluster to join (auto, or ray://head:10001); default: "
        "a Ray instance on this machine. With backend verl and the local executor: the cluster "
        "every training round is submitted to as a job (http://head:8265). On a cluster --out "
        "must be a shared filesystem path."
    ),
]
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Print round 0 of every run -- files and commands (verl, vLLM) -- and run nothing.",
    ),
]
CpusPerRunOption = Annotated[
    float | None,
    typer.Option(help="With --executor ray: CPUs (and torch threads) per run; default 1."),
]
GpusPerRunOption = Annotated[
    float | None,
    typer.Option(help="With --executor ray: GPUs per run; default 0 (cpu backend), 4 (verl)."),
]
LoggerOption = Annotated[
    list[str] | None,
    typer.Option("--logger", help="Also log curves to tensorboard or wandb (repeatable)."),
]
DebugOption = Annotated[
    bool,
    typer.Option(
        "--debug", help="Print the traceback of each failed run, not only the log naming it."
    ),
]
AllowDesignFailuresOption = Annotated[
    bool,
    typer.Option(
        "--allow-design-failures",
        help="Keep designers whose every design step failed (e.g. no model answered) on the "
        "board, flagged; without it such a designer is left unranked and the command exits 1.",
    ),
]


def registered_table(
    kind: str,
    group: str,
    described: dict[str, str],
    tasks: Mapping[str, tuple[str, ...] | None] | None = None,
) -> Table:
    """Every registered `kind` (name and description), as `harness designers|backends|tasks
    list` show them: built-ins and plug-ins alike, from the entry-point `group`; with `tasks`,
    the task families each serves (any, where it declares none)."""
    table = Table(title=f"{kind} (entry-point group {group})")
    table.add_column("name", style="bold")
    if tasks is not None:
        table.add_column("tasks")
    table.add_column("description")
    for name, description in described.items():
        if tasks is None:
            table.add_row(name, description)
        else:
            served = tasks.get(name)
            table.add_row(name, "any" if served is None else ", ".join(served), description)
    return table
