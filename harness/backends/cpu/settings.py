"""Every knob of the CPU learner in one validated record, saved beside each checkpoint."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.backends.policy_names import Actions
from mapf_env import RewardConfig
from run_records import Precision

Deciding = Literal["together", "in_turn"]
"""How the agents of one time step choose: all at once, or one after another in priority order
(`harness.backends.cpu.rollout`)."""

PriorityOrder = Literal["random", "farthest"]
"""How an episode's agents are ranked (`harness.backends.cpu.rollout`)."""


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
        description="Bonus x share of distance to goals covered, paid to invalid episodes "
        "that kept the rules (failed by a conflict or a missed goal only).",
    )
    reward: RewardConfig = Field(
        default_factory=RewardConfig,
        description="The reward's coefficients: the experiment's task_settings.reward.",
    )
    grad_clip: float = Field(default=1.0, gt=0.0, description="Max gradient norm per step.")
    actions: Actions = Field(
        default="masked",
        description="masked: illegal moves are never sampled and answers are written "
        "correctly; free: moves into holes and off the grid are allowed (the episode ends "
        "there) and a learned writing head can drop, duplicate, shorten or garble each "
        "agent's line, so answers fail in all eight ways and the policy learns not to.",
    )
    fall_logit: float = Field(
        default=-2.0,
        le=0.0,
        description="free only: a fresh policy's logit offset on every move into a hole or "
        "off the grid (one learned parameter; the network learns the rest). 0 = no prior: a "
        "fresh policy then falls in on about three answers in four, which hides every later "
        "check's failures.",
    )
    slip_rate: float = Field(
        default=0.03,
        gt=0.0,
        lt=0.2,
        description="free only: a fresh policy's probability of each of the five writing "
        "slips per agent (the writing head's initial bias; training moves it).",
    )
    precision: Precision = Field(
        default="fp32",
        description="fp32, or bf16 autocast: native where the CPU has bf16 instructions, "
        "emulated (slower) where it has not. Never chosen from the CPU's features, so a run "
        "computes in the format its config names on every machine.",
    )
    threads: int | None = Field(
        default=None, ge=1, description="torch threads; None = the machine's cores."
    )
    seed: int = Field(default=0, description="Default seed for `initialise`.")
    decide: Deciding = Field(
        default="together",
        description="together: every agent chooses its move at once from what it sees; "
        "in_turn: agents choose one after another in priority order, each seeing (its claims "
        "channel) the cells the agents before it have just chosen.",
    )
    priority: PriorityOrder = Field(
        default="random",
        description="Who ranks first in an episode: random (a fresh order per episode), or "
        "farthest (the agent with the longest way to its goal first, ties at random).",
    )
