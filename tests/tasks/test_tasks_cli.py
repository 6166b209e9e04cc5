"""`harness tasks show`: what a designer may turn and what a board groups by, for every task."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from harness_cli import app
from tasks import TASKS, create_task, task_spec

runner = CliRunner()


@pytest.mark.parametrize("task_id", TASKS.names())
def test_show_lists_settings_knobs_cuts_suites_and_round_zero(task_id: str) -> None:
    task, settings = create_task(task_id), task_spec(task_id).settings
    shown = runner.invoke(app, ["tasks", "show", task_id, "--samples", "40"], terminal_width=240)
    assert shown.exit_code == 0, shown.output
    for knob in task.knobs():
        assert knob.path in shown.output
    assert f"cuts: {', '.join(task.cuts)}" in shown.output
    for name in task.suite_names:
        suite = task.suite(name)
        assert f"{suite.checksum[:16]}" in shown.output and f" {len(suite.items)} " in shown.output
    assert settings is not None and all(name in shown.output for name in settings.model_fields)
    assert task.describe_config(task.initial_config(0, 40)).splitlines()[0] in shown.output


def test_an_unknown_task_is_one_line_with_close_names() -> None:
    shown = runner.invoke(app, ["tasks", "show", "reasoning-jym"], terminal_width=200)
    assert shown.exit_code == 2
    assert shown.output.strip().startswith("error: no task 'reasoning-jym'; did you mean")
