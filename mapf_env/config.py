"""The generator configuration a designer writes: `EnvConfig`, its YAML form, random round 0.

An `EnvConfig` is always legal -- every size 3..10 present, ratios summing to 1, hole_ratio in
[0, 0.5], wait_ratio in [0, 1] -- so the generator never sees anything else. Designers' partial
change sets reach it through `mapf_env.projection` (merge, then project, with every forced
change recorded). Input that cannot be read -- an unknown key, a string where a number belongs,
NaN, true/false -- is a `ConfigError` with one line per bad field (`envdesign_common.field_errors`),
raised here and never deep inside the generator.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from envdesign_common.field_errors import (
    ConfigError,
    KeyLabels,
    bounded_repr,
    config_error,
)
from envdesign_common.shares import SHARE_TOLERANCE
from envdesign_common.yaml_mappings import load_mapping, read_mapping
from envdesign_common.yaml_text import dump_yaml
from mapf_env.instance import SIZES, Objective, size_name

MAX_HOLE_RATIO = 0.5
MAX_AGENTS = 8
MAX_SAMPLES = 10_000_000
RATIO_TOLERANCE = SHARE_TOLERANCE
_SIZE_NAME = re.compile(r"^\s*(?:size[_ ]?)?(\d+)(?:\s*x\s*(\d+))?\s*$", re.IGNORECASE)


def _not_a_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"must be a number, not {str(value).lower()}")
    return value


Number = Annotated[float, BeforeValidator(_not_a_bool)]
"""A float that refuses true/false, which pydantic would otherwise read as 1.0 / 0.0."""


class SizeConfig(BaseModel):
    """What the generator makes for one map size."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    ratio: Number = Field(ge=0.0, le=1.0, description="Share of the round's samples at this size.")
    hole_ratio: Number = Field(
        ge=0.0, le=MAX_HOLE_RATIO, description="Share of the grid's cells that are holes."
    )
    wait_ratio: Number = Field(
        ge=0.0, le=1.0, description="Share of instances that need conflict resolution."
    )


class SharedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    n_agents: int = Field(default=2, ge=1, le=MAX_AGENTS, description="Agents per instance.")
    samples: int = Field(default=4000, ge=1, le=MAX_SAMPLES, description="Instances per round.")
    objective: Objective = Field(
        default=Objective.SOC, description="What 'optimal' means: sum of costs or makespan."
    )


class EnvConfig(SharedFields):
    """A legal generator configuration: every size present, ratios summing to 1, values in range."""

    sizes: Annotated[dict[int, SizeConfig], KeyLabels(size_name)] = Field(
        description="One entry per map size 3..10."
    )

    @field_validator("sizes", mode="before")
    @classmethod
    def _size_keys(cls, value: Any) -> Any:
        return normalise_size_keys(value)

    @field_validator("sizes")
    @classmethod
    def _all_sizes_summing_to_one(cls, sizes: dict[int, SizeConfig]) -> dict[int, SizeConfig]:
        missing = [s for s in SIZES if s not in sizes]
        if missing:
            names = ", ".join(size_name(s) for s in missing)
            raise ValueError(f"sizes {names} are missing; all of {SIZES[0]}..{SIZES[-1]} belong")
        total = sum(s.ratio for s in sizes.values())
        if abs(total - 1.0) > RATIO_TOLERANCE:
            raise ValueError(f"ratios sum to {total:.6g}; they must sum to 1 (project() rescales)")
        return dict(sorted(sizes.items()))

    @classmethod
    def uniform(cls, hole_ratio: float = 0.25, wait_ratio: float = 0.5, **shared: Any) -> EnvConfig:
        """Equal budget over all sizes with the same hole and wait share everywhere."""
        size = SizeConfig(ratio=1 / len(SIZES), hole_ratio=hole_ratio, wait_ratio=wait_ratio)
        return cls(sizes=dict.fromkeys(SIZES, size), **shared)

    def to_yaml(self) -> str:
        return dump_yaml(_to_plain(self))

    @classmethod
    def from_yaml(cls, text: str, origin: str = "EnvConfig") -> EnvConfig:
        """Read a YAML config; `origin` (a file name) heads every error message."""
        return cls.from_mapping(load_mapping(text, origin), origin)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], origin: str = "EnvConfig") -> EnvConfig:
        try:
            return cls.model_validate(dict(data))
        except ValidationError as err:
            raise config_error(err, origin, cls) from None

    @classmethod
    def load(cls, path: str | FsPath) -> EnvConfig:
        return cls.from_mapping(read_mapping(path), str(path))

    def save(self, path: str | FsPath) -> None:
        FsPath(path).write_text(self.to_yaml(), encoding="utf-8")


RANDOM_HOLE_RANGE = (0.0, 0.5)
RANDOM_WAIT_RANGE = (0.0, 0.75)


def random_config(seed: int, *, n_agents: int = 2, samples: int = 4000) -> EnvConfig:
    """The paper's round-0 configuration: drawn at random from a seed.

    Ratios are a flat Dirichlet draw (every split of the budget equally likely); hole and wait
    shares are uniform over `RANDOM_HOLE_RANGE` and `RANDOM_WAIT_RANGE`. Values are rounded to
    three decimals so the YAML a designer reads stays legible.
    """
    rng = random.Random(f"envdesign-bench/random-config/{seed}")
    weights = [rng.expovariate(1.0) for _ in SIZES]
    ratios = [round(w / sum(weights), 3) for w in weights]
    ratios[-1] = round(1.0 - sum(ratios[:-1]), 3)
    if ratios[-1] < 0:  # rounding pushed the remainder below zero; give it to the largest
        top = max(range(len(ratios)), key=ratios.__getitem__)
        ratios[top] += ratios[-1]
        ratios[-1] = 0.0
    sizes = {
        s: SizeConfig(
            ratio=r,
            hole_ratio=round(rng.uniform(*RANDOM_HOLE_RANGE), 3),
            wait_ratio=round(rng.uniform(*RANDOM_WAIT_RANGE), 3),
        )
        for s, r in zip(SIZES, ratios, strict=True)
    }
    return EnvConfig(sizes=sizes, n_agents=n_agents, samples=samples)


def parse_size(key: Any) -> int:
    """Read a size key: 7, "7", "7x7" or "size_7"; anything else is a ConfigError."""
    if isinstance(key, bool):
        raise ConfigError(f"size key {key!r} is not a map size; write e.g. 7 or '7x7'")
    if isinstance(key, int):
        size = key
    else:
        match = _SIZE_NAME.match(str(key))
        if not match or (match.group(2) and match.group(2) != match.group(1)):
            raise ConfigError(
                f"size key {bounded_repr(key)} is not a map size; write e.g. 7 or '7x7'"
            )
        size = int(match.group(1))
    if size not in SIZES:
        raise ConfigError(f"size {size} is not offered; sizes are {SIZES[0]}..{SIZES[-1]}")
    return size


def normalise_size_keys(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return value
    out: dict[int, Any] = {}
    for key, entry in value.items():
        size = parse_size(key)
        if size in out:
            raise ConfigError(f"size {size_name(size)} appears twice")
        out[size] = entry
    return out


def _to_plain(config: EnvConfig) -> dict[str, Any]:
    data = config.model_dump(mode="json", exclude={"sizes"})
    data["sizes"] = {size_name(s): c.model_dump() for s, c in config.sizes.items()}
    return data
