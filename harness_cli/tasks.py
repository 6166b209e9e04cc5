"""`harness tasks ...`: what tasks are registered, and whether one keeps the contract."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from envdesign_common import ConfigError
from envdesign_common.field_errors import shorten
from harness.experiment import ExperimentConfig
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
    task_spec,
)

ROUND_SAMPLES: int = ExperimentConfig.model_fields["samples_per_round"].default
"""An experiment's items a round unless it says otherwise."""

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


@app.command("show")
def show_cmd(
    task: Annotated[str, typer.Argument(help="A task id (mapf-frozenlake-v2) or family name.")],
    samples: Annotated[
        int, typer.Option(help="Items a round, for round 0's configuration.", min=1)
    ] = ROUND_SAMPLES,
) -> None:
    """What a task is to an experiment, a designer and a board: the settings an experiment
    fixes (``task_settings``), the knobs a designer may turn and their bounds, the cuts results
    are grouped by, its failure types, optimal kinds and reward bounds, its suites (items and
    checksum) and round 0's configuration as designers read it."""
    try:
        spec = task_spec(task)
        made = create_task(task)
    except (UnknownTask, TaskLoadError, ConfigError) as err:
        raise fail(str(err)) from None
    console.print(f"[bold]{made.id}[/]: {escape(made.description)}", soft_wrap=True)
    if spec.settings is not None:
        settings = Table(title="task_settings (the experiment fixes them)")
        for column in ("field", "default", "what"):
            settings.add_column(column)
        defaults = spec.settings().model_dump(mode="json")
        for name, field in spec.settings.model_fields.items():
            settings.add_row(name, shorten(json.dumps(defaults[name])), field.description or "")
        console.print(settings)
    knobs = Table(title="knobs a designer may turn")
    knobs.add_column("path", no_wrap=True)  # a designer writes it: never cut
    for column in ("bounds", "what"):
        knobs.add_column(column)
    for knob in made.knobs():
        knobs.add_row(knob.path, knob.bounds_text, knob.description)
    console.print(knobs)
    for label, values in (("cuts", made.cuts), ("failure types", made.failure_types),
                          ("optimal kinds", made.optimal_kinds)):  # fmt: skip
        console.print(f"{label}: {', '.join(values) or 'none'}", markup=False)
    low, high = made.reward_bounds
    console.print(f"reward: {low:g}..{high:g}", markup=False)
    suites = Table(title="suites")
    for column in ("name", "version", "items", "checksum"):
        suites.add_column(column)
    for name in made.suite_names:
        suite = made.suite(name)
        suites.add_row(name, str(suite.version), str(len(suite.items)), suite.checksum[:16])
    console.print(suites)
    console.print(f"round 0 (seed 0, {samples} items), as designers read it:", markup=False)
    start = made.initial_config(0, samples)
    console.print(made.describe_config(start), markup=False, highlight=False)
