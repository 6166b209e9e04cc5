"""How the experiment's task reaches verl: its datasets' rows, the reward file verl loads and
that file's keywords, and how a response verl dumped is judged.

verl sees a task only through files: the round's parquet (a row per item, the item's text as
its ground truth) and one reward file it loads by path, in its own processes. So the backend
serves a task whose items travel as text (`tasks.ItemCodec`), and everything it reads back --
the rollout dumps' verdicts, the validation dump's answers -- is matched and judged through
the same text and the task's own `judge`.

MAPF-FrozenLake keeps the paper's recipe: its rows are `mapf_env.export`'s (the instance's
fields in ``extra_info``), its reward file `harness.backends.verl.reward` takes the reward's
coefficients as keywords. Every other task's rows are `task_rows`', its reward file
`harness.backends.verl.task_reward` rebuilds the task from its id and settings.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from harness.backends.verl.hydra import HydraValue
from harness.backends.verl.task_rows import write_rows
from tasks import DEFAULT_TASK, ItemCodec, Task, family_of

__all__ = ["REWARD_MODULE", "TASK_REWARD_MODULE", "TaskFeed", "feed_problem", "task_feed"]

REWARD_MODULE = Path(__file__).resolve().with_name("reward.py")
"""MAPF-FrozenLake's reward file (the one a `RoundInputs` names by default)."""
TASK_REWARD_MODULE = Path(__file__).resolve().with_name("task_reward.py")
"""Every other task's reward file."""
DECODED = 8192
"""Items kept decoded: a step's dump judges each prompt's n responses against one text."""

RowWriter = Callable[[Sequence[Any], Path, str, Mapping[str, Any]], None]


@dataclass(frozen=True)
class TaskFeed:
    """The experiment's task as verl's files carry it."""

    task: Task[Any, Any]
    write_rows: RowWriter
    """``write_rows(items, path, split, metadata)``: a round's dataset file."""
    reward_module: Path
    reward_kwargs: Mapping[str, HydraValue]
    """The reward file's keywords besides ``valid_rate`` (``reward_kwargs`` in verl's config)."""
    decode: Callable[[str], Any]
    """An item from its text (memoised)."""

    def truth(self, item: Any) -> str:
        """The text a row carries `item` as."""
        codec: Any = self.task
        return str(codec.encode_item(item))


def feed_problem(task: Task[Any, Any]) -> str | None:
    """Why verl cannot train `task`, in one line, or None."""
    if isinstance(task, ItemCodec):
        return None
    return (
        f"'verl' trains a task whose items travel as text to its reward workers, and task "
        f"{task.id!r} declares no ItemCodec (encode_item, decode_item): implement them "
        "(tasks.ItemCodec; check_task checks them) or choose a backend that serves it "
        "(harness backends list says which)"
    )


def task_feed(task: Task[Any, Any], settings: Any) -> TaskFeed:
    """The feed of `task`, built with the experiment's `settings` (its ``task_settings``)."""
    problem = feed_problem(task)
    if problem is not None:
        raise ValueError(problem)
    codec: Any = task
    decode = lru_cache(maxsize=DECODED)(codec.decode_item)
    if family_of(task.id)[0] == family_of(DEFAULT_TASK)[0]:
        return _mapf_feed(task, settings, decode)

    def rows(items: Sequence[Any], path: Path, split: str, meta: Mapping[str, Any]) -> None:
        write_rows(task, items, path, split, meta)

    data = settings.model_dump(mode="json") if settings is not None else {}
    kwargs = {"task": task.id, "task_settings": json.dumps(data, sort_keys=True)}
    return TaskFeed(task, rows, TASK_REWARD_MODULE, kwargs, decode)


def _mapf_feed(task: Task[Any, Any], settings: Any, decode: Callable[[str], Any]) -> TaskFeed:
    from harness.backends.base import require_solved
    from mapf_env import write_parquet
    from tasks.mapf_frozenlake import reward_config

    def rows(items: Sequence[Any], path: Path, split: str, meta: Mapping[str, Any]) -> None:
        require_solved(items)  # the reward reads each instance's optima
        write_parquet(items, path, split=split, metadata_extra=meta)

    kwargs = reward_config(settings).model_dump()
    return TaskFeed(task, rows, REWARD_MODULE, kwargs, decode)
