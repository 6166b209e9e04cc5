"""Executors by name, as the command line and experiment files say them."""

from __future__ import annotations

from typing import Literal

from harness.executors.base import Executor, ExecutorUnavailable
from harness.executors.local import LocalExecutor

ExecutorName = Literal["local", "ray"]
EXECUTORS: tuple[ExecutorName, ...] = ("local", "ray")

__all__ = ["EXECUTORS", "ExecutorName", "ExecutorUnavailable", "make_executor"]


def make_executor(
    name: str,
    *,
    workers: int | None = None,
    ray_address: str | None = None,
    cpus_per_run: float | None = None,
    gpus_per_run: float | None = None,
) -> Executor:
    """`local` (up to `workers` processes here, one per run) or `ray` (tasks on the cluster at
    `ray_address`).

    The Ray options are refused with the local executor rather than ignored, so a forgotten
    `--executor ray` does not quietly run everything on this machine.
    """
    if name == "local":
        ray_only = {"--ray-address": ray_address, "--cpus-per-run": cpus_per_run,
                    "--gpus-per-run": gpus_per_run}  # fmt: skip
        given = [flag for flag, value in ray_only.items() if value is not None]
        if given:
            raise ExecutorUnavailable(f"{', '.join(given)} needs --executor ray")
        return LocalExecutor(workers)
    if name == "ray":
        from harness.executors.ray import RayExecutor

        return RayExecutor(ray_address, workers=workers, cpus_per_run=cpus_per_run,
                           gpus_per_run=gpus_per_run)  # fmt: skip
    raise ExecutorUnavailable(f"unknown executor {name!r}; executors are {', '.join(EXECUTORS)}")
