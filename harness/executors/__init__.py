"""Where a comparison's runs execute: local processes or a Ray cluster."""

from harness.executors.base import (
    EventsLost,
    Executor,
    Job,
    OnEvent,
    RunOptions,
    RunsFailed,
    WorkerDied,
    plan,
    run_job,
)
from harness.executors.factory import EXECUTORS, ExecutorUnavailable, make_executor
from harness.executors.local import LocalExecutor
from harness.executors.parent_watch import die_with_parent
from harness.executors.ray import RayExecutor  # imports Ray only when it runs

__all__ = [
    "EXECUTORS",
    "EventsLost",
    "Executor",
    "ExecutorUnavailable",
    "Job",
    "LocalExecutor",
    "OnEvent",
    "RayExecutor",
    "RunOptions",
    "RunsFailed",
    "WorkerDied",
    "die_with_parent",
    "make_executor",
    "plan",
    "run_job",
]
