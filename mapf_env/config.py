"""The generator configuration a designer writes, and the projection that keeps it legal.

A designer (human, rule or model) proposes a *change set*: a partial mapping such as
``{"7x7": {"ratio": 0.2, "hole_ratio": 0.3}}``. `merge` lays it over the current `EnvConfig`
into a lenient `ConfigDraft`; `project` then enforces the constraints (all eight sizes, ratios
non-negative and summing to 1, hole_ratio in [0, 0.5], wait_ratio in [0, 1]) and returns the
legal `EnvConfig` with one `ProjectionNote` for every value it had to change. Designers are
compared on what they *meant*; the notes record how far the harness had to bend their output.

Input that cannot be projected -- an unknown key, a string where a number belongs, NaN -- is a
`ConfigError` that names the field, raised here and never deep inside the generator.
"""

from __future__ import annotations

import difflib
import math
import random
import re
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mapf_env.instance import SIZES, Objective

MAX_HOLE_RATIO = 0.5
MAX_AGENTS = 8
MAX_SAMPLES = 10_000_000
RATIO_TOLERANCE = 1e-6
_SIZE_KEYS = ("ratio", "hole_ratio", "wait_ratio")
_LOCKED_KEYS = ("n_agents", "samples", "objective")
_SIZE_NAME = re.compile(r"^\s*(?:size[_ ]?)?(\d+)(?:\s*x\s*(\d+))?\s*$", re.IGNORECASE)


class ConfigError(ValueError):
    """A configuration or change set that cannot be read; the message names the field."""


class SizeConfig(BaseModel):
    """What the generator makes for one map size."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    ratio: float = Field(ge=0.0, le=1.0, description="Share of the round's samples at this size.")
    hole_ratio: float = Field(
        ge=0.0, le=MAX_HOLE_RATIO, description="Share of the grid's cells that are holes."
    )
    wait_ratio: float = Field(
        ge=0.0, le=1.0, description="Share of instances that need conflict resolution."
    )


class _SharedFields(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    n_agents: int = Field(default=2, ge=1, le=MAX_AGENTS, description="Agents per instance.")
    samples: int = Field(default=4000, ge=1, le=MAX_SAMPLES, description="Instances per round.")
    objective: Objective = Field(
        default=Objective.SOC, description="What 'optimal' means: sum of costs or makespan."
    )


class EnvConfig(_SharedFields):
    """A legal generator configuration: every size present, ratios summing to 1, values in range."""

    sizes: dict[int, SizeConfig] = Field(description="One entry per map size 3..10.")

    @field_validator("sizes", mode="before")
    @classmethod
    def _size_keys(cls, value: Any) -> Any:
        return _normalise_size_keys(value)

    @field_validator("sizes")
    @classmethod
    def _all_sizes_summing_to_one(cls, sizes: dict[int, SizeConfig]) -> dict[int, SizeConfig]:
        missing = [s for s in SIZES if s not in sizes]
        if missing:
            raise ValueError(f"sizes {missing} are missing; all of {SIZES[0]}..{SIZES[-1]} belong")
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
        return yaml.safe_dump(_to_plain(self), sort_keys=False)

    @classmethod
    def from_yaml(cls, text: str) -> EnvConfig:
        return cls.from_mapping(_load_mapping(text))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> EnvConfig:
        try:
            return cls.model_validate(dict(data))
        except ValidationError as err:
            raise ConfigError(_explain(err, "EnvConfig")) from None

    @classmethod
    def load(cls, path: str | FsPath) -> EnvConfig:
        return cls.from_yaml(FsPath(path).read_text(encoding="utf-8"))

    def save(self, path: str | FsPath) -> None:
        FsPath(path).write_text(self.to_yaml(), encoding="utf-8")


class SizeDraft(BaseModel):
    """A size entry before projection: any finite numbers, checked only for type."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    ratio: float = 0.0
    hole_ratio: float = 0.0
    wait_ratio: float = 0.0


