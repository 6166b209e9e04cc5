"""The experiment's ``cpu:`` section: the CPU learner's knobs that the experiment's shared fields
do not already hold.

The policy, precision, group size, learning rate and KL weight are the experiment's own
(`ExperimentConfig.policy`, `.precision`, `.grpo`), shared with every backend; this section
holds how the learner's agents decide and how many instances one optimiser step takes. The
defaults are the learner as it was before the section existed, so an experiment without the
section trains exactly what it trained then. Nothing here imports torch: the section is read
whenever an experiment is validated.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from harness.backends.cpu.settings import Deciding, PriorityOrder

__all__ = ["CpuSection"]


class CpuSection(BaseModel):
    """How the CPU learner's agents decide, and its batch (`CpuLearnerSettings` holds the rest)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decide: Deciding = Field(
        "together",
        description="together: every agent of a time step picks its move at once from what it "
        "sees; in_turn: they pick one after another in priority order, each seeing the cells "
        "the agents before it have just chosen, as an LLM writes one agent's line knowing the "
        "lines above it.",
    )
    priority: PriorityOrder = Field(
        "random",
        description="Who ranks first in an episode: random (a fresh order per episode) or "
        "farthest (the agent with the longest way to its goal, ties at random).",
    )
    batch_size: int = Field(
        256,
        ge=1,
        le=100_000,
        description="Instances per optimiser step (each answered group_size times): with a "
        "round's samples fixed, a smaller batch takes more steps from the same rollouts.",
    )
