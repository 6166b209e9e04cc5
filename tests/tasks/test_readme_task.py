"""The README's "Write a task" section works as written.

Its code blocks are read from README.md itself: the task module and its pyproject.toml are
pip-installed as a plug-in, the Python snippet (`check_task`) is run, every `harness` command
shown is run through the real CLI, and the comparison it says is refused is refused so.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app
from tasks import create_task
from tests.readme_blocks import README, installed_readme_plugin

SECTION = "### Write a task"
runner = CliRunner()


@pytest.fixture
def blocks(tmp_path: Path) -> Iterator[list[tuple[str, str]]]:
    """The section's blocks, with its task package installed from them."""
    with installed_readme_plugin(SECTION, tmp_path, "adding_task") as found:
        yield found


def test_the_readme_task_keeps_the_contract_and_adds(blocks: list[tuple[str, str]]) -> None:
    [snippet] = [text for language, text in blocks if language == "python" and "class " not in text]
    exec(compile(snippet, f"{README.name} ({SECTION})", "exec"), {})  # raises if a rule breaks
    task = create_task("adding")
    item = task.generate(task.initial_config(0, 32), 7).items[0]
    assert task.judge(item, f"It is {sum(item)}").valid
    assert task.judge(item, f"{sum(item) + 1}").failure == "wrong"
    assert task.project(task.initial_config(0, 32), {"largest": 10**6}).config.largest == 999


def test_the_readme_commands_run_and_a_comparison_is_refused_in_one_line(
    blocks: list[tuple[str, str]],
) -> None:
    lines = [line.partition("#")[0] for language, text in blocks if language == "bash"
             for line in text.splitlines()]  # fmt: skip
    commands = [shlex.split(line) for line in lines if line.strip().startswith("harness ")]
    assert [c[:3] for c in commands] == [["harness", "tasks", "list"],
                                         ["harness", "tasks", "check"]]  # fmt: skip
    for command in commands:
        result = runner.invoke(app, command[1:], terminal_width=200)
        assert result.exit_code == 0, result.output
    assert "adding-v1" in runner.invoke(app, ["tasks", "list"], terminal_width=200).output
    refused = runner.invoke(app, ["compare", "--set", "task=adding", "--dry-run"])
    assert refused.exit_code == 2
    [line] = [line for line in refused.output.splitlines() if line.strip()]
    assert line.startswith("error: ") and line.endswith(
        "quick.yaml: backend: 'cpu' trains mapf-frozenlake only, not task 'adding-v1'; choose a "
        "backend that serves it (harness backends list says which) (got 'cpu')"
    )
