"""`harness runs ...`: what is in the run directories.

Files are read through `run_records.run_files`, the reader resume and the boards use, so a damaged
file is one line naming it (what is wrong, what to do) here too, never a traceback. Rounds are
numbered and rates written as the progress lines of `harness run` write them. Where the records
say where each round's time went (`RoundTimings`), a table gives each round's shares: model
loads, optimiser steps, evaluation, the design step (serving included) and the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from envdesign_common import ConfigError
from harness_cli.common import fail
from harness_cli.comparison import rate_labels, rate_values
from harness_cli.help_pages import App
from harness_cli.progress.comparison import percent
from mapf_env import SIZES, EnvConfig
from mapf_env.instance import size_name
from run_records import (
    OVERHEAD_SHARES,
    RESULT_FILE,
    ROUND_FILE,
    RUN_FILE,
    ResultRecord,
    RoundResult,
    RoundTimings,
    RunFileError,
    check_round,
    pct,
    read_failure,
    read_result,
    read_stamp,
    recorded_task,
    round_error,
    run_records_of,
    run_status,
)
from tasks import Task, TaskLoadError, UnknownTask

app = App(help="List and inspect run directories.", no_args_is_help=True)
console = Console()


@app.command("list")
def list_cmd(
    root: Annotated[Path, typer.Argument(help="Root of the run directories.")] = Path("runs"),
) -> None:
    """Every run under ROOT: finished, failed (and why), or how many rounds it finished."""
    runs = sorted(p.parent for p in root.glob(f"**/{RUN_FILE}"))
    if not runs:
        raise fail(f"no runs under {root}/")
    table = Table(title=f"Runs under {root}/")
    for name in ("run", "status", "package", "commit"):
        table.add_column(name)
    with Progress("[progress.description]reading runs", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:  # fmt: skip
        statuses = [run_status(run) for run in bar.track(runs, description="reading runs")]
    for run, status in zip(runs, statuses, strict=True):
        stamp = status.stamp
        version = stamp.package_version if stamp else "?"
        commit = stamp.git_commit[:10] if stamp else "?"
        table.add_row(escape(str(run.relative_to(root))), escape(status.label()), version, commit)
    console.print(table)


@app.command("show")
def show_cmd(run: Annotated[Path, typer.Argument(help="A run directory.")]) -> None:
    """Rounds (configuration, validation, designer notes) and final results of one run."""
    if not (run / RUN_FILE).is_file():
        raise fail(f"{run} is not a run directory (no {RUN_FILE})")
    try:
        stamp = read_stamp(run)
        task = recorded_task(stamp.experiment.as_dict())
        record = read_result(run) if (run / RESULT_FILE).exists() else None
        failure = read_failure(run)
    except (RunFileError, UnknownTask, TaskLoadError, ConfigError) as err:
        raise fail(str(err)) from None
    total = stamp.rounds
    rounds = list(record.rounds) if record is not None else _finished_rounds(run)
    console.print(_rounds_table(run, rounds, total, task))
    for table in _config_tables(rounds, total) if rounds else []:
        console.print(table)
    for line in _config_lines(rounds, total, task):
        console.print(escape(line), soft_wrap=True)
    timed = [(r, r.timings) for r in rounds if r.timings is not None]
    if timed:
        console.print(_overhead_table(timed, total))
        for line in _overhead_notes(rounds, total):
            console.print(escape(line), soft_wrap=True)
    for line in _round_notes(run, record is not None):
        console.print(f"[yellow]note:[/] {escape(line)}", soft_wrap=True)
    if failure is not None and record is None:
        console.print(f"[red]failed:[/] {escape(failure.reason())}", soft_wrap=True)
    if record is not None:
        console.print(_final_table(record, task))


def _finished_rounds(run: Path) -> list[RoundResult]:
    """An unfinished run's rounds, up to the first whose record is missing or does not read."""
    rounds: list[RoundResult] = []
    records = run_records_of(run)
    while True:
        try:
            n = len(rounds)
            rounds.append(check_round(run / f"round-{n:03d}", n, verify=False, records=records))
        except RunFileError:
            return rounds


def _round_notes(run: Path, finished: bool) -> list[str]:
    """One line per round whose record or vouched files are damaged (or, in a finished run,
    missing): for an unfinished run resume trains it again, a finished one does not need it."""
    notes, records = [], run_records_of(run)
    for round_dir in sorted(run.glob("round-[0-9][0-9][0-9]")):
        err = round_error(round_dir, int(round_dir.name.removeprefix("round-")), records=records)
        if err is None or (not finished and err.path == round_dir / ROUND_FILE and
                           err.problem == "missing"):  # fmt: skip
            continue  # the round that was running when the run stopped
        kept = f"{RESULT_FILE} holds the finished run's rounds, so its results are intact"
        notes.append(f"{err.path} {err.wrong}; {kept}" if finished else str(err))
    return notes


def _round_label(r: RoundResult, total: int | None) -> str:
    """`round 2/3`, as the progress lines count rounds (from 1)."""
    return f"{r.round + 1}/{total if total is not None else '?'}"


