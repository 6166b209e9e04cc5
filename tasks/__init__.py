"""Tasks, the third plug-in kind: what a policy learns and is judged on.

A task owns its configuration (what a designer may change, within declared bounds), seeded
generation, fixed checksummed suites, the prompt, judging and the reward; the round loop, the
designers and the boards reach a domain only through it. `base` holds the `Task` protocol and
the values it returns; `registry` finds tasks by versioned id through the entry-point group
``harness.tasks``; `conformance` is `check_task`, what a plug-in author runs before anybody
else does; `mapf_frozenlake` is the first task, and an experiment's unless it names another
(`DEFAULT_TASK`).
"""

from tasks.base import Generated, Judgement, Knob, Projected, Suite, SuiteItem, Task, TaskSpec
from tasks.conformance import HOSTILE_ANSWERS, TaskConformanceError, check_task
from tasks.mapf_frozenlake import TASK_ID as DEFAULT_TASK
from tasks.registry import (
    GROUP,
    TASKS,
    TaskLoadError,
    UnknownTask,
    create_task,
    describe_tasks,
    family_of,
    resolve_task_id,
    serves,
    task_settings,
    task_spec,
)

__all__ = [
    "DEFAULT_TASK",
    "GROUP",
    "HOSTILE_ANSWERS",
    "TASKS",
    "Generated",
    "Judgement",
    "Knob",
    "Projected",
    "Suite",
    "SuiteItem",
    "Task",
    "TaskConformanceError",
    "TaskLoadError",
    "TaskSpec",
    "UnknownTask",
    "check_task",
    "create_task",
    "describe_tasks",
    "family_of",
    "resolve_task_id",
    "serves",
    "task_settings",
    "task_spec",
]
