"""The documentation's "Write a task" page works as written.

Its code blocks are read from the page itself: the task module and its pyproject.toml are
pip-installed as a plug-in, the Python snippet (`check_task`) is run, every `harness` command
shown is run -- the comparison with the trl backend and SmolLM2-135M-Instruct as a user would,
in a process of its own, its runs then published as a site -- and a backend it says is refused
is refused so.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app
from leaderboards import load_runs, publish_site
from run_records import read_result
from tasks import create_task
from tests.doc_blocks import installed_doc_plugin

REPO = Path(__file__).resolve().parents[2]

PAGE = "tasks/write-a-task.md"
runner = CliRunner()


@pytest.fixture
def blocks(tmp_path: Path) -> Iterator[list[tuple[str, str]]]:
    """The page's blocks, with its task package installed from them."""
    with installed_doc_plugin(PAGE, tmp_path, "adding_task") as found:
        yield found


def test_the_documented_task_keeps_the_contract_and_adds(blocks: list[tuple[str, str]]) -> None:
    [snippet] = [text for language, text in blocks if language == "python" and "class " not in text]
    exec(compile(snippet, f"docs/{PAGE}", "exec"), {})  # raises if a rule breaks
    task = create_task("adding")
    item = task.generate(task.initial_config(0, 32), 7).items[0]
    assert task.judge(item, f"It is {sum(item)}").valid
    assert task.judge(item, f"{sum(item) + 1}").failure == "wrong"
    assert task.project(task.initial_config(0, 32), {"largest": 10**6}).config.largest == 999


@pytest.mark.trl
def test_the_documented_commands_run_and_a_trl_comparison_runs_on_the_task(
    blocks: list[tuple[str, str]], tmp_path: Path, smollm2: Path
) -> None:
    lines = [line.partition("#")[0] for language, text in blocks if language == "bash"
             for line in text.splitlines()]  # fmt: skip
    commands = [shlex.split(line) for line in lines if line.strip().startswith("harness ")]
    assert [c[:3] for c in commands] == [["harness", "tasks", "list"],
                                         ["harness", "tasks", "check"],
                                         ["harness", "compare", "--preset"]]  # fmt: skip
    *listings, compare = commands
    for command in listings:
        result = runner.invoke(app, command[1:], terminal_width=200)
        assert result.exit_code == 0, result.output
    assert "adding-v1" in runner.invoke(app, ["tasks", "list"], terminal_width=200).output

    [preset] = [text for language, text in blocks if language == "yaml"]
    (tmp_path / "adding.yaml").write_text(preset, encoding="utf-8")
    # The shell would put the model's folder in place of its command substitution.
    policy = subprocess.run([sys.executable, "-m", "harness.backends.trl.model_files"],
                            capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    assert Path(policy) == smollm2
    argv = [arg.replace("$(python -m harness.backends.trl.model_files)", policy)
            for arg in compare[1:]]  # fmt: skip
    site = str(tmp_path / "site")  # where the fixture pip-installed the task
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([site, str(REPO)])}
    done = subprocess.run([sys.executable, "-m", "harness_cli", *argv, "--quiet"],
                          capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=1800)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    for designer in ("random", "uniform"):
        record = read_result(tmp_path / "runs" / "adding" / designer / "seed-0")
        assert record.rounds[0].training and record.rounds[0].training.steps
        assert len(record.suites["fixed"].verdicts) == 4
        assert designer in done.stdout
    site = publish_site(load_runs([tmp_path / "runs"]), tmp_path / "web", resamples=50).out
    index = (site / "index.html").read_text()
    assert "Configuration heatmaps left out: task adding-v1 declares no share knob" in index
    assert not list(site.glob("plots/trajectory-*")), "a task without arms has no heatmaps"
    assert (site / "runs/uniform-seed-0.html").is_file()
    assert (site / "plots/validation.svg").is_file()


def test_a_backend_that_serves_mapf_only_is_refused_in_one_line(
    blocks: list[tuple[str, str]],
) -> None:
    refused = runner.invoke(app, ["compare", "--set", "task=adding", "--dry-run"])
    assert refused.exit_code == 2
    [line] = [line for line in refused.output.splitlines() if line.strip()]
    assert line.startswith("error: ") and line.endswith(
        "quick.yaml: backend: 'cpu' trains mapf-frozenlake only, not task 'adding-v1'; choose a "
        "backend that serves it (harness backends list says which) (got 'cpu')"
    )
