"""`hand`: a hand-written easy-to-hard curriculum, read from a YAML schedule.

The schedule is data, not code (`designers/curricula/easy_to_hard.yaml`, also reachable as
`configs/curricula/easy_to_hard.yaml`), so users write their own without touching Python. Its
stages are spread evenly over the run: round r of R uses stage floor(r * S / R). The designer
picks its own round-0 configuration (stage 0) and the harness records that it did.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from designers.base import RuleDesigner, as_changes
from designers.context import DesignContext
from envdesign_common.field_errors import ConfigError, config_error, error_message, unknown_name
from envdesign_common.yaml_mappings import load_mapping, read_mapping
from mapf_env import EnvConfig, merge, project
from tasks import Task

DEFAULT_SCHEDULE = "easy_to_hard"


class Schedule(BaseModel):
    """A curriculum: stage 0 complete, each later stage a change set over the one before."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    stages: tuple[dict[str, Any], ...] = Field(min_length=1)


def load_schedule(source: str | Path = DEFAULT_SCHEDULE) -> Schedule:
    """A schedule by built-in name or from a YAML file path; errors name the file and field.

    Every stage's change set is checked here, merged as the designer will merge it, so a typo in
    the last stage stops the run before round 1 rather than in its last round. Any file may be
    named, so it is read under the size and YAML bounds of user files, and one that is not a
    schedule at all (none of its fields) is one line that never quotes it.
    """
    path = Path(source)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise ConfigError(f"no curriculum file at {path}")
        what = f"curriculum {path}"
        data = read_mapping(path, what)
    else:
        what = f"curriculum built-in {source}"
        data = load_mapping(_builtin(str(source)), what)
    if data and not set(map(str, data)) & set(Schedule.model_fields):
        raise ConfigError(
            f"{what}: not a curriculum (it has none of the fields "
            f"{', '.join(Schedule.model_fields)}); see configs/curricula/easy_to_hard.yaml"
        )
    try:
        schedule = Schedule.model_validate(data)
    except ValidationError as err:
        raise config_error(err, what, Schedule) from None
    lines = _stage_errors(schedule)
    if lines:
        raise ConfigError(error_message([(what, lines)]), lines)
    return schedule


def _builtin(name: str) -> str:
    """The text of a shipped curriculum; an unknown name lists them and the closest one."""
    folder = resources.files("designers.curricula")
    entry = folder / f"{name}.yaml"
    if entry.is_file():
        return entry.read_text(encoding="utf-8")
    names = sorted(
        e.name.removesuffix(".yaml") for e in folder.iterdir() if e.name.endswith(".yaml")
    )
    raise ConfigError(unknown_name("built-in curriculum", name, names))


def _stage_errors(schedule: Schedule) -> list[str]:
    """One line per bad field of any stage, each stage laid over the one before it."""
    lines: list[str] = []
    config = EnvConfig.uniform()
    for i, changes in enumerate(schedule.stages):
        try:
            config = project(merge(config, changes)).config
        except ConfigError as err:
            lines += [f"stages.{i}.{line}" for line in err.lines] or [f"stages.{i}: {err}"]
    return lines


class HandOptions(BaseModel):
    """Options of `hand`: which schedule it follows."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schedule: str = Field(
        DEFAULT_SCHEDULE, description="A built-in curriculum name or the path of a YAML schedule."
    )


class HandCurriculumDesigner(RuleDesigner):
    name = "hand"
    description = "Hand-written easy-to-hard curriculum over rounds (a YAML schedule)."
    options_model: ClassVar[type[BaseModel]] = HandOptions

    def __init__(self, schedule: str | Path = DEFAULT_SCHEDULE) -> None:
        self.schedule = load_schedule(schedule)

    def stage_config(self, base: EnvConfig, stage: int) -> EnvConfig:
        """Stages 0..stage merged in order onto `base`, projected."""
        config = base
        for changes in self.schedule.stages[: stage + 1]:
            config = project(merge(config, changes)).config
        return config

    def initial_config(self, base: EnvConfig, seed: int, task: Task[Any, Any]) -> EnvConfig | None:
        return self.stage_config(base, 0)

    def stage_for(self, next_round: int, total_rounds: int) -> int:
        stages = len(self.schedule.stages)
        return min(stages - 1, next_round * stages // max(total_rounds, 1))

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        stage = self.stage_for(ctx.round + 1, ctx.total_rounds)
        target = self.stage_config(ctx.config, stage)
        return as_changes(target), (
            f"curriculum {self.schedule.name}: stage {stage + 1} of {len(self.schedule.stages)}"
        )