class ConfigDraft(_SharedFields):
    """A configuration that may break the constraints; `project` makes it an `EnvConfig`."""

    sizes: dict[int, SizeDraft] = Field(default_factory=dict)
    notes: tuple[ProjectionNote, ...] = Field(
        default=(), description="What `merge` ignored on the way in (locked fields)."
    )

    @field_validator("sizes", mode="before")
    @classmethod
    def _size_keys(cls, value: Any) -> Any:
        return _normalise_size_keys(value)


class ProjectionNote(BaseModel):
    """One value the projection (or merge) changed, and why."""

    model_config = ConfigDict(frozen=True)

    field: str = Field(description="Dotted path, e.g. 'sizes.7x7.hole_ratio'.")
    before: float | int | str | None
    after: float | int | str | None
    reason: str

    def __str__(self) -> str:
        return f"{self.field}: {self.before!r} -> {self.after!r} ({self.reason})"


ConfigDraft.model_rebuild()


class Projection(BaseModel):
    """The legal configuration and every change made to reach it."""

    model_config = ConfigDict(frozen=True)

    config: EnvConfig
    notes: tuple[ProjectionNote, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.notes)


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
        raise ConfigError(f"size key {key!r} is not a map size")
    if isinstance(key, int):
        size = key
    else:
        match = _SIZE_NAME.match(str(key))
        if not match or (match.group(2) and match.group(2) != match.group(1)):
            raise ConfigError(f"size key {key!r} is not a map size; write e.g. 7 or '7x7'")
        size = int(match.group(1))
    if size not in SIZES:
        raise ConfigError(f"size {size} is not offered; sizes are {SIZES[0]}..{SIZES[-1]}")
    return size


def size_name(size: int) -> str:
    return f"{size}x{size}"


def merge(config: EnvConfig, changes: Mapping[str, Any] | None) -> ConfigDraft:
    """Lay a designer's partial change set over `config`.

    Accepts per-size changes at the top level (``{"7x7": {...}}``) or under ``sizes``. The
    experiment's fixed fields (agents, budget, objective) are not the designer's to change: such
    keys are ignored and recorded in the draft's notes. Unknown keys are errors.
    """
    if changes is None:
        changes = {}
    if not isinstance(changes, Mapping):
        raise ConfigError(
            f"changes must be a mapping of sizes to fields, got {type(changes).__name__}"
        )
    sizes = {s: dict(v.model_dump()) for s, v in config.sizes.items()}
    notes: list[ProjectionNote] = []
    for key, value in changes.items():
        if key in _LOCKED_KEYS:
            notes.append(_locked_note(config, key, value))
        elif key == "sizes":
            if not isinstance(value, Mapping):
                raise ConfigError("'sizes' must map sizes to fields")
            for size_key, fields in value.items():
                _apply_size_change(sizes, size_key, fields)
        else:
            _apply_size_change(sizes, key, value)
    shared = config.model_dump(include=set(_LOCKED_KEYS))
    try:
        return ConfigDraft.model_validate({**shared, "sizes": sizes, "notes": tuple(notes)})
    except ValidationError as err:
        raise ConfigError(_explain(err, "changes")) from None


def project(config: ConfigDraft | EnvConfig | Mapping[str, Any]) -> Projection:
    """Enforce the constraints, recording every value changed and why.

    Order: missing sizes are added with ratio 0; negative ratios become 0; ratios are rescaled to
    sum to 1 (all-zero ratios become uniform); hole_ratio is clipped to [0, 0.5] and wait_ratio
    to [0, 1]. A legal config comes back unchanged with no notes.
    """
    draft = _as_draft(config)
    notes = list(draft.notes)
    sizes = {s: dict(d.model_dump()) for s, d in draft.sizes.items()}
    for s in SIZES:
        if s not in sizes:
            sizes[s] = {"ratio": 0.0, "hole_ratio": 0.0, "wait_ratio": 0.0}
            notes.append(
                ProjectionNote(
                    field=f"sizes.{size_name(s)}",
                    before=None,
                    after="added",
                    reason="all eight sizes are kept; added with ratio 0",
                )
            )
    for s in SIZES:
        _clip(sizes, s, "ratio", (0.0, math.inf), notes)
    _renormalise(sizes, notes)
    for s in SIZES:
        _clip(sizes, s, "hole_ratio", (0.0, MAX_HOLE_RATIO), notes)
        _clip(sizes, s, "wait_ratio", (0.0, 1.0), notes)
    shared = draft.model_dump(include=set(_LOCKED_KEYS))
    projected = EnvConfig.model_validate({**shared, "sizes": dict(sorted(sizes.items()))})
    return Projection(config=projected, notes=tuple(notes))


