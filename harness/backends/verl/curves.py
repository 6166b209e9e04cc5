"""A round's training curves from what verl writes: its ``file`` logger and its rollout dumps.

verl 0.6.1's ``file`` logger (`verl.utils.tracking.FileLogger`) writes one JSON line per step,
``{"step": N, "data": {metric: value}}``, to ``$VERL_FILE_LOGGER_PATH``. It opens the file with
mode "w", so every attempt at a round gets a file of its own (``metrics/attempt-K.jsonl``),
and it does not flush per line, so lines appear in blocks while verl runs (and all of them
when it exits): curves lag a step or two behind training, never more.

A step's `TrainStep` takes

* reward: ``critic/score/mean`` (the mean of the reward function's ``score``);
* kl: ``actor/kl_loss`` (the KL loss to the round's reference) when the KL is in the loss;
  ``actor/reward_kl_penalty`` (the mean KL the reward was penalised with) when it is in the
  reward (``algorithm.use_kl_in_reward``); 0.0 when there is no KL (verl logs neither key);
* loss: ``actor/pg_loss``; epoch: ``training/epoch``; seconds: ``timing_s/step``;
* valid_rate: verl logs no per-step mean of the reward's extra keys during training, so it comes
  from the step's rollout dump (``trainer.rollout_data_dir``: one JSON line per response,
  carrying the reward's ``valid`` flag), read when the step's log line appears -- verl writes
  the dump before the line -- and then deleted (``keep_rollouts`` keeps it). Where a dump is
  missing the step takes the running valid rate so far, so no curve holds a NaN.

Each step is also written to ``steps.jsonl`` in the round's directory (the dumps are gone once
read), so a round resumed by a later harness process keeps the curves of the steps before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.backends.base import TrainStep

REWARD = "critic/score/mean"
KL = "actor/kl_loss"
REWARD_KL = "actor/reward_kl_penalty"
LOSS = "actor/pg_loss"
EPOCH = "training/epoch"
SECONDS = "timing_s/step"


def complete_lines(path: Path, offset: int) -> tuple[list[str], int]:
    """The whole lines of `path` after byte `offset`, and the offset after the last of them."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return [], offset
    end = data.rfind(b"\n") + 1
    lines = data[:end].decode("utf-8", errors="replace").splitlines()
    return [line for line in lines if line.strip()], offset + end


def rollout_valid_rate(path: Path) -> float | None:
    """The share of a step's responses the reward found valid (verl's rollout dump)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    flags = [float(json.loads(line).get("valid", 0.0)) for line in text.splitlines() if line]
    return sum(flags) / len(flags) if flags else None


def _number(data: dict[str, Any], key: str, default: float) -> float:
    value = data.get(key, default)
    number = float(value) if isinstance(value, int | float) else default
    return number if math.isfinite(number) else default


class RoundCurves:
    """The steps of one round, gathered as verl writes them (see the module docstring)."""

    def __init__(
        self,
        round_dir: Path,
        *,
        steps_before: int,
        running: Callable[[], float],
        keep_rollouts: bool = False,
    ) -> None:
        self.round_dir = round_dir
        self.steps_before = steps_before
        self.running = running
        self.keep_rollouts = keep_rollouts
        self.steps: dict[int, TrainStep] = {}
        self.reported: set[int] = set()
        self._offsets: dict[Path, int] = {}
        for line in complete_lines(self.record, 0)[0]:
            step = TrainStep.model_validate_json(line)
            self.steps[step.step] = step

    @property
    def metrics_dir(self) -> Path:
        return self.round_dir / "metrics"

    @property
    def rollout_dir(self) -> Path:
        return self.round_dir / "rollouts"

    @property
    def record(self) -> Path:
        return self.round_dir / "steps.jsonl"

    def metrics_file(self, attempt: int) -> Path:
        return self.metrics_dir / f"attempt-{attempt}.jsonl"

    def attempts_so_far(self) -> int:
        """How many attempts at this round have logged (their files exist)."""
        return len(list(self.metrics_dir.glob("attempt-*.jsonl")))

    def poll(self, attempt: int) -> list[TrainStep]:
        """Steps logged since the last poll by `attempt`; each step number is returned once
        (a step redone after a resume replaces the stored one but is not reported again)."""
        path = self.metrics_file(attempt)
        lines, self._offsets[path] = complete_lines(path, self._offsets.get(path, 0))
        new: list[TrainStep] = []
        for line in lines:
            entry = json.loads(line)
            step = self._step(int(entry["step"]), entry.get("data", {}))
            self.steps[step.step] = step
            with open(self.record, "a", encoding="utf-8") as f:
                f.write(step.model_dump_json() + "\n")
            if step.step not in self.reported:
                self.reported.add(step.step)
                new.append(step)
        return new

    def _step(self, verl_step: int, data: dict[str, Any]) -> TrainStep:
        dump = self.rollout_dir / f"{verl_step}.jsonl"
        valid = rollout_valid_rate(dump)
        if not self.keep_rollouts:
            dump.unlink(missing_ok=True)
        return TrainStep(
            step=self.steps_before + verl_step - 1,
            epoch=int(_number(data, EPOCH, 0.0)),
            reward=_number(data, REWARD, 0.0),
            valid_rate=self.running() if valid is None else valid,
            kl=_number(data, KL, _number(data, REWARD_KL, 0.0)),
            loss=_number(data, LOSS, 0.0),
            seconds=_number(data, SECONDS, 0.0),
        )

    def replay(self) -> list[TrainStep]:
        """The steps an earlier harness process recorded, marked as reported (a resumed round
        shows its whole curve)."""
        earlier = list(self.ordered())
        self.reported.update(step.step for step in earlier)
        return earlier

    def ordered(self) -> tuple[TrainStep, ...]:
        return tuple(self.steps[k] for k in sorted(self.steps))
