"""Run directories: created once, resumed only by the same experiment and version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.experiment import ExperimentConfig
from harness.run_dir import RunDir
from run_records import RunDirError


def test_paths_are_safe_for_any_designer_spec(tmp_path: Path) -> None:
    run = RunDir(tmp_path, ExperimentConfig(name="exp 1"), "llm:openai/gpt-4o", seed=2)
    assert run.path == tmp_path / "exp_1" / "llm_openai_gpt-4o" / "seed-2"


def test_open_creates_then_requires_resume(tmp_path: Path) -> None:
    experiment = ExperimentConfig(name="e")
    run = RunDir(tmp_path, experiment, "random", 0)
    run.open(resume=False)
    stamp = json.loads((run.path / "run.json").read_text())
    assert {"schema_version", "package_version", "git_commit", "experiment"} <= set(stamp)
    with pytest.raises(RunDirError, match="--resume"):
        RunDir(tmp_path, experiment, "random", 0).open(resume=False)
    RunDir(tmp_path, experiment, "random", 0).open(resume=True)
    other = experiment.model_copy(update={"rounds": 7})
    with pytest.raises(RunDirError, match="another experiment config"):
        RunDir(tmp_path, other, "random", 0).open(resume=True)


def test_a_run_from_another_schema_version_is_refused(tmp_path: Path) -> None:
    run = RunDir(tmp_path, ExperimentConfig(name="e"), "random", 0)
    run.open(resume=False)
    stamp = json.loads((run.path / "run.json").read_text())
    stamp["schema_version"] = "0"
    (run.path / "run.json").write_text(json.dumps(stamp))
    with pytest.raises(RunDirError, match="schema 0"):
        run.open(resume=True)


def test_unfinished_rounds_are_not_counted_and_are_cleared(tmp_path: Path) -> None:
    run = RunDir(tmp_path, ExperimentConfig(name="e"), "random", 0)
    run.open(resume=False)
    run.start_round(0)
    (run.round_path(0) / "leftover.txt").write_text("half a round")
    assert run.finished_rounds() == [] and run.result() is None
    run.start_round(0)
    assert not (run.round_path(0) / "leftover.txt").exists()


def test_a_failure_record_is_one_bounded_line_naming_the_running_round(tmp_path: Path) -> None:
    run = RunDir(tmp_path, ExperimentConfig(name="e", rounds=2), "random", 0)
    run.open(resume=False)
    before = run.write_failure(ValueError("no designer answered\nsecond line"))
    assert before.round is None and before.message == "no designer answered"
    assert before.reason() == "ValueError: no designer answered"
    run.start_round(0)
    during = run.write_failure(RuntimeError("x" * 5000))
    assert during.round == 0 and len(during.message) == 400 and during.message.endswith("...")
    assert during.reason().startswith("RuntimeError in round 1: xxx")
    assert run.failure() == during and during.time.utcoffset() is not None
    run.clear_failure()
    assert run.failure() is None
    run.clear_failure()  # nothing left to remove is fine


def test_a_damaged_failure_record_is_one_line(tmp_path: Path) -> None:
    run = RunDir(tmp_path, ExperimentConfig(name="e"), "random", 0)
    run.open(resume=False)
    (run.path / "failure.json").write_text('{"error": ')
    with pytest.raises(RunDirError) as caught:
        run.failure()
    assert str(caught.value) == (
        f"{run.path / 'failure.json'} is not valid JSON (line 1, column 11: Expecting value): "
        "damaged; remove the file, or `--resume` the run"
    )


def test_a_damaged_result_counts_as_no_result_so_resume_redoes_it(tmp_path: Path) -> None:
    run = RunDir(tmp_path, ExperimentConfig(name="e"), "random", 0)
    run.open(resume=False)
    for damaged in (b"", b'{"schema_version": "1"', b"\xff\xfe"):
        (run.path / "result.json").write_bytes(damaged)
        assert run.result() is None


def test_a_run_resumes_in_a_comparison_with_more_seeds_and_designers(tmp_path: Path) -> None:
    started = ExperimentConfig(name="e", designers=("random", "hand"), seeds=(0,),
                               designer_options={"hand": {"schedule": "a.yaml"}})  # fmt: skip
    RunDir(tmp_path, started, "random", 0).open(resume=False)
    extended = started.model_copy(update={
        "designers": ("random", "hand", "uniform"), "seeds": (0, 1, 2),
        "designer_options": {"hand": {"schedule": "b.yaml"}},  # another designer's: not this run's
    })  # fmt: skip
    RunDir(tmp_path, extended, "random", 0).open(resume=True)


def test_a_resume_that_would_change_the_numbers_is_refused_naming_the_change(
    tmp_path: Path,
) -> None:
    started = ExperimentConfig(name="e", designers=("hand",), rounds=2,
                               designer_options={"hand": {"schedule": "a.yaml"}})  # fmt: skip
    RunDir(tmp_path, started, "hand", 0).open(resume=False)
    path = tmp_path / "e" / "hand" / "seed-0"
    options = {"designer_options": {"hand": {"schedule": "b.yaml"}}}
    schedule = "designer_options.hand.schedule: 'a.yaml' then, 'b.yaml' now"
    for change, named in [({"rounds": 3}, "rounds: 2 then, 3 now"), (options, schedule)]:
        other = started.model_copy(update=change)
        with pytest.raises(RunDirError) as refused:
            RunDir(tmp_path, other, "hand", 0).open(resume=True)
        assert str(refused.value) == (
            f"{path} was started with another experiment config ({named}); resume it with the "
            "same config, or start a new run under another --out or --set name=..."
        )


def test_run_directory_advice_names_only_options_the_commands_have(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harness_cli import app

    experiment = ExperimentConfig(name="e")
    run = RunDir(tmp_path, experiment, "random", 0)
    run.open(resume=False)
    messages = [run.problem(resume=False),
                run.problem(resume=True) or "",
                RunDir(tmp_path, experiment.model_copy(update={"rounds": 9}), "random", 0)
                .problem(resume=True)]  # fmt: skip
    stamp = json.loads((run.path / "run.json").read_text())
    (run.path / "run.json").write_text(json.dumps({**stamp, "schema_version": "0"}))
    messages.append(run.problem(resume=True))
    advised = {word.rstrip(".,;)") for m in messages if m for word in m.split()
               if word.startswith("--")}  # fmt: skip
    assert advised == {"--resume", "--out", "--set"}
    for command in ("compare", "run"):
        shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
        assert all(option in shown for option in advised), (command, shown)
