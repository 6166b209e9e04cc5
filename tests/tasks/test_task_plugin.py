"""A task from outside the project (the `adding` task of the documentation's "Write a task"
page): one entry-point line makes it a task the harness refuses to pair with a backend or a
designer that cannot serve it, each in one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from envdesign_common import ConfigError
from harness.designer_checks import designer_problems
from harness.experiment import ExperimentConfig
from harness_cli import app
from tasks import TASKS, UnknownTask, check_task, create_task, resolve_task_id
from tests.doc_blocks import doc_blocks
from tests.plugin_sites import plugin_site

HERE = Path(__file__).resolve().parent
MEMO = HERE.parent / "harness" / "backend_plugin" / "memo_backend.py"
runner = CliRunner()


@pytest.fixture
def adding(tmp_path: Path) -> Iterator[None]:
    entries = {"harness.tasks": {"adding-v1": "adding_task:SPEC"},
               "harness.backends": {"memo": "memo_backend:SPEC"}}  # fmt: skip
    [module] = [text for language, text in doc_blocks("tasks/write-a-task.md")
                if language == "python" and "class " in text]  # fmt: skip
    (tmp_path / "adding_task.py").write_text(module, encoding="utf-8")
    modules = {"adding_task": tmp_path / "adding_task.py", "memo_backend": MEMO}
    with plugin_site(tmp_path / "site", "adding-task", entries, modules):
        yield


def test_one_entry_point_line_registers_a_task_that_keeps_the_contract(adding: None) -> None:
    assert "adding-v1" in TASKS.names()
    assert resolve_task_id("adding") == "adding-v1"
    check_task(create_task("adding"))


def test_the_task_is_gone_with_its_package() -> None:
    with pytest.raises(UnknownTask, match="no task 'adding'"):
        resolve_task_id("adding")


def test_a_backend_for_another_task_is_refused_in_one_line(adding: None) -> None:
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.from_mapping({"task": "adding", "backend": "cpu"})
    assert str(err.value).count("\n") == 0
    assert "backend: 'cpu' trains mapf-frozenlake only, not task 'adding-v1'" in str(err.value)


def test_verl_refuses_a_task_whose_items_do_not_travel_as_text(adding: None) -> None:
    """verl's reward workers rebuild items from text: a task without an ItemCodec is refused
    before any work, in one line saying what to implement."""
    with pytest.raises(ConfigError) as err:
        ExperimentConfig.from_mapping({"task": "adding", "backend": "verl", "policy": "/m"})
    assert str(err.value).count("\n") == 0
    assert "task 'adding-v1' declares no ItemCodec (encode_item, decode_item)" in str(err.value)


def test_a_designer_for_another_task_is_refused_in_one_line(adding: None) -> None:
    experiment = ExperimentConfig.from_mapping(
        {
            "task": "adding",
            "backend": "memo",
            "policy": "memo",
            "designers": ["random", "hand", "uniform", "evidence", "learning-progress", "regret"],
        }
    )
    assert experiment.task == "adding-v1"
    assert designer_problems(experiment, ready=False) == [
        f"designer {name!r} designs for mapf-frozenlake only, not for task 'adding-v1'; choose "
        "designers that serve the task (harness designers list says which)"
        for name in ("hand", "evidence")  # random and uniform design for any task
    ] + [  # the teachers serve any task that has arms: this one declares no budget share
        f"designer {name!r} budgets per value of a task's first cut, and task 'adding-v1' "
        "declares no share knob over its first cut 'digits': declare one, e.g. "
        "Knob('<table>.*.<share>', 0, 1, ..., share=True, cut='digits')"
        for name in ("learning-progress", "regret")
    ]


def test_the_cli_lists_and_checks_tasks(adding: None, monkeypatch: pytest.MonkeyPatch) -> None:
    listed = runner.invoke(app, ["tasks", "list"], terminal_width=200)
    assert listed.exit_code == 0 and "adding-v1" in listed.output
    assert "mapf-frozenlake-v2" in listed.output
    good = runner.invoke(app, ["tasks", "check", "adding"])
    assert good.exit_code == 0, good.output
    assert "task 'adding-v1' keeps the task contract" in good.output

    import adding_task  # on the path while the plug-in is installed

    monkeypatch.setattr(adding_task.Adding, "reward", lambda self, *a, **k: 7.0)
    bad = runner.invoke(app, ["tasks", "check", "adding"], terminal_width=200)
    assert bad.exit_code == 1
    assert "reward (seed 0): reward 7.0 outside (0.0, 1.0); keep the reward" in bad.output
    unknown = runner.invoke(app, ["tasks", "check", "addng"], terminal_width=200)
    assert unknown.exit_code == 2
    assert "no task 'addng'; did you mean adding?" in unknown.output
