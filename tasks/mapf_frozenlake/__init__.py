"""MAPF-FrozenLake, the first task: `mapf_env`'s testbed behind the `Task` interface."""

from __future__ import annotations

from tasks.base import TaskSpec
from tasks.mapf_frozenlake.task import (
    MAX_TRAINING_AGENTS,
    TASK_ID,
    MapfFrozenLake,
    MapfSettings,
    as_task_suite,
    reward_config,
)

__all__ = [
    "MAX_TRAINING_AGENTS",
    "SPEC",
    "TASK_ID",
    "MapfFrozenLake",
    "MapfSettings",
    "as_task_suite",
    "reward_config",
]


SPEC = TaskSpec(
    id=TASK_ID,
    description=MapfFrozenLake.description,
    build=MapfFrozenLake,
    settings=MapfSettings,
)