def _as_draft(config: ConfigDraft | EnvConfig | Mapping[str, Any]) -> ConfigDraft:
    if isinstance(config, ConfigDraft):
        return config
    data = config.model_dump() if isinstance(config, EnvConfig) else dict(config)
    try:
        return ConfigDraft.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_explain(err, "config")) from None


def _apply_size_change(sizes: dict[int, dict[str, Any]], key: Any, fields: Any) -> None:
    size = parse_size(key)
    if not isinstance(fields, Mapping):
        raise ConfigError(
            f"{size_name(size)} must map fields {list(_SIZE_KEYS)} to numbers, got {fields!r}"
        )
    for name, value in fields.items():
        if name not in _SIZE_KEYS:
            hint = difflib.get_close_matches(str(name), _SIZE_KEYS, n=1)
            also = f"; did you mean {hint[0]!r}?" if hint else ""
            raise ConfigError(
                f"{size_name(size)}.{name} is not a field; fields are {list(_SIZE_KEYS)}{also}"
            )
        sizes[size][name] = _number(value, f"{size_name(size)}.{name}")


def _number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ConfigError(f"{field} must be a number, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"{field} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ConfigError(f"{field} must be a finite number, got {value!r}")
    return number


def _locked_note(config: EnvConfig, key: str, value: Any) -> ProjectionNote:
    kept = getattr(config, key)
    return ProjectionNote(
        field=key,
        before=str(value) if not isinstance(value, int | float) else value,
        after=kept.value if isinstance(kept, Objective) else kept,
        reason=f"{key} is fixed by the experiment; the change was ignored",
    )


def _change(
    sizes: dict[int, dict[str, float]],
    size: int,
    name: str,
    value: float,
    reason: str,
    notes: list[ProjectionNote],
) -> None:
    """Set one size field, recording a note when the value actually changes."""
    before = sizes[size][name]
    if value != before:
        field = f"sizes.{size_name(size)}.{name}"
        notes.append(ProjectionNote(field=field, before=before, after=value, reason=reason))
        sizes[size][name] = value


def _clip(
    sizes: dict[int, dict[str, float]],
    size: int,
    name: str,
    bounds: tuple[float, float],
    notes: list[ProjectionNote],
) -> None:
    low, high = bounds
    clipped = min(max(sizes[size][name], low), high)
    _change(sizes, size, name, clipped, f"clipped to [{low:g}, {high:g}]", notes)


def _renormalise(sizes: dict[int, dict[str, float]], notes: list[ProjectionNote]) -> None:
    total = sum(sizes[s]["ratio"] for s in SIZES)
    if abs(total - 1.0) <= RATIO_TOLERANCE:
        return
    for s in SIZES:
        if total == 0.0:
            _change(sizes, s, "ratio", 1 / len(SIZES), "all ratios were 0; spread evenly", notes)
        else:
            reason = f"ratios summed to {total:.6g}; rescaled to sum 1"
            _change(sizes, s, "ratio", sizes[s]["ratio"] / total, reason, notes)


def _normalise_size_keys(value: Any) -> Any:
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


def _load_mapping(text: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ConfigError(f"not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"a config is a YAML mapping, got {type(data).__name__}")
    return data


def _explain(err: ValidationError, what: str) -> str:
    lines = [f"invalid {what}:"]
    for e in err.errors():
        loc = ".".join(size_name(p) if isinstance(p, int) else str(p) for p in e["loc"])
        lines.append(f"  {loc or what}: {e['msg']} (got {e.get('input')!r})")
    return "\n".join(lines)
