"""`harness tasks ...`: what tasks are registered, and whether one keeps the contract."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from envdesign_common import ConfigError
from harness_cli.common import fail, fail_lines, registered_table
from harness_cli.help_pages import App
from tasks import (
    GROUP,
    TaskConformanceError,
    TaskLoadError,
    UnknownTask,
    check_task,
    create_task,
    describe_tasks,
)

app = App(help="Tasks registered under the harness.tasks entry points.", no_args_is_help=True)
console = Console()


@app.command("list")
def list_cmd() -> None:
    """Every registered task, built-in or plug-in, by versioned id, with its description."""
    console.print(registered_table("Tasks", GROUP, describe_tasks()))


@app.command("check")
def check_cmd(
    task: Annotated[str, typer.Argument(help="A task id (mapf-frozenlake-v2) or family name.")],
    seeds: Annotated[int, typer.Option(help="Seeds to generate from (0, 1, ...).", min=1)] = 2,
) -> None:
    """Hold a task to the contract the harness relies on (`check_task`): determinism,
    reference answers, judging and reward on hostile answers, knobs' bounds, suite checksums.
    Every broken rule is one line saying what was seen and how to fix it."""
    try:
        made = create_task(task)
    except (UnknownTask, TaskLoadError, ConfigError) as err:
        raise fail(str(err)) from None
    try:
        check_task(made, seeds=tuple(range(seeds)))
    except TaskConformanceError as err:
        raise fail_lines([str(problem) for problem in err.problems], code=1) from None
    console.print(f"task {made.id!r} keeps the task contract ({seeds} seeds, every suite)")
