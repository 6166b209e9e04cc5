"""Tasks, the third plug-in kind: what a policy learns and is judged on.

A task owns its configuration (what a designer may change, within declared bounds), seeded
generation, fixed checksummed suites, the prompt, judging and the reward; the round loop, the
designers and the boards reach a domain only through it. `base` holds the `Task` protocol and
the values it returns; `records` the record models a task without its own may use; `subsets`
stratified subsets of a suite; `registry` finds tasks by versioned id through the entry-point
group ``harness.tasks``; `conformance` is `check_task`, what a plug-in author runs before anybody
else does; `mapf_frozenlake` is the first task, and an experiment's unless it names another
(`DEFAULT_TASK`).
"""

from tasks.base import (
    BoardRate,
    Generated,
    ItemCodec,
    Judgement,
    Knob,
    Projected,
    Rates,
    ReportRates,
    Suite,
    SuiteItem,
    Task,
    TaskSpec,
    VerdictTable,
    blank_rates,
    mean_rates,
)
from tasks.conformance import HOSTILE_ANSWERS, TaskConformanceError, check_task
from tasks.cut_records import CutRecords
from tasks.mapf_frozenlake import TASK_ID as DEFAULT_TASK
from tasks.records import (
    CutCounts,
    CutReport,
    CutSuiteResult,
    ItemVerdict,
    fold,
    score_suite,
)
from tasks.registry import (
    GROUP,
    TASKS,
    TaskLoadError,
    UnknownTask,
    cached_task,
    create_task,
    describe_tasks,
    family_of,
    resolve_task_id,
    serves,
    task_settings,
    task_spec,
)
from tasks.subsets import stratified

__all__ = [
    "DEFAULT_TASK",
    "GROUP",
    "HOSTILE_ANSWERS",
    "TASKS",
    "BoardRate",
    "CutCounts",
    "CutRecords",
    "CutReport",
    "CutSuiteResult",
    "Generated",
    "ItemCodec",
    "ItemVerdict",
    "Judgement",
    "Knob",
    "Projected",
    "Rates",
    "ReportRates",
    "Suite",
    "SuiteItem",
    "Task",
    "TaskConformanceError",
    "TaskLoadError",
    "TaskSpec",
    "UnknownTask",
    "VerdictTable",
    "blank_rates",
    "cached_task",
    "check_task",
    "create_task",
    "describe_tasks",
    "family_of",
    "fold",
    "mean_rates",
    "resolve_task_id",
    "score_suite",
    "serves",
    "stratified",
    "task_settings",
    "task_spec",
]
