"""Every knob of the CPU learner in one validated record, saved beside each checkpoint."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CpuLearnerSettings(BaseModel):
    """Hyper-parameters of the policy, the rollouts and the GRPO update.

    Defaults are what a prototype on a 2-core laptop found to learn fastest at the paper's
    budget (4000 instances x 8 samples x 3 epochs per round).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    group_size: int = Field(default=8, ge=2, description="Sampled solutions per instance (n).")
    lr: float = Field(default=1e-3, gt=0.0, description="Adam learning rate.")
    kl_coef: float = Field(
        default=0.01, ge=0.0, description="Weight of the KL penalty to the round's reference."
    )
    batch_size: int = Field(
        default=256, ge=1, description="Instances per optimiser step (x group_size episodes)."
    )
    window: int = Field(default=7, ge=3, description="Side of the egocentric window (odd).")
    hidden: tuple[int, ...] = Field(default=(256, 256), description="MLP hidden layer widths.")
    max_steps_factor: float = Field(
        default=2.0,
        gt=0.0,
        description="Horizon = factor x (optimal makespan, or 2 x size when unknown) + 2.",
    )
    progress_reward: float = Field(
        default=0.1,
        ge=0.0,
        description="Bonus x share of distance to goals covered, paid to invalid episodes only.",
    )
    grad_clip: float = Field(default=1.0, gt=0.0, description="Max gradient norm per step.")
    bf16: bool = Field(default=True, description="bf16 autocast where the CPU supports it.")
    threads: int | None = Field(
        default=None, ge=1, description="torch threads; None = the machine's cores."
    )
    seed: int = Field(default=0, description="Default seed for `initialise`.")
