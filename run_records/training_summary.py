"""A round's training in a dozen numbers: what the round record keeps and module T can show.

The LLM designer's T module shows only bookkeeping (round, epochs) by default; its "full RL
details" option (the paper's ablation) adds the numbers of `TrainingSummary.as_details`. Both
backends build the summary from the same per-step curves (`TrainStep`) and their own settings
with `summarise`, so a CPU round and a verl round read alike:

* **reward mean**: the mean over the round's steps of each step's mean rollout reward;
* **reward trend**: the least-squares slope of the step rewards against the step index, i.e.
  reward gained per optimiser step (0 for a round of one step). A slope uses every step, so one
  noisy step at either end moves it less than a difference of the first and last steps would;
* **valid rate at the start / end**: the rollout valid rate of the round's first and last step
  (the policy as the round began, and as it ended);
* **KL / policy loss at the end**: the last step's KL to the round's reference and its
  policy-gradient loss (KL term excluded);
* **reward weight**: the running valid rate (`envdesign_common.RunningValidRate`) the reward
  weighed the round's last step with, and the share w of the reward that paid correctness at
  that rate (the task's `accuracy_weight`; MAPF-FrozenLake's length term weighs 1 - w, a task
  that pays correctness alone has w = 1). The CPU learner moves the rate every step; verl holds
  it fixed for the round (see `harness.backends.verl.reward`).
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean, linear_regression

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DETAIL_KEYS", "TrainStep", "TrainingSummary", "summarise"]


class TrainStep(BaseModel):
    """One optimiser step's curves (what verl logs as actor/... and critic/score/...)."""

    model_config = ConfigDict(frozen=True)

    step: int
    epoch: int
    reward: float = Field(description="Mean reward of the step's rollouts.")
    valid_rate: float = Field(description="Share of the step's rollouts that were valid.")
    kl: float = Field(description="Mean KL to the round's frozen reference policy.")
    loss: float = Field(
        description="Policy-gradient loss (verl's actor/pg_loss), KL term excluded."
    )
    seconds: float
    answer_tokens: float | None = Field(
        default=None,
        description="Mean answer length in tokens; None from a learner that writes no tokens "
        "(the CPU learner) or does not count them.",
    )


DETAIL_KEYS: dict[str, str] = {
    "steps": "optimiser steps",
    "group_size": "group size",
    "learning_rate": "learning rate",
    "kl_coef": "kl coefficient",
    "reward_mean": "reward mean",
    "reward_trend": "reward slope per step",
    "valid_rate_start": "rollout valid rate, first step",
    "valid_rate_end": "rollout valid rate, last step",
    "kl_end": "kl to reference, last step",
    "policy_loss_end": "policy loss, last step",
    "reward_valid_rate": "reward running valid rate",
    "accuracy_weight": "reward accuracy weight",
}
"""Summary field -> the key it has in `TrainingInfo.details` (and so in the designer's prompt).

Epochs and samples are left out: `TrainingInfo` carries them in fields of their own, which T
renders already."""


class TrainingSummary(BaseModel):
    """One round of GRPO in numbers; see the module docstring for how each is computed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    steps: int = Field(ge=1, description="Optimiser steps the round took.")
    epochs: int = Field(ge=0, description="Passes over the round's training instances.")
    samples: int = Field(ge=0, description="Training instances in the round's dataset.")
    group_size: int = Field(ge=1, description="Sampled answers per instance (GRPO's n).")
    learning_rate: float = Field(description="The configured learning rate.")
    kl_coef: float = Field(description="Weight of the KL penalty to the round's reference.")
    reward_mean: float = Field(description="Mean over the steps of each step's mean reward.")
    reward_trend: float = Field(
        description="Least-squares slope of the step rewards per step (0 with one step)."
    )
    valid_rate_start: float = Field(description="Rollout valid rate of the round's first step.")
    valid_rate_end: float = Field(description="Rollout valid rate of the round's last step.")
    kl_end: float = Field(description="KL to the round's reference at its last step.")
    policy_loss_end: float = Field(
        description="Policy-gradient loss at the round's last step (KL term excluded)."
    )
    reward_valid_rate: float = Field(
        description="The running valid rate the reward weighed the round's last step with."
    )
    accuracy_weight: float = Field(
        description="The share of the reward that paid correctness at that rate (1 for a "
        "reward that pays correctness alone; MAPF-FrozenLake's length term gets 1 - w)."
    )

    def as_details(self) -> dict[str, float]:
        """The flat, readable `TrainingInfo.details` (keys from `DETAIL_KEYS`)."""
        return {key: float(getattr(self, name)) for name, key in DETAIL_KEYS.items()}


def _slope(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    return linear_regression(range(len(values)), values).slope


def summarise(
    steps: Sequence[TrainStep],
    *,
    epochs: int,
    samples: int,
    group_size: int,
    learning_rate: float,
    kl_coef: float,
    valid_rate: float,
    accuracy_weight: float,
) -> TrainingSummary | None:
    """The summary of a round that took `steps` (in order), or None if it took none.

    `valid_rate` is the running valid rate the reward weighed the last step with, and
    `accuracy_weight` the share of the reward that paid correctness at that rate (the task's
    `accuracy_weight(valid_rate)`).
    """
    if not steps:
        return None
    rewards = [s.reward for s in steps]
    first, last = steps[0], steps[-1]
    return TrainingSummary(
        steps=len(steps),
        epochs=epochs,
        samples=samples,
        group_size=group_size,
        learning_rate=learning_rate,
        kl_coef=kl_coef,
        reward_mean=fmean(rewards),
        reward_trend=_slope(rewards),
        valid_rate_start=first.valid_rate,
        valid_rate_end=last.valid_rate,
        kl_end=last.kl,
        policy_loss_end=last.loss,
        reward_valid_rate=valid_rate,
        accuracy_weight=accuracy_weight,
    )
