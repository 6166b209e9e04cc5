"""A comparison: every designer x seed run of an experiment, on the executor given."""

from __future__ import annotations

from pathlib import Path

from harness.executors import Executor, LocalExecutor, OnEvent, RunOptions, plan
from harness.experiment import ExperimentConfig
from harness.preflight import preflight
from harness.run_dir import RunDir
from harness.run_lock import claim_runs
from run_records import ResultRecord


def compare(
    experiment: ExperimentConfig,
    root: Path,
    *,
    executor: Executor | None = None,
    options: RunOptions | None = None,
    on_event: OnEvent | None = None,
) -> list[ResultRecord]:
    """Run every (designer, seed) job of `experiment`; records in plan order (designers first).

    Every run is checked first (`PreflightFailed`, one line per problem, nothing written).
    This process then holds every run's command lock until the runs have ended (`RunLocked`,
    one line, when another process holds one of them). Raises `RunsFailed` (after the other
    runs finished) when some runs raised.
    """
    chosen, how, jobs = executor or LocalExecutor(), options or RunOptions(), plan(experiment)
    # Runs that execute as tasks elsewhere (Ray) are not judged by this machine's GPUs or disk.
    at_once = chosen.at_once(experiment, len(jobs)) if isinstance(chosen, LocalExecutor) else 0
    preflight(experiment, root, resume=how.resume, ray_address=how.ray_address,
              runs_here=at_once > 0, concurrent=max(1, at_once))  # fmt: skip
    runs = [RunDir(root, experiment, job.designer, job.seed).path for job in jobs]
    with claim_runs(runs):
        return chosen.run(experiment, jobs, root, how, on_event)