def _rounds_table(run: Path, rounds: list[RoundResult], total: int | None,
                  task: Task[Any, Any]) -> Table:  # fmt: skip
    """Each round's validation rates (as the task reads its report), training seconds,
    designer and projection notes; the long headers on two lines, so that a designer entry
    such as `gpt@V6+details` fits 80 columns whole (a longer one folds, never cut)."""
    table = Table(title=f"{escape(str(run))}: rounds (validation, greedy)")
    rates = [task.rates(r.validation).overall for r in rounds]
    labels = rate_labels(rates[0]) if rates else ("valid",)
    columns = ("round", *(label.replace(" ", "\n", 1) if len(label) > 8 else label
                          for label in labels),
               "train s", "designer", "projection\nnotes")  # fmt: skip
    for name in columns:
        table.add_column(name, justify="right", overflow="fold")
    for r, read in zip(rounds, rates, strict=True):
        proposal = r.proposal
        values = rate_values(read) or ()
        table.add_row(_round_label(r, total), *(percent(v) for v in values),
                      f"{r.train_seconds:.1f}",
                      escape(proposal.designer) if proposal else "-",
                      str(len(proposal.notes)) if proposal else "-")  # fmt: skip
    return table


CONFIG_FIELDS = (("ratio", "share of samples"), ("hole_ratio", "hole ratio"),
                 ("wait_ratio", "wait ratio"))  # fmt: skip
"""The fields of each size's configuration, a table each."""


def _config_tables(rounds: list[RoundResult], total: int | None) -> list[Table]:
    """Each round's MAPF-FrozenLake configuration, a table per field (share of samples,
    holes, waits): rounds down, sizes across, percentages without a `%` in the cells, so that
    eight sizes fit 80 columns with no cell cut. None for another task's configurations
    (`_config_lines`)."""
    if not all(isinstance(r.config, EnvConfig) for r in rounds):
        return []
    tables = []
    for field, what in CONFIG_FIELDS:
        table = Table(title=f"Configuration each round trained on: {what} per size (%)")
        table.add_column("round", justify="right")
        for size in SIZES:  # as wide as 100.0, so the three tables line up
            table.add_column(size_name(size), justify="right", min_width=5)
        for r in rounds:
            table.add_row(_round_label(r, total),
                          *(pct(getattr(r.config.sizes[s], field)) for s in SIZES))  # fmt: skip
        tables.append(table)
    return tables


def _config_lines(rounds: list[RoundResult], total: int | None, task: Task[Any, Any]) -> list[str]:
    """Each round's configuration as the task describes it to a designer, where no table
    lays it out (`_config_tables`)."""
    if all(isinstance(r.config, EnvConfig) for r in rounds):
        return []
    lines = ["Configuration each round trained on:"]
    for r in rounds:
        lines.append(f"round {_round_label(r, total)}:")
        lines += [f"  {line}" for line in task.describe_config(r.config).splitlines()]
    return lines


LOAD_NAMES = {"training": "train", "evaluation": "eval", "serving-policy": "serve policy",
              "serving-base": "serve base"}  # fmt: skip
SHARE_HEADERS = {"training steps": "train steps", "evaluation": "eval"}
"""Shorter headers for two shares (`OVERHEAD_SHARES`), so that the table fits 80 columns with
no header cut (the two-word ones wrap where it is narrow)."""


def _overhead_table(timed: list[tuple[RoundResult, RoundTimings]], total: int | None) -> Table:
    """Each round's seconds, its model loads and the share of each part of its time (in %,
    without a `%` in the cells, so the table fits 80 columns with no cell cut)."""
    table = Table(title="Where each round's time went (% of the round)")
    for name in ("round", "seconds", "loads", *OVERHEAD_SHARES):
        table.add_column(SHARE_HEADERS.get(name, name), justify="right")
    for r, t in timed:
        shares, whole = t.shares(), t.total or 1.0
        loads = " + ".join(LOAD_NAMES.get(x.kind, x.kind) for x in t.loads) or "none"
        table.add_row(_round_label(r, total), f"{t.total:.1f}", loads,
                      *(pct(shares[k] / whole) for k in OVERHEAD_SHARES))  # fmt: skip
    return table


def _overhead_notes(rounds: list[RoundResult], total: int | None) -> list[str]:
    """The backend's target (once, or per round where it changed) and its notes."""
    lines, last = [], None
    for r in rounds:
        if r.target is not None and r.target != last:
            lines.append(f"round {_round_label(r, total)} ran on: {_describe_target(r.target)}")
            last = r.target
        notes = r.timings.notes if r.timings is not None else ()
        lines += [f"round {_round_label(r, total)}: {note}" for note in notes]
    return lines


def _describe_target(target: dict[str, object]) -> str:
    """The verl target's own one-line description where the fields are a verl target's."""
    from harness.backends.verl.target import VerlTarget

    try:
        return VerlTarget(**target).describe()  # type: ignore[arg-type]
    except TypeError:
        return ", ".join(f"{key} {value}" for key, value in target.items())


def _final_table(record: ResultRecord, task: Task[Any, Any]) -> Table:
    sums = {name: (task.suite_rates(result).sum(), task.suite_rates(result, best_of=True).sum())
            for name, result in record.suites.items()}  # fmt: skip
    first = next(iter(sums.values()), None)
    labels = " / ".join(rate_labels(first[0])) if first else "valid"
    final = Table(title=f"Benchmarks: {labels} Sum (%), greedy and best-of-n")
    for name in ("suite", "greedy", f"best of {record.experiment.best_of}"):
        final.add_column(name, justify="right")
    for name, (greedy, best) in sums.items():
        final.add_row(name, *(" / ".join(pct(v) for v in rate_values(r) or ())
                              for r in (greedy, best)))  # fmt: skip
    return final
