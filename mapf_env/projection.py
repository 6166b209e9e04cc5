"""How a designer's change set becomes a legal configuration, and what had to bend.

A designer (human, rule or model) proposes a *change set*: a partial mapping such as
``{"7x7": {"ratio": 0.2, "hole_ratio": 0.3}}``. `merge` lays it over the current `EnvConfig`
into a lenient `ConfigDraft`; `project` then enforces the constraints (all eight sizes, ratios
non-negative and summing to 1, hole_ratio in [0, 0.5], wait_ratio in [0, 1]) and returns the
legal `EnvConfig` with one `ProjectionNote` for every value it had to change. Designers are
compared on what they *meant*; the notes record how far the harness had to bend their output.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from envdesign_common.field_errors import ConfigError, KeyLabels, config_error
from envdesign_common.projection_notes import ProjectionNote
from envdesign_common.shares import rescaled_shares
from mapf_env.config import (
    MAX_HOLE_RATIO,
    EnvConfig,
    Number,
    SharedFields,
    normalise_size_keys,
    parse_size,
)
from mapf_env.instance import SIZES, Objective, size_name

_LOCKED_KEYS = ("n_agents", "samples", "objective")


class SizeDraft(BaseModel):
    """A size entry before projection: any finite numbers, checked only for type."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    ratio: Number = 0.0
    hole_ratio: Number = 0.0
    wait_ratio: Number = 0.0


class _ChangeSet(BaseModel):
    """A designer's per-size changes, checked for type before they touch the config."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sizes: Annotated[dict[int, SizeDraft], KeyLabels(size_name)]


class ConfigDraft(SharedFields):
    """A configuration that may break the constraints; `project` makes it an `EnvConfig`."""

    sizes: Annotated[dict[int, SizeDraft], KeyLabels(size_name)] = Field(default_factory=dict)
    notes: tuple[ProjectionNote, ...] = Field(
        default=(), description="What `merge` ignored on the way in (locked fields)."
    )

    @field_validator("sizes", mode="before")
    @classmethod
    def _size_keys(cls, value: Any) -> Any:
        return normalise_size_keys(value)


ConfigDraft.model_rebuild()


class Projection(BaseModel):
    """The legal configuration and every change made to reach it."""

    model_config = ConfigDict(frozen=True)

    config: EnvConfig
    notes: tuple[ProjectionNote, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.notes)


def merge(config: EnvConfig, changes: Mapping[str, Any] | None) -> ConfigDraft:
    """Lay a designer's partial change set over `config`.

    Accepts per-size changes at the top level (``{"7x7": {...}}``) or under ``sizes``. The
    experiment's fixed fields (agents, budget, objective) are not the designer's to change: such
    keys are ignored and recorded in the draft's notes. Unknown keys and values that are not
    finite numbers are errors, one line per bad field.
    """
    if changes is None:
        changes = {}
    if not isinstance(changes, Mapping):
        raise ConfigError(
            f"changes must be a mapping of sizes to fields, got {type(changes).__name__}"
        )
    raw: dict[int, Any] = {}
    notes: list[ProjectionNote] = []
    for key, value in changes.items():
        if key in _LOCKED_KEYS:
            notes.append(_locked_note(config, key, value))
        elif key == "sizes":
            if not isinstance(value, Mapping):
                raise ConfigError("'sizes' must map sizes to fields")
            for size_key, fields in value.items():
                _collect(raw, size_key, fields)
        else:
            _collect(raw, key, value)
    sizes = {s: dict(v.model_dump()) for s, v in config.sizes.items()}
    for size, fields in _checked(raw).items():
        sizes[size].update(fields)
    shared = config.model_dump(include=set(_LOCKED_KEYS))
    try:
        return ConfigDraft.model_validate({**shared, "sizes": sizes, "notes": tuple(notes)})
    except ValidationError as err:
        raise config_error(err, "changes", ConfigDraft) from None


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
        raise config_error(err, "config", ConfigDraft) from None


def _collect(raw: dict[int, Any], key: Any, fields: Any) -> None:
    """Gather one size's changes; a size written both bare and under `sizes` gets both."""
    size = parse_size(key)
    before = raw.get(size)
    if isinstance(before, Mapping) and isinstance(fields, Mapping):
        fields = {**before, **fields}
    raw[size] = fields


def _checked(raw: dict[int, Any]) -> dict[int, dict[str, float]]:
    """The fields each size's changes set, as numbers; every bad field is one error line."""
    try:
        checked = _ChangeSet.model_validate({"sizes": raw})
    except ValidationError as err:
        raise config_error(err, "changes", _ChangeSet) from None
    return {s: d.model_dump(include=set(d.model_fields_set)) for s, d in checked.sizes.items()}


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
    rescaled = rescaled_shares({s: sizes[s]["ratio"] for s in SIZES}, "ratios")
    if rescaled is not None:
        shares, reason = rescaled
        for s, share in shares.items():
            _change(sizes, s, "ratio", share, reason, notes)
