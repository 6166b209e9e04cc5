"""The configuration a designer writes for the reasoning-gym task, and generation's statistics.

`RgConfig` holds, per chosen dataset (keyed by its reasoning-gym name), a weight -- its share of
the round's samples -- and a level of its curriculum; the weights sum to 1. The sample budget
is recorded with it but is the experiment's, not the designer's (`project` ignores a change to
it, with a note). Bounds that depend on the dataset (its highest level) are the task's to keep
(`tasks.reasoning_gym.projection`), so the model itself is task-independent.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from envdesign_common.shares import SHARE_TOLERANCE
from tasks.reasoning_gym.settings import MAX_SAMPLES

__all__ = [
    "WEIGHT_TOLERANCE",
    "DatasetSetting",
    "DatasetStats",
    "Level",
    "Number",
    "RgConfig",
    "RgStats",
]

WEIGHT_TOLERANCE = SHARE_TOLERANCE


def _not_a_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"must be a number, not {str(value).lower()}")
    return value


Number = Annotated[float, BeforeValidator(_not_a_bool)]
Level = Annotated[int, BeforeValidator(_not_a_bool)]


class DatasetSetting(BaseModel):
    """One dataset's part of the round."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    weight: Number = Field(ge=0.0, le=1.0, description="Share of the round's samples.")
    level: Level = Field(ge=0, description="Curriculum level, 0..the dataset's highest.")


class RgConfig(BaseModel):
    """A legal configuration: at least one dataset, weights in [0, 1] summing to 1."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int = Field(ge=1, le=MAX_SAMPLES, description="Samples per round (fixed).")
    datasets: dict[str, DatasetSetting] = Field(
        min_length=1, description="Per reasoning-gym dataset: weight and level."
    )

    @field_validator("datasets")
    @classmethod
    def _weights_sum_to_one(cls, datasets: dict[str, DatasetSetting]) -> dict[str, DatasetSetting]:
        total = sum(d.weight for d in datasets.values())
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            raise ValueError(f"weights sum to {total:.6g}; they must sum to 1 (project rescales)")
        return dict(sorted(datasets.items()))


class DatasetStats(BaseModel):
    """What generation made of one dataset."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    requested: int = Field(ge=0, description="Its share of the budget, in samples.")
    generated: int = Field(ge=0)
    level: int = Field(ge=0)


class RgStats(BaseModel):
    """One round's generation, per dataset."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int = Field(ge=0, description="The round's budget.")
    datasets: dict[str, DatasetStats]
