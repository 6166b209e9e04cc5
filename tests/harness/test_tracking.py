"""Curves to TensorBoard and W&B (offline) under verl's metric names, from a real loop run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from harness.backends.factory import make_backend
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from harness.tracking import LoggerUnavailable, make_trackers
from tests.harness.test_loop import tiny

VALID_KEY = "val-core/mapf_frozenlake/valid_rate/mean@1"


def run_with_loggers(root: Path, loggers: list[str]) -> tuple[RunDir, ExperimentConfig]:
    experiment = tiny(rounds=2)
    run = RunDir(root, experiment, "random", 0)
    trackers = make_trackers(loggers, run.path, project="tiny", designer="random", seed=0,
                             config=experiment.model_dump(mode="json"))  # fmt: skip
    backend = make_backend(experiment, threads=1)
    try:
        run_designer(experiment, "random", 0, backend, run, observers=trackers, workers=1)
    finally:
        for tracker in trackers:
            tracker.close()
    return run, experiment


def curves(run: RunDir, rounds: int) -> list[dict[str, float]]:
    lines = [run.curves(n).read_text().splitlines() for n in range(rounds)]
    return [json.loads(line) for part in lines for line in part]


def test_tensorboard_gets_every_step_and_each_rounds_validation(tmp_path: Path) -> None:
    run, experiment = run_with_loggers(tmp_path, ["tensorboard"])
    events = EventAccumulator(str(run.path / "tensorboard"))
    events.Reload()
    steps = curves(run, experiment.rounds)
    score = events.Scalars("critic/score/mean")
    assert [e.step for e in score] == [s["step"] for s in steps]
    assert [e.value for e in score] == pytest.approx([s["reward"] for s in steps], rel=1e-6)
    assert [e.value for e in events.Scalars("actor/kl_loss")] == pytest.approx(
        [s["kl"] for s in steps], rel=1e-6, abs=1e-9
    )
    validation = events.Scalars(VALID_KEY)
    finished = run.finished_rounds()
    assert [e.value for e in validation] == pytest.approx(
        [r.validation.overall.valid_rate for r in finished], rel=1e-6
    )
    assert "val-aux/mapf_frozenlake/10x10/optimal_makespan_rate" in events.Tags()["scalars"]


def test_wandb_offline_run_records_the_same_metrics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    run, _ = run_with_loggers(tmp_path, ["wandb"])
    (log,) = run.path.glob("wandb/offline-run-*/run-*.wandb")
    assert "tiny--random-seed0" in log.name
    data = log.read_bytes()
    for key in ("critic/score/mean", "actor/pg_loss", "train/valid_rate", VALID_KEY):
        assert key.encode() in data, key


def test_unknown_logger_is_named(tmp_path: Path) -> None:
    with pytest.raises(LoggerUnavailable, match="tensorboard, wandb"):
        make_trackers(["mlflow"], tmp_path, project="p", designer="d", seed=0, config={})
