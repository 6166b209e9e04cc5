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
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from designers.base import RuleDesigner, as_changes
from designers.context import DesignContext
from mapf_env import ConfigError, EnvConfig, merge, project

DEFAULT_SCHEDULE = "easy_to_hard"


class Schedule(BaseModel):
    """A curriculum: stage 0 complete, each later stage a change set over the one before."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    stages: tuple[dict[str, Any], ...] = Field(min_length=1)


def load_schedule(source: str | Path = DEFAULT_SCHEDULE) -> Schedule:
    """A schedule by built-in name or from a YAML file path; errors name the file and field."""
    path = Path(source)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise ConfigError(f"no curriculum file at {path}")
        text, origin = path.read_text(encoding="utf-8"), str(path)
    else:
        entry = resources.files("designers.curricula") / f"{source}.yaml"
        if not entry.is_file():
            raise ConfigError(f"no built-in curriculum {source!r}; pass a YAML file path instead")
        text, origin = entry.read_text(encoding="utf-8"), f"built-in {source}"
    try:
        return Schedule.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as err:
        raise ConfigError(f"curriculum {origin}: {err}") from None


class HandCurriculumDesigner(RuleDesigner):
    name = "hand"
    description = "Hand-written easy-to-hard curriculum over rounds (a YAML schedule)."

    def __init__(self, schedule: str | Path = DEFAULT_SCHEDULE) -> None:
        self.schedule = load_schedule(schedule)

    def stage_config(self, base: EnvConfig, stage: int) -> EnvConfig:
        """Stages 0..stage merged in order onto `base`, projected."""
        config = base
        for changes in self.schedule.stages[: stage + 1]:
            config = project(merge(config, changes)).config
        return config

    def initial_config(self, base: EnvConfig, seed: int) -> EnvConfig | None:
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
