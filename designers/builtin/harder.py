"""`harder`: the naive difficulty maximiser the paper warns against, kept as a control.

Every round it shifts budget toward larger maps and raises holes and conflicts everywhere,
whatever the policy did -- the monotone "bigger means harder" template that the paper found
to fail. Comparing against it shows what reading the evidence is worth.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from designers.base import RuleDesigner
from designers.context import DesignContext
from mapf_env.config import MAX_HOLE_RATIO
from mapf_env.instance import size_name


class HarderOptions(BaseModel):
    """Options of `harder`: how fast it grows the maps, holes and conflicts each round."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    size_growth: float = Field(0.25, ge=0, description="Budget growth per size step up.")
    hole_step: float = Field(0.05, ge=0, le=MAX_HOLE_RATIO, description="Holes added per round.")
    wait_step: float = Field(0.1, ge=0, le=1, description="Wait share added per round.")


class HarderDesigner(RuleDesigner):
    name = "harder"
    description = "Control: every round larger, holier and more conflicted, ignoring evidence."
    options_model: ClassVar[type[BaseModel]] = HarderOptions

    def __init__(self, size_growth: float = 0.25, hole_step: float = 0.05, wait_step: float = 0.1):
        self.size_growth = size_growth
        self.hole_step = hole_step
        self.wait_step = wait_step

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        changes = {}
        for size, entry in ctx.config.sizes.items():
            growth = (1 + self.size_growth) ** (size - 3)
            changes[size_name(size)] = {
                "ratio": entry.ratio * growth,
                "hole_ratio": min(MAX_HOLE_RATIO, entry.hole_ratio + self.hole_step),
                "wait_ratio": min(1.0, entry.wait_ratio + self.wait_step),
            }
        return changes, "harder everywhere: budget to larger maps, more holes, more conflicts"
