"""A comparison: every designer x seed run of an experiment, on the executor given."""

from __future__ import annotations

from pathlib import Path

from harness.executors import Executor, LocalExecutor, OnEvent, RunOptions, plan
from harness.experiment import ExperimentConfig
from harness.preflight import preflight
from harness.records import ResultRecord


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
    Raises `RunsFailed` (after the other runs finished) when some runs raised.
    """
    chosen, how = executor or LocalExecutor(), options or RunOptions()
    preflight(experiment, root, resume=how.resume, ray_address=how.ray_address)
    return chosen.run(experiment, plan(experiment), root, how, on_event)
