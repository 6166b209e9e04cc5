"""What the curriculum teachers share beyond their rules: the bounds of an arm's budget share,
how an arm's difficulty levers step, and what they need of a task, checked before any training.

Steps and ranges are keyed by knob path, as `harness tasks show` lists them, and merged over
the teacher's defaults (MAPF-FrozenLake's holes and waits, tuned on its validation suite), so
``steps: {sizes.*.wait_ratio: 0.1}`` changes that one step and keeps the others. A difficulty
knob a teacher's defaults do not name (reasoning-gym's levels) steps by `step_share` of its
bounds, an integer knob by at least 1, within its bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from designers.arms import Lever, arms_problem, task_arms, toward
from designers.knob_drafts import cell_value
from tasks import Knob, Task

__all__ = ["Range", "TeacherOptions", "step_lever"]

Range = tuple[float, float]


class TeacherOptions(BaseModel):
    """The options every teacher has; a teacher's own class sets their defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    min_ratio: float = Field(
        0.0, ge=0, le=1, description="Floor of any arm's share (at most 1 / arms)."
    )
    max_ratio: float = Field(1.0, ge=0, le=1, description="Ceiling of any arm's share.")
    steps: dict[str, float] = Field(
        default_factory=dict,
        description="Knob path -> change per round of a difficulty lever that moves, merged "
        "over the defaults, e.g. {sizes.*.hole_ratio: 0.05}.",
    )
    ranges: dict[str, Range] = Field(
        default_factory=dict,
        description="Knob path -> [lowest, highest] value a lever steps to (easier toward one "
        "end, harder toward the other), merged over the defaults, e.g. "
        "{sizes.*.wait_ratio: [0.25, 0.75]}.",
    )
    step_share: float = Field(
        0.1, gt=0, le=1, description="Step of a knob not in `steps`, as a share of its bounds."
    )

    @model_validator(mode="before")
    @classmethod
    def _merged_over_defaults(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        merged = dict(data)
        for name in ("steps", "ranges"):
            if isinstance(given := merged.get(name), Mapping):
                merged[name] = {**cls.model_fields[name].get_default(call_default_factory=True),
                                **given}  # fmt: skip
        return merged

    @field_validator("steps")
    @classmethod
    def _steps_not_negative(cls, steps: dict[str, float]) -> dict[str, float]:
        for path, step in steps.items():
            if step < 0:
                raise ValueError(f"the step of {path} is {step:g}; give a step of 0 or more")
        return steps

    @field_validator("ranges")
    @classmethod
    def _ranges_ordered(cls, ranges: dict[str, Range]) -> dict[str, Range]:
        for path, (low, high) in ranges.items():
            if low > high:
                raise ValueError(
                    f"the range of {path} [{low:g}, {high:g}] is not an interval; give "
                    "[lowest, highest]"
                )
        return ranges

    @model_validator(mode="after")
    def _shares_in_order(self) -> TeacherOptions:
        if self.min_ratio > self.max_ratio:
            raise ValueError(
                f"min_ratio {self.min_ratio:g} is above max_ratio {self.max_ratio:g}; lower "
                "min_ratio or raise max_ratio"
            )
        return self

    def share_bounds(self, arms: int) -> Range:
        """[`min_ratio`, `max_ratio`] for `arms` arms. A default the arms could not fill (a
        ceiling of 0.25 over three datasets) widens to the even split; one given that cannot
        is a preflight problem (`task_problems`)."""
        even = 1 / arms
        return min(self.min_ratio, even), max(self.max_ratio, even)

    def step(self, knob: Knob) -> float:
        if knob.path in self.steps:
            return self.steps[knob.path]
        step = self.step_share * (knob.high - knob.low)
        return max(1.0, round(step)) if knob.integer else step

    def range(self, knob: Knob) -> Range:
        return self.ranges.get(knob.path, (knob.low, knob.high))

    def task_problems(self, name: str, task: Task[Any, Any]) -> list[str]:
        """What teacher `name` with these options cannot do on `task`, one line each: no
        arms; share bounds given that its arms cannot fill; steps or ranges given for a
        knob that is not one of its difficulty knobs (the teacher's defaults aside)."""
        if (problem := arms_problem(task, name)) is not None:
            return [problem]
        defaults = type(self)()
        arms = len(task_arms(task, task.initial_config(0, 1)))
        lines = []
        if "min_ratio" in self.model_fields_set and self.min_ratio * arms > 1:
            lines.append(f"min_ratio {self.min_ratio:g} over {arms} arms of task {task.id!r} "
                         f"asks for more than the budget; give at most {1 / arms:.4g}")  # fmt: skip
        if "max_ratio" in self.model_fields_set and self.max_ratio * arms < 1:
            lines.append(f"max_ratio {self.max_ratio:g} over {arms} arms of task {task.id!r} "
                         f"cannot fill the budget; give at least {1 / arms:.4g}")  # fmt: skip
        known = [k.path for k in task.knobs() if k.harder is not None]
        for table, default in ((self.steps, defaults.steps), (self.ranges, defaults.ranges)):
            lines += [
                f"{path} is not a difficulty knob of task {task.id!r}; its difficulty knobs are "
                f"{', '.join(known) or 'none'}"
                for path in table
                if path not in default and path not in known
            ]
        return [f"designer {name!r}: {line}" for line in lines]


def step_lever(
    lever: Lever, config: BaseModel, options: TeacherOptions, *, harder: bool, one_way: bool = False
) -> tuple[float, float]:
    """A lever's value before and after one step toward the harder (or easier) end of its
    range. With `one_way`, a value already past that end stays: a harder step never lowers
    difficulty, an easier one never raises it."""
    knob = lever.knob
    before = float(cell_value(config, lever.cell))
    low, high = options.range(knob)
    up = harder == (knob.harder == "up")
    moved = toward(before, high if up else low, options.step(knob))
    if one_way:
        moved = max(before, moved) if up else min(before, moved)
    return before, (round(moved) if knob.integer else round(moved, 4))
