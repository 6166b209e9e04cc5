"""Where a comparison's runs execute: local processes or a Ray cluster."""

from harness.executors.base import Executor, Job, OnEvent, RunOptions, RunsFailed, plan, run_job
from harness.executors.factory import EXECUTORS, ExecutorUnavailable, make_executor
from harness.executors.local import LocalExecutor
from harness.executors.parent_watch import die_with_parent
from harness.executors.ray import RayExecutor  # imports Ray only when it runs

__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorUnavailable",
    "Job",
    "LocalExecutor",
    "OnEvent",
    "RayExecutor",
    "RunOptions",
    "RunsFailed",
    "die_with_parent",
    "make_executor",
    "plan",
    "run_job",
]
