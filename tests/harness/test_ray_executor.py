"""The Ray executor on a real local Ray instance: local results, live progress, failures, CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.backends.registry import backend_spec
from harness.events import RunEvent
from harness.executors import (
    ExecutorUnavailable,
    Job,
    LocalExecutor,
    RunOptions,
    RunsFailed,
    make_executor,
    plan,
)
from harness.executors.local import available_cores
from harness.executors.ray import (
    RayExecutor,
    Resources,
    check_shared,
    nodes_for,
    require_room,
)
from harness.experiment import ExperimentConfig
from harness.run_dir import RunDir
from harness_cli import app
from run_records import RunDirError
from tests.harness.test_loop import outcome, tiny
from tests.harness_cli.test_run import TINY

ray = pytest.importorskip("ray")

runner = CliRunner()
THREADS = max(1, available_cores() // min(available_cores(), 2))
"""Torch threads the local executor gives each of two runs; Ray runs get as many CPUs."""


@pytest.mark.e2e
def test_compare_on_ray_streams_progress_and_matches_local_runs(tmp_path: Path) -> None:
    """Through the CLI, on a Ray instance the executor starts and shuts down itself."""
    connected = ray.is_initialized()
    result = runner.invoke(app, ["compare", "--designers", "uniform,random", "--executor", "ray",
                                 "--cpus-per-run", str(THREADS), "--out", str(tmp_path / "ray"),
                                 "--json", *TINY])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert ray.is_initialized() == connected  # its own instance is gone again
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    finished = [(line["designer"], line["seed"]) for line in lines if "result" in line]
    assert finished == [("uniform", 0), ("random", 0)]  # plan order, not finishing order
    for designer in ("uniform", "random"):
        events = [line for line in lines if line.get("designer") == designer and "event" in line]
        phases = [(e["phase"], e["round"]) for e in events if e["kind"] == "phase"]
        assert phases == [("generate", 0), ("train", 0), ("evaluate", 0), ("benchmark", 1),
                          ("done", 1)]  # fmt: skip
        assert any(e["kind"] == "step" and 0 <= e["valid_rate"] <= 1 for e in events)
        assert [e["round"] for e in events if e["kind"] == "round"] == [0]

    root = tmp_path / "ray"
    ray_records = [RunDir(root, _experiment(root), d, 0).result() for d in ("uniform", "random")]
    experiment = _experiment(root)
    local = LocalExecutor().run(experiment, plan(experiment), tmp_path / "local", RunOptions())
    assert [outcome(r) for r in local] == [outcome(r) for r in ray_records if r is not None]


def _experiment(root: Path) -> ExperimentConfig:
    raw = json.loads((root / "quick" / "uniform" / "seed-0" / "run.json").read_text())
    return ExperimentConfig.model_validate(raw["experiment"])


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One Ray instance for the tests below; the executor uses it as it is and leaves it up."""
    ray.init(num_cpus=2 * THREADS, num_gpus=0, include_dashboard=False)
    yield
    ray.shutdown()


@pytest.mark.e2e
@pytest.mark.usefixtures("local_ray")
def test_a_failing_run_is_named_and_the_others_finish(tmp_path: Path) -> None:
    experiment = tiny(rounds=1, samples_per_round=60, designers=["random", "uniform"])
    RunDir(tmp_path, experiment, "random", 0).open(resume=False)  # left by an earlier run
    events: list[RunEvent] = []
    with pytest.raises(RunsFailed) as caught:  # one run at a time: the limit is kept
        RayExecutor(workers=1).run(experiment, plan(experiment), tmp_path, RunOptions(),
                                   events.append)  # fmt: skip
    ((job, err),) = caught.value.failures
    assert job == Job("random", 0)
    assert type(err) is RunDirError and "pass --resume" in str(err)  # the run's own error
    assert [(r.designer, r.seed) for r in caught.value.records] == [("uniform", 0)]
    assert [e.phase for e in events if e.designer == "uniform"][-1] == "done"
    assert ray.is_initialized()


@pytest.mark.e2e
@pytest.mark.usefixtures("local_ray")
def test_user_errors_in_a_ray_run_stay_one_line(tmp_path: Path) -> None:
    (tmp_path / "quick" / "random" / "seed-0").mkdir(parents=True)
    (tmp_path / "quick" / "random" / "seed-0" / "run.json").write_text("{}")
    result = runner.invoke(app, ["compare", "--designers", "random", "--executor", "ray",
                                 "--out", str(tmp_path), *TINY])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "already holds a run; pass --resume" in result.output
    assert "Traceback" not in result.output and "RayTaskError" not in result.output


@pytest.mark.e2e
@pytest.mark.usefixtures("local_ray")
def test_resources_and_the_shared_directory_are_checked(tmp_path: Path) -> None:
    experiment = tiny(rounds=1, designers=["random"])
    assert RayExecutor().resources(experiment) == Resources(cpus=1, gpus=0)
    assert backend_spec("verl").resources(None).gpus == 4
    assert RayExecutor(cpus_per_run=2.5, gpus_per_run=0.5).resources(experiment).threads == 2
    gpu = Resources(cpus=1, gpus=1)
    refused = rf"no node .* 1 GPUs .* has {2 * THREADS} CPUs and 0 GPUs"
    with pytest.raises(ExecutorUnavailable, match=refused):
        require_room(gpu, nodes_for(gpu))  # what a Ray instance the executor started refuses
    nodes = nodes_for(Resources(cpus=1, gpus=0))
    require_room(Resources(cpus=1, gpus=0), nodes)
    check_shared(tmp_path / "shared", [*nodes, *nodes])  # seen from "both" nodes: accepted
    assert list((tmp_path / "shared").iterdir()) == []  # the probe file is removed


def test_ray_options_need_the_ray_executor_and_ray_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = [
        (["--gpus-per-run", "1"], "--gpus-per-run needs --executor ray"),
        (["--executor", "ray", "--cpus-per-run", "0"], "--cpus-per-run must be above 0"),
        (["--executor", "ray", "--workers", "0"], "at least 1"),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["compare", "--designers", "random", *args,
                                     "--out", str(tmp_path)])  # fmt: skip
        assert result.exit_code == 2 and message in result.output, (args, result.output)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    with pytest.raises(ExecutorUnavailable, match=r"pip install 'envdesign-bench\[ray\]'"):
        make_executor("ray")
