"""A round's curves from TRL's logs: one `TrainStep` per optimiser step, as it happens.

The trainer logs after every optimiser step (``logging_steps=1``); `StepCurves` is a
`TrainerCallback` that turns each log into a `TrainStep` -- TRL's mean reward, KL to the
reference and policy loss, the reward's own valid rate and answer length (`reward`), the step's
wall time -- hands it to the loop's ``on_step`` and keeps it for the round's summary. The log
at the end of training (runtime figures, no reward) is not a step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from harness.backends.trl.reward import TOKENS_METRIC, VALID_METRIC
from run_records import TrainStep

__all__ = ["StepCurves", "train_step"]


def _number(logs: Mapping[str, Any], *keys: str) -> float:
    for key in keys:
        value = logs.get(key)
        if isinstance(value, int | float) and math.isfinite(value):
            return float(value)
    return float("nan")


def train_step(logs: Mapping[str, Any], step: int, epoch: int, seconds: float) -> TrainStep | None:
    """The step TRL's log `logs` describes; None for a log that is no optimiser step."""
    if "reward" not in logs:
        return None
    tokens = _number(logs, TOKENS_METRIC, "completions/mean_length")
    return TrainStep(
        step=step,
        epoch=epoch,
        reward=_number(logs, "reward"),
        valid_rate=_number(logs, VALID_METRIC),
        kl=_number(logs, "kl") if "kl" in logs else 0.0,  # no reference when beta is 0
        loss=_number(logs, "policy_loss", "loss"),
        seconds=seconds,
        answer_tokens=None if math.isnan(tokens) else tokens,
    )


class StepCurves(TrainerCallback):
    """Collects the round's steps; see the module docstring."""

    def __init__(
        self,
        steps_before: int,
        steps_per_epoch: int,
        on_step: Callable[[TrainStep], None] | None = None,
    ) -> None:
        self.steps_before = steps_before
        self.steps_per_epoch = max(1, steps_per_epoch)
        self.on_step = on_step
        self.steps: list[TrainStep] = []
        self._since = time.perf_counter()

    def on_step_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kw: Any
    ) -> None:
        self._since = time.perf_counter()

    def on_log(
        self,
        args: TrainingArguments,
        state: TrainerState,
        control: TrainerControl,
        logs: dict[str, Any] | None = None,
        **kw: Any,
    ) -> None:
        epoch = (max(1, state.global_step) - 1) // self.steps_per_epoch
        step = train_step(logs or {}, self.steps_before + state.global_step, epoch,
                          time.perf_counter() - self._since)  # fmt: skip
        if step is None:
            return
        self.steps.append(step)
        if self.on_step is not None:
            self.on_step(step)
