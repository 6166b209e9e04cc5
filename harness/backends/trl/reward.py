"""The reward TRL's `GRPOTrainer` trains on: mapf_env's reward, with a weight that has memory.

`GRPOTrainer` calls a reward function once per generation batch with every answer of the batch
and the dataset's other columns. `RoundReward` is that function: each answer is rebuilt into
its instance (the dataset's ``instance`` column holds the solved instance as JSON, as verl's
``ground_truth`` does) and scored by `mapf_env.reward` with its real token count (or, with
``trl.length_unit: characters``, the verl backend's characters-per-token measure). The accuracy
weight follows the running valid rate (`mapf_env.RunningValidRate`), which this object keeps
and folds each batch into after scoring it -- the CPU learner's rule, carried across rounds
by the backend's saved state. Each batch's valid rate, optimal rate and mean answer tokens go
to TRL's logs (``log_metric``; answer length in real tokens, whatever the length term
measures), from which the round's curves are read (`curves`).

The model's text is parsed and verified as data; nothing it wrote is run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from mapf_env import Instance, RewardConfig, RunningValidRate, instance_from_ground_truth, reward

__all__ = ["RoundReward", "answer_text"]

VALID_METRIC = "mapf/valid_rate"
OPTIMAL_METRIC = "mapf/optimal_rate"
TOKENS_METRIC = "mapf/answer_tokens"
WEIGHT_METRIC = "mapf/accuracy_weight"


@lru_cache(maxsize=4096)
def _instance(ground_truth: str) -> Instance:
    return instance_from_ground_truth(ground_truth)


def answer_text(completion: Any) -> str:
    """The answer's text: a conversational completion is a list of messages (the assistant's),
    a plain one a string."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        return "".join(str(m.get("content") or "") for m in completion if isinstance(m, dict))
    raise TypeError(f"a completion is text or a list of messages, not {type(completion).__name__}")


class RoundReward:
    """mapf_env's reward for `GRPOTrainer`, with the running valid rate as its state."""

    __name__ = "mapf_reward"  # TRL names the reward's metrics after it

    def __init__(
        self, config: RewardConfig, running: RunningValidRate, *, count_tokens: bool = True
    ) -> None:
        """`count_tokens`: the length term reads the answer's real token count; else its
        characters / ``config.chars_per_token``, as the verl backend's reward must."""
        self.config = config
        self.running = running
        self.count_tokens = count_tokens

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        completion_ids: Sequence[Sequence[int]],
        instance: Sequence[str],
        log_metric: Callable[[str, float], None] | None = None,
        **_: Any,
    ) -> list[float | None]:
        """One reward per answer; `instance` is the dataset column, repeated per answer."""
        weight_rate = self.running.value
        scored = [
            reward(_instance(truth), answer_text(text), self.config, weight_rate,
                   n_tokens=len(ids) if self.count_tokens else None)
            for truth, text, ids in zip(instance, completions, completion_ids, strict=True)
        ]  # fmt: skip
        valid = [s.valid for s in scored]
        if log_metric is not None and scored:
            log_metric(VALID_METRIC, sum(valid) / len(valid))
            log_metric(OPTIMAL_METRIC, sum(s.optimal is True for s in scored) / len(scored))
            log_metric(TOKENS_METRIC, sum(len(ids) for ids in completion_ids) / len(scored))
            log_metric(WEIGHT_METRIC, scored[0].accuracy_weight)
        self.running.update(valid)
        return [s.total for s in scored]  # None would be TRL's "no reward": never given
