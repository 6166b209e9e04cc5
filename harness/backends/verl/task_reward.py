"""The reward function verl calls for every rollout of a task other than MAPF-FrozenLake.

verl loads this file by path and calls, once per response (as `harness.backends.verl.reward`
says, for both supported verl lines)::

    compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...,
                  **reward_kwargs)

It rebuilds what it scores from what it is given alone, in whichever process verl runs it:

* the task from ``reward_kwargs``: ``task`` (its versioned id) and ``task_settings`` (its
  settings as JSON text, or a mapping), built through the task registry once per process and
  settings -- the experiment's own, so the reward is the one the harness would compute;
* the item from ``ground_truth``, the text the task's `ItemCodec` wrote into the row, decoded
  as data (never run) and memoised by that text (each prompt is scored n times per step).

``valid_rate`` is the round's running valid rate, fixed for a round as for MAPF-FrozenLake's
reward (`harness.backends.verl.reward` says why). The result holds ``score`` (the task's reward,
what verl trains on) and the judgement behind it -- ``valid``, the task's own ``task_score``,
``optimal_<kind>`` per optimal kind and ``fail_<type>`` one-hots per failure type -- the same
keys for every response, which verl keeps as ``reward_extra_info`` and averages in its
validation metrics. ``data_source`` and ``extra_info`` are labels only and are not read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from tasks import ItemCodec, Task, create_task

__all__ = ["compute_score", "scored_keys"]


@lru_cache(maxsize=8)
def _task(task_id: str, settings: str) -> Task[Any, Any]:
    made = create_task(task_id, json.loads(settings) or None)
    if not isinstance(made, ItemCodec):
        raise ValueError(
            f"task {made.id} declares no ItemCodec (encode_item, decode_item): its items cannot "
            "travel in a dataset row to verl's reward workers"
        )
    return made


@lru_cache(maxsize=4096)
def _item(task_id: str, settings: str, ground_truth: str) -> Any:
    codec: Any = _task(task_id, settings)
    return codec.decode_item(ground_truth)


def _settings_text(settings: str | Mapping[str, Any] | None) -> str:
    """The settings as canonical JSON, one cache key per distinct settings."""
    if settings is None:
        return "{}"
    data = json.loads(settings) if isinstance(settings, str) else dict(settings)
    if not isinstance(data, dict):
        raise ValueError(f"task_settings is {type(data).__name__}, not a mapping")
    return json.dumps(data, sort_keys=True)


def scored_keys(task: Task[Any, Any]) -> tuple[str, ...]:
    """The keys every response's result holds for `task`, in order."""
    return (
        "score",
        "valid",
        "task_score",
        *(f"optimal_{kind}" for kind in task.optimal_kinds),
        *(f"fail_{failure}" for failure in task.failure_types),
    )


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: dict[str, Any] | None = None,
    *,
    task: str,
    task_settings: str | Mapping[str, Any] | None = None,
    valid_rate: float = 0.0,
) -> dict[str, float]:
    """The task's reward of one response and its judgement, as verl's reward managers expect
    them. Raises ValueError for a ground truth that is no item of the task, and for a task or
    settings the registry refuses (a broken dataset or command must stop the run)."""
    del data_source, extra_info  # labels only; the item comes from the ground truth
    if not isinstance(ground_truth, str):
        raise ValueError(
            f"ground_truth is {type(ground_truth).__name__}, not the item text the task's "
            "encode_item wrote to reward_model.ground_truth"
        )
    settings = _settings_text(task_settings)
    made = _task(task, settings)
    item = _item(task, settings, ground_truth)
    answer = str(solution_str)
    judged = made.judge(item, answer)
    out = {
        "score": float(made.reward(item, answer, valid_rate=float(valid_rate))),
        "valid": float(judged.valid),
        "task_score": float(judged.score),
    }
    out.update({f"optimal_{k}": float(bool(judged.optimal.get(k))) for k in made.optimal_kinds})
    out.update({f"fail_{f}": float(judged.failure == f) for f in made.failure_types})
    return out
