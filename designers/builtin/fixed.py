"""The fixed-environment baselines: one configuration, kept for every round.

`random` is the paper's baseline: round 0's configuration is drawn at random from the run's seed
(the harness's shared default start) and never changed. `uniform` picks its own start -- equal
budget over sizes, mid-range holes and waits -- and keeps it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from designers.base import RuleDesigner, as_changes
from designers.context import DesignContext
from mapf_env import EnvConfig
from mapf_env.config import MAX_HOLE_RATIO


class UniformOptions(BaseModel):
    """Options of `uniform`: the hole and wait shares every size keeps."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hole_ratio: float = Field(0.25, ge=0, le=MAX_HOLE_RATIO, description="Holes per size.")
    wait_ratio: float = Field(0.5, ge=0, le=1, description="Share needing conflict resolution.")


class RandomDesigner(RuleDesigner):
    name = "random"
    description = "Paper baseline: the seeded random round-0 configuration, kept every round."

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        return {}, "fixed environment: keep the round-0 configuration"


class FixedConfigDesigner(RuleDesigner):
    """A designer that picks its own start and keeps it: every step asks for that configuration.

    Asking for the whole configuration (not an empty change set) keeps it even when a
    projection or a resumed run would otherwise drift from it; `rationale` says what is kept.
    """

    @abstractmethod
    def fixed_config(self, base: EnvConfig) -> EnvConfig:
        """The configuration kept, with the experiment's agents, budget and objective."""

    def initial_config(self, base: EnvConfig, seed: int) -> EnvConfig | None:
        return self.fixed_config(base)

    def rationale(self) -> str:
        return "fixed environment"

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        return as_changes(self.fixed_config(ctx.config)), self.rationale()


class UniformDesigner(FixedConfigDesigner):
    name = "uniform"
    description = "Equal budget over sizes, holes 0.25, waits 0.5, kept every round."
    options_model: ClassVar[type[BaseModel]] = UniformOptions

    def __init__(self, hole_ratio: float = 0.25, wait_ratio: float = 0.5) -> None:
        self.hole_ratio = hole_ratio
        self.wait_ratio = wait_ratio

    def rationale(self) -> str:
        return "fixed uniform environment"

    def fixed_config(self, base: EnvConfig) -> EnvConfig:
        return EnvConfig.uniform(
            self.hole_ratio,
            self.wait_ratio,
            n_agents=base.n_agents,
            samples=base.samples,
            objective=base.objective,
        )
