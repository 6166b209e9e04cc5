"""The fixed-environment baselines: one configuration, kept for every round, for any task.

`random` is the paper's baseline: round 0's configuration is the task's shared start for the
run's seed (MAPF-FrozenLake's is drawn at random) and never changed. `uniform` picks its own
start from the task's declared knobs alone -- every knob in the middle of its bounds, every
share split evenly (for MAPF-FrozenLake: equal budget over sizes, holes 0.25, waits 0.5) --
and keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from designers.base import RuleDesigner
from designers.context import DesignContext
from designers.knob_drafts import midpoint_draft
from designers.task_types import ConfigT
from tasks import Task


class UniformOptions(BaseModel):
    """Options of `uniform`: a value for any knob, by its path, instead of its middle."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    values: dict[str, float] = Field(
        default_factory=dict,
        description="Knob path (harness tasks show lists them) -> the value every cell of it "
        "keeps, e.g. {sizes.*.hole_ratio: 0.3}; projection keeps it within the task's bounds.",
    )


class RandomDesigner(RuleDesigner):
    name = "random"
    description = "Paper baseline: the task's seeded round-0 configuration, kept every round."
    tasks = None

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        return {}, "fixed environment: keep the round-0 configuration"


class UniformDesigner(RuleDesigner):
    """Picks its own start from the task's knobs and asks for it again at every step: asking
    for the whole configuration (not an empty change set) keeps it even when a projection or
    a resumed run would otherwise drift from it."""

    name = "uniform"
    description = "Every knob mid-range, shares even (MAPF: holes 0.25, waits 0.5), kept."
    tasks = None
    options_model: ClassVar[type[BaseModel]] = UniformOptions

    def __init__(self, values: Mapping[str, float] | None = None) -> None:
        self.values = dict(values or {})

    def initial_config(self, base: ConfigT, seed: int, task: Task[Any, Any]) -> ConfigT | None:
        fixed: ConfigT = task.project(base, midpoint_draft(task, base, self.values)).config
        return fixed

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        draft = midpoint_draft(ctx.design_task(), ctx.config, self.values)
        return draft, "fixed uniform environment"
