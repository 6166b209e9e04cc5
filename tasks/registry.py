"""Tasks by versioned id, through the entry-point group ``harness.tasks``.

An entry point's name is the task's versioned id (``mapf-frozenlake-v2 =
tasks.mapf_frozenlake:SPEC``) and its value a `TaskSpec`. Asked by family alone
(``mapf-frozenlake``), the registry answers with that family's newest version, and the run
records the full id, so a later version never silently changes what an old record meant.
An id that is not registered is answered with the closest ids and, for a known family at an
unknown version, the versions there are.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from importlib.metadata import EntryPoint
from typing import Any

from pydantic import BaseModel, ValidationError

from envdesign_common.field_errors import ConfigError, error_message, field_error_lines
from envdesign_common.registry import (
    EntryPointRegistry,
    PluginLoadError,
    UnknownPlugin,
    close_names,
)
from tasks.base import Task, TaskSpec, missing_members

__all__ = [
    "GROUP",
    "TASKS",
    "TaskLoadError",
    "UnknownTask",
    "cached_task",
    "create_task",
    "describe_tasks",
    "family_of",
    "resolve_task_id",
    "serves",
    "task_settings",
    "task_spec",
]

GROUP = "harness.tasks"
_VERSIONED = re.compile(r"^(?P<family>[a-z0-9][a-z0-9_.-]*?)-v(?P<version>\d+)$")


class UnknownTask(UnknownPlugin):
    """No task of that id or family is registered."""


class TaskLoadError(PluginLoadError):
    """An entry point exists but does not give a usable `TaskSpec` or `Task`."""


def family_of(task_id: str) -> tuple[str, int | None]:
    """``mapf-frozenlake-v2`` -> (``mapf-frozenlake``, 2); an id without a version -> (id, None)."""
    match = _VERSIONED.match(task_id)
    return (match["family"], int(match["version"])) if match else (task_id, None)


def serves(served: Collection[str] | None, task_id: str) -> bool:
    """Whether a plug-in declaring the task families (or ids) `served` serves `task_id`; None
    declares any task. A family serves every version of itself."""
    return served is None or family_of(task_id)[0] in served or task_id in served


def _spec(name: str, ep: EntryPoint, loaded: object) -> TaskSpec:
    if not isinstance(loaded, TaskSpec):
        raise TypeError(f"is a {type(loaded).__name__}, not a TaskSpec")
    if loaded.id != name:
        raise ValueError(f"calls itself {loaded.id!r}: give the entry point the task's id")
    if family_of(name)[1] is None:
        raise ValueError("has no version: name it <family>-v<N>, e.g. my-task-v1")
    return loaded


TASKS = EntryPointRegistry(GROUP, "task", _spec, unknown=UnknownTask, broken=TaskLoadError)


def resolve_task_id(name: str) -> str:
    """The registered id `name` means: itself, or a family's newest version."""
    name = name.strip()
    if name in TASKS:
        return name
    versions = {family_of(i)[1]: i for i in TASKS.names() if family_of(i)[0] == name}
    if versions:
        return versions[max(v for v in versions if v is not None)]
    family, version = family_of(name)
    same = sorted(i for i in TASKS.names() if family_of(i)[0] == family)
    if version is not None and same:
        raise UnknownTask(
            f"task {family!r} has no version {version}; registered: {', '.join(same)}"
        )
    families = {family_of(i)[0] for i in TASKS.names()}
    hint = close_names(name, families) or close_names(name, TASKS.names())
    raise UnknownTask(f"no task {name!r}{hint} Available: {', '.join(TASKS.names())}")


def task_spec(name: str) -> TaskSpec:
    """The spec of task `name` (an id or a family); `UnknownTask` with close names."""
    return TASKS.load(resolve_task_id(name))


def create_task(name: str, settings: BaseModel | Mapping[str, Any] | None = None) -> Task[Any, Any]:
    """The task `name` built with `settings` (checked against its settings model first:
    `ConfigError`, one line per bad field)."""
    spec = task_spec(name)
    checked = task_settings(spec, settings)
    try:
        task = spec.build(checked)
    except ImportError as err:
        extra = (
            f"; install it with pip install 'envdesign-bench[{spec.extra}]'" if spec.extra else ""
        )
        raise TaskLoadError(
            f"task {spec.id!r} needs a package that is missing ({err}){extra}"
        ) from None
    if not isinstance(task, Task):
        missing = ", ".join(missing_members(task)) or "members of the right kinds"
        raise TaskLoadError(
            f"task {spec.id!r} built a {type(task).__name__}, which lacks part of the Task "
            f"protocol: {missing}"
        )
    if task.id != spec.id:
        raise TaskLoadError(f"task {spec.id!r} built a task that calls itself {task.id!r}")
    return task


def cached_task(name: str, settings: BaseModel | Mapping[str, Any] | None = None) -> Task[Any, Any]:
    """`create_task`, once per process for each (id, settings): an experiment and its records
    are read many times (every run, every board), and a task's build may import its package
    and read its catalogue."""
    spec = task_spec(name)
    checked = task_settings(spec, settings)
    key = (spec.id, checked.model_dump_json() if checked is not None else "")
    if key not in _CACHED:
        _CACHED[key] = create_task(spec.id, checked)
    return _CACHED[key]


_CACHED: dict[tuple[str, str], Task[Any, Any]] = {}


def task_settings(
    spec: TaskSpec, settings: BaseModel | Mapping[str, Any] | None
) -> BaseModel | None:
    """`settings` as the task's settings model (its defaults where None)."""
    if spec.settings is None:
        if settings:
            raise ConfigError(f"task {spec.id!r} takes no settings; remove its section")
        return None
    if isinstance(settings, spec.settings):
        return settings
    data = settings.model_dump() if isinstance(settings, BaseModel) else dict(settings or {})
    try:
        return spec.settings.model_validate(data)
    except ValidationError as err:
        lines = field_error_lines(err, spec.settings, prefix="task_settings.")
        raise ConfigError(error_message([(f"task {spec.id}", lines)]), lines) from None


def describe_tasks() -> dict[str, str]:
    """Id -> one-line description of every registered task (loads each spec)."""
    return TASKS.describe(lambda spec: spec.description)
