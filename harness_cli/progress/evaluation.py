"""How an evaluation's progress reaches the terminal: a bar per suite, lines, JSON, or nothing.

On a terminal each suite gets a rich bar over its instances with the live valid rate of the
first answers, failed requests and cached answers. Elsewhere (a CI log, a pipe) each finished
suite is one line; `--json` prints start, suite and done events as JSON lines; `--quiet` prints
nothing until the final table.
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn

from harness.policy_eval.events import EvalEvent
from harness_cli.progress.live import LiveView


class EvalView(LiveView):
    """Turns `EvalEvent`s into terminal output in one of four modes."""

    def __init__(self, console: Console, *, quiet: bool = False, as_json: bool = False) -> None:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[status]}"), TimeElapsedColumn())  # fmt: skip
        super().__init__(console, columns, quiet=quiet, as_json=as_json)
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, event: EvalEvent) -> None:
        if self.as_json:
            if event.kind != "instance":
                print(json.dumps(event.to_json()), flush=True)
        elif self.bars:
            self._bar(event)
        elif not self.quiet and event.kind == "suite":
            self.console.print(f"{escape(event.suite)}: {event.done} instances, {status(event)}")

    def _bar(self, event: EvalEvent) -> None:
        if event.kind == "done":
            return
        task = self.tasks.get(event.suite)
        if task is None:
            task = self.progress.add_task(escape(event.suite), total=event.total, status="")
            self.tasks[event.suite] = task
        self.progress.update(task, completed=event.done, status=status(event))


def status(event: EvalEvent) -> str:
    """`valid 41.0% · 2 failed · 30 cached` (the valid rate of first answers so far)."""
    rate = event.valid_rate
    parts = ["valid -" if rate is None else f"valid {100 * rate:.1f}%"]
    if event.failed:
        parts.append(f"{event.failed} failed")
    if event.cached:
        parts.append(f"{event.cached} cached")
    return " · ".join(parts)
