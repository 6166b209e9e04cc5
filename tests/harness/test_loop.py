"""The round loop end to end on the CPU learner, and a run killed with SIGKILL then resumed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.backends.factory import make_backend
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from run_records import ResultRecord

TINY = {
    "name": "tiny",
    "rounds": 3,
    "samples_per_round": 120,
    "epochs_per_round": 1,
    "validation": "validation",
    "benchmarks": ["validation"],
    "best_of": 2,
}


def tiny(**changes: object) -> ExperimentConfig:
    return ExperimentConfig.from_mapping({**TINY, **changes})


def run(
    experiment: ExperimentConfig, designer: str, root: Path, resume: bool = False
) -> ResultRecord:
    backend = make_backend(experiment, threads=1)
    return run_designer(experiment, designer, 0, backend, RunDir(root, experiment, designer, 0),
                        resume=resume, workers=1)  # fmt: skip


def outcome(record: ResultRecord) -> tuple[object, ...]:
    """Everything a resumed run must reproduce (not timings or the commit)."""
    rounds = tuple((r.config, r.validation, r.proposal.config if r.proposal else None)
                   for r in record.rounds)  # fmt: skip
    return rounds, {name: s.verdicts for name, s in record.suites.items()}


def test_a_designer_runs_the_whole_loop(tmp_path: Path) -> None:
    experiment = tiny(rounds=2)
    record = run(experiment, "hand", tmp_path)
    assert record.initial_source == "designer" and len(record.rounds) == 2
    assert record.rounds[0].proposal is not None and record.rounds[1].proposal is None
    assert record.rounds[1].config == record.rounds[0].proposal.config
    assert record.suites["validation"].greedy.overall.n == 400
    run_path = RunDir(tmp_path, experiment, "hand", 0).path
    for n in range(2):
        for name in ("config.yaml", "curves.jsonl", "round.json", "checkpoint"):
            assert (run_path / f"round-{n:03d}" / name).exists()
    assert (run_path / "result.json").exists()
    assert run(experiment, "hand", tmp_path, resume=True) == record  # finished: read back
    shared = run(tiny(rounds=1), "random", tmp_path)
    assert shared.initial_source == "shared"


@pytest.mark.e2e
def test_a_killed_run_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    experiment = tiny()
    config = tmp_path / "tiny.yaml"
    config.write_text(experiment.to_yaml())
    killed_root = tmp_path / "killed"
    command = [sys.executable, "-m", "harness_cli", "run", str(config), "--out", str(killed_root),
               "--workers", "1", "--quiet", "--set", "designers=[evidence]"]  # fmt: skip
    run_path = killed_root / "tiny" / "evidence" / "seed-0"
    process = subprocess.Popen(command, start_new_session=True)
    deadline = time.monotonic() + 240
    while not (run_path / "round-001" / "curves.jsonl").exists():  # killed inside round 1
        assert process.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "round 1 never started"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (run_path / "round-001" / "round.json").exists()
    finished = subprocess.run([*command, "--resume"], capture_output=True, text=True, check=False)
    assert finished.returncode == 0, finished.stderr
    resumed = ResultRecord.model_validate_json((run_path / "result.json").read_text())
    straight = run(experiment.model_copy(update={"designers": ("evidence",)}), "evidence",
                   tmp_path / "straight")  # fmt: skip
    assert outcome(resumed) == outcome(straight)


def test_resume_refuses_another_config(tmp_path: Path) -> None:
    from run_records import RunDirError

    run(tiny(rounds=1), "random", tmp_path)
    with pytest.raises(RunDirError, match="another experiment config"):
        backend = make_backend(tiny(rounds=2), threads=1)
        run_designer(tiny(rounds=2), "random", 0, backend,
                     RunDir(tmp_path, tiny(rounds=2), "random", 0), resume=True)  # fmt: skip
