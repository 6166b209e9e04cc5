"""The reward TRL's `GRPOTrainer` trains on: the task's reward, with a weight that has memory.

`GRPOTrainer` calls a reward function once per generation batch with every answer of the batch
and the dataset's other columns. `RoundReward` is that function: the dataset's ``item`` column
holds each row's index into the round's items, which this object keeps (so an item never
travels as text and back), and each answer is paid by the task's `reward` with its real token
count (or, with ``trl.length_unit: characters``, none: the task measures the text itself, as
the verl backend's reward must). A task whose reward weighs correctness by how often the
policy is already right reads the running valid rate (`envdesign_common.RunningValidRate`),
which this object keeps and folds each batch into after scoring it -- the CPU learner's rule,
carried across rounds by the backend's saved state. Each batch's valid rate, mean score, rate
optimal in each of the task's senses, mean answer tokens and accuracy weight go to TRL's logs
(``log_metric``; answer length in real tokens, whatever the reward measures), from which the
round's curves are read (`curves`).

The model's text is judged as data; nothing it wrote is run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from envdesign_common import RunningValidRate
from tasks import Task

__all__ = ["RoundReward", "answer_text"]

VALID_METRIC = "task/valid_rate"
SCORE_METRIC = "task/score"
OPTIMAL_METRIC = "task/optimal_rate/{kind}"
TOKENS_METRIC = "task/answer_tokens"
WEIGHT_METRIC = "task/accuracy_weight"


def answer_text(completion: Any) -> str:
    """The answer's text: a conversational completion is a list of messages (the assistant's),
    a plain one a string."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        return "".join(str(m.get("content") or "") for m in completion if isinstance(m, dict))
    raise TypeError(f"a completion is text or a list of messages, not {type(completion).__name__}")


class RoundReward:
    """The task's reward for `GRPOTrainer` over one round's `items`, with the running valid
    rate as its state."""

    __name__ = "task_reward"  # TRL names the reward's metrics after it

    def __init__(
        self,
        task: Task[Any, Any],
        items: Sequence[Any],
        running: RunningValidRate,
        *,
        count_tokens: bool = True,
    ) -> None:
        """`count_tokens`: the reward reads the answer's real token count; else the task
        measures the answer's text itself (MAPF-FrozenLake: characters / chars_per_token)."""
        self.task = task
        self.items = tuple(items)
        self.running = running
        self.count_tokens = count_tokens

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        completion_ids: Sequence[Sequence[int]],
        item: Sequence[int],
        log_metric: Callable[[str, float], None] | None = None,
        **_: Any,
    ) -> list[float | None]:
        """One reward per answer; `item` is the dataset column, repeated per answer."""
        weight_rate = self.running.value
        rows = [(self.items[i], answer_text(c), len(ids))
                for i, c, ids in zip(item, completions, completion_ids, strict=True)]  # fmt: skip
        paid = [
            self.task.reward(it, text, valid_rate=weight_rate,
                             n_tokens=tokens if self.count_tokens else None)
            for it, text, tokens in rows
        ]  # fmt: skip
        judged = [self.task.judge(it, text) for it, text, _ in rows]
        valid = [j.valid for j in judged]
        if log_metric is not None and judged:
            n = len(judged)
            log_metric(VALID_METRIC, sum(valid) / n)
            log_metric(SCORE_METRIC, sum(j.score for j in judged) / n)
            for kind in self.task.optimal_kinds:
                hits = sum(j.optimal.get(kind) is True for j in judged)
                log_metric(OPTIMAL_METRIC.format(kind=kind), hits / n)
            log_metric(TOKENS_METRIC, sum(tokens for *_, tokens in rows) / n)
            log_metric(WEIGHT_METRIC, self.task.accuracy_weight(weight_rate))
        self.running.update(valid)
        return list(paid)  # None would be TRL's "no reward": never given
