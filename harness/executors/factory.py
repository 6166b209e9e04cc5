"""Executors by name, as the command line and experiment files say them."""

from __future__ import annotations

from typing import Literal

from harness.executors.base import Executor
from harness.executors.local import LocalExecutor

ExecutorName = Literal["local", "ray"]
EXECUTORS: tuple[ExecutorName, ...] = ("local", "ray")


class ExecutorUnavailable(RuntimeError):
    """An executor that cannot run here (unknown name, or its package missing)."""


def make_executor(name: str, *, workers: int | None = None,
                  ray_address: str | None = None) -> Executor:  # fmt: skip
    """`local` (a process pool of `workers`) or `ray` (tasks on the cluster at `ray_address`)."""
    if name == "local":
        if ray_address is not None:
            raise ExecutorUnavailable("--ray-address needs --executor ray")
        return LocalExecutor(workers)
    if name == "ray":
        raise ExecutorUnavailable("the ray executor is not built yet")
    raise ExecutorUnavailable(f"unknown executor {name!r}; executors are {', '.join(EXECUTORS)}")
