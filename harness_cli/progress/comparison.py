"""How a comparison's progress reaches the terminal: bars, plain lines, JSON lines, or nothing.

On a terminal every run gets a rich bar that advances through each round's phases (generate,
train, evaluate, design) and shows the live valid rate of the training rollouts and the last
validation result. Where output is not a terminal (a CI log, a pipe) bars would only print at
the end, so each finished round is a plain line instead. `--json` prints every event as a
JSON line for scripts; `--quiet` prints nothing until the final table. Designer names and
design failures are user- and model-written: they are escaped, never read as rich markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, TaskID, TextColumn, TimeElapsedColumn

from harness.events import ROUND_PHASES, RunEvent
from harness.executors import Job
from harness_cli.progress.live import LiveView

UNITS_PER_ROUND = len(ROUND_PHASES)


def _units(event: RunEvent) -> int:
    """Bar position: finished phases so far (the benchmark is one more unit at the end)."""
    if event.phase == "done":
        return event.rounds * UNITS_PER_ROUND + 1
    if event.phase == "benchmark":
        return event.rounds * UNITS_PER_ROUND
    return event.round * UNITS_PER_ROUND + ROUND_PHASES.index(event.phase)


class ProgressView(LiveView):
    """Turns `RunEvent`s into terminal output in one of four modes."""

    def __init__(self, console: Console, jobs: Sequence[Job], rounds: int, *,
                 quiet: bool = False, as_json: bool = False) -> None:  # fmt: skip
        columns = (TextColumn("{task.description}"), BarColumn(),
                   TextColumn("{task.fields[status]}"), TimeElapsedColumn())  # fmt: skip
        super().__init__(console, columns, quiet=quiet, as_json=as_json)
        self.tasks: dict[tuple[str, int], TaskID] = {}
        self.validation: dict[tuple[str, int], str] = {}
        if self.bars:
            for job in jobs:
                self.tasks[job.designer, job.seed] = self.progress.add_task(
                    f"{escape(job.designer)} seed {job.seed}",
                    total=rounds * UNITS_PER_ROUND + 1,
                    status="waiting",
                )

    def __call__(self, event: RunEvent) -> None:
        if self.as_json:
            print(json.dumps({"event": event.kind, **event.to_json()}), flush=True)
        elif self.bars:
            self._bar(event)
        elif not self.quiet and event.kind == "round":
            self.console.print(
                f"{escape(event.designer)} seed {event.seed} round {event.round + 1}/"
                f"{event.rounds}: {_validation(event)}{_design(event)}"
            )

    def _bar(self, event: RunEvent) -> None:
        key = (event.designer, event.seed)
        task = self.tasks.get(key)
        if task is None:
            return
        if event.kind == "round":
            self.validation[key] = _validation(event) + _design(event)
            return
        where = f"round {event.round + 1}/{event.rounds}"
        if event.kind == "step":
            status = f"{where} train · rollouts {percent(event.valid_rate)} valid"
        elif event.phase in ("benchmark", "done"):
            status = "benchmarks" if event.phase == "benchmark" else "done"
        else:
            status = f"{where} {event.phase}"
        if last := self.validation.get(key):
            status += f" · {last}"
        self.progress.update(task, completed=_units(event), status=status)


def percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def _design(event: RunEvent) -> str:
    """The round's design step, when it failed: the previous configuration was kept."""
    if event.design_failure is None:
        return ""
    return f" · [bold red]design failed: {escape(event.design_failure)}[/] (configuration kept)"


def _validation(event: RunEvent) -> str:
    """The round's validation: its valid rate and the first of the task's optimal rates the
    validation set carries minima for (MAPF-FrozenLake: makespan, the paper's, else SOC),
    named; the mean score for a task without optima."""
    known = [(kind, rate) for kind, rate in event.optimal if rate is not None]
    second = (
        f"opt. {known[0][0]} {percent(known[0][1])}"
        if known
        else (f"score {percent(event.score)}" if not event.optimal else "optimal -")
    )
    return f"validation valid {percent(event.valid_rate)}, {second}"
