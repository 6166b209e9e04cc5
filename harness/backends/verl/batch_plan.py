"""verl's batch arithmetic for one round: steps, mini-batches, accumulation, save frequency.

Worked out and checked before any GPU is involved, so a setting verl would reject or silently
floor is refused at preflight; the overrides, the checkpoint layout, the curves and the disk
budget all read the same plan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.backends.verl.settings import VerlSettings

__all__ = ["BatchPlan", "plan_round"]


@dataclass(frozen=True, slots=True)
class BatchPlan:
    """verl's batch arithmetic for one round, checked before any GPU is involved."""

    n_gpus: int
    group_size: int
    train_rows: int
    prompts_per_step: int
    steps_per_epoch: int
    epochs: int
    dropped_per_epoch: int
    """Rows the train dataloader drops each epoch (verl uses drop_last; shuffled anew)."""
    mini_batches_per_step: int
    samples_per_mini_batch: int
    samples_per_gpu_per_mini_batch: int
    grad_accumulation: int
    """Micro-batches each GPU accumulates per optimiser step."""
    save_freq: int

    @property
    def total_steps(self) -> int:
        return self.steps_per_epoch * self.epochs

    @property
    def samples_per_step(self) -> int:
        return self.prompts_per_step * self.group_size


def plan_round(settings: VerlSettings, group_size: int, train_rows: int, epochs: int) -> BatchPlan:
    """The round's steps and batch sizes; ValueError when verl would reject or floor them."""
    s = settings
    n_gpus = s.n_gpus
    steps_per_epoch = train_rows // s.train_batch_size
    if steps_per_epoch < 1:
        raise ValueError(
            f"{train_rows} training rows make no full batch of train_batch_size "
            f"{s.train_batch_size} prompts; lower verl.train_batch_size or raise the samples"
        )
    if (s.train_batch_size * group_size) % n_gpus:
        raise ValueError(
            f"train_batch_size x n = {s.train_batch_size} x {group_size} samples per step must "
            f"divide evenly over {n_gpus} GPUs"
        )
    samples_per_mini = s.ppo_mini_batch_size * group_size
    if samples_per_mini % n_gpus:
        raise ValueError(
            f"ppo_mini_batch_size x n = {samples_per_mini} samples must divide evenly over "
            f"{n_gpus} GPUs"
        )
    per_gpu = samples_per_mini // n_gpus
    if per_gpu % s.micro_batch_size_per_gpu:
        raise ValueError(
            f"each GPU's share of a mini-batch ({per_gpu} samples) must be a multiple of "
            f"micro_batch_size_per_gpu ({s.micro_batch_size_per_gpu})"
        )
    return BatchPlan(
        n_gpus=n_gpus,
        group_size=group_size,
        train_rows=train_rows,
        prompts_per_step=s.train_batch_size,
        steps_per_epoch=steps_per_epoch,
        epochs=epochs,
        dropped_per_epoch=train_rows % s.train_batch_size,
        mini_batches_per_step=math.ceil(s.train_batch_size / s.ppo_mini_batch_size),
        samples_per_mini_batch=samples_per_mini,
        samples_per_gpu_per_mini_batch=per_gpu,
        grad_accumulation=per_gpu // s.micro_batch_size_per_gpu,
        save_freq=s.save_freq if s.save_freq is not None else steps_per_epoch,
    )
