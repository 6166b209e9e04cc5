"""MAPF-FrozenLake, the first task: `mapf_env`'s testbed behind the `Task` interface."""

from __future__ import annotations

from pydantic import BaseModel

from tasks.base import TaskSpec
from tasks.mapf_frozenlake.task import TASK_ID, MapfFrozenLake, MapfSettings

__all__ = ["SPEC", "TASK_ID", "MapfFrozenLake", "MapfSettings"]


def _build(settings: BaseModel | None) -> MapfFrozenLake:
    if settings is not None and not isinstance(settings, MapfSettings):
        raise TypeError(f"MAPF-FrozenLake takes MapfSettings, not {type(settings).__name__}")
    return MapfFrozenLake(settings)


SPEC = TaskSpec(
    id=TASK_ID,
    description=MapfFrozenLake.description,
    build=_build,
    settings=MapfSettings,
)
