"""The record classes of one task's runs, and reading a record through its task.

Records are generic in the task's own models (`RoundResult`, `ResultRecord`, and the
`DesignContext` a designer reads): a run of reasoning-gym keeps its `RgConfig` and
`CutReport` exactly as the task defines them, and reading one back validates every part with
the model it was written from. A record names its task (its experiment's ``task`` and
``task_settings``), so a reader needs nothing else to choose the classes. MAPF-FrozenLake's
are the plain classes (the parameters' defaults).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from designers import DesignContext
from envdesign_common.generic_models import parametrized
from run_records.schema import ResultRecord, RoundResult
from tasks import DEFAULT_TASK, Task, cached_task, task_spec

__all__ = ["TaskRecords", "recorded_task", "task_records"]


@dataclass(frozen=True)
class TaskRecords:
    """The classes a run of one task writes and reads."""

    round: type[RoundResult[Any, Any, Any]]
    result: type[ResultRecord[Any, Any, Any, Any]]
    context: type[DesignContext[Any, Any, Any]]


def task_records(task: Task[Any, Any]) -> TaskRecords:
    """The record classes of `task`'s runs (made once per set of models)."""
    models = (task.config_model, task.stats_model, task.report_model)
    key = (*models, task.result_model)
    if key not in _MADE:
        _MADE[key] = TaskRecords(
            round=parametrized(RoundResult, *models),
            result=parametrized(ResultRecord, *models, task.result_model),
            context=parametrized(DesignContext, *models),
        )
    return _MADE[key]


_MADE: dict[tuple[type, ...], TaskRecords] = {}


def recorded_task(experiment: Mapping[str, Any] | None) -> Task[Any, Any]:
    """The task a recorded experiment names, built with its recorded settings; `UnknownTask`
    or `TaskLoadError` when this installation cannot build it (its message says why)."""
    data = experiment or {}
    name = str(data.get("task") or DEFAULT_TASK)
    settings = data.get("task_settings")
    spec = task_spec(name)
    return cached_task(spec.id, settings if isinstance(settings, Mapping) else None)
