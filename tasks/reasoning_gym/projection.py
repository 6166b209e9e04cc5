"""A designer's change set made a legal configuration, with a note for everything that bent.

A change set names only what changes, per dataset, either under ``datasets`` or at the top
level: ``{"datasets": {"chain_sum": {"level": 3}}}`` or ``{"chain_sum": {"weight": 0.4}}``.
It is read against a model built for the task's own datasets, so an unknown dataset or field,
or a value that is not a finite number, is a `ConfigError` with one line per bad field and the
closest name. Then: the sample budget is the experiment's (a change is ignored, with a note);
the task's datasets are all kept (a missing one is added at weight 0) and no other; negative
weights become 0 and the weights are rescaled to sum to 1 (all 0: spread evenly); each level is
clipped to 0..its dataset's highest and rounded to a whole level. A legal configuration comes
back unchanged, without notes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from envdesign_common import ConfigError, ProjectionNote, bounded_repr, config_error
from envdesign_common.shares import rescaled_shares
from tasks.reasoning_gym.config import DatasetSetting, Number, RgConfig

__all__ = ["DatasetDraft", "change_model", "project"]


class DatasetDraft(BaseModel):
    """One dataset's changes: any finite numbers, checked only for type."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    weight: Number | None = None
    level: Number | None = None


_STRICT = ConfigDict(frozen=True, extra="forbid")


def change_model(datasets: Sequence[str]) -> type[BaseModel]:
    """The model a change set for `datasets` is read with: ``datasets`` and ``samples``, and
    each dataset's name at the top level too (so a misspelt name there gets a did-you-mean)."""
    per_dataset: dict[str, Any] = {name: (DatasetDraft | None, None) for name in datasets}
    table = create_model("DatasetChanges", __config__=_STRICT, **per_dataset)
    return create_model(
        "Changes",
        __config__=_STRICT,
        datasets=(table | None, None),
        samples=(Any, None),
        **per_dataset,
    )


def project(
    current: RgConfig,
    draft: Mapping[str, Any] | None,
    *,
    levels: Mapping[str, int],
    changes: type[BaseModel],
) -> tuple[RgConfig, tuple[ProjectionNote, ...]]:
    """`draft` merged onto `current` and projected; `levels` maps each of the task's datasets
    to its highest level, `changes` is `change_model` of them."""
    wanted, notes = _read(current, draft, changes)
    values: dict[str, dict[str, float]] = {}
    for name in sorted(levels):
        if name in current.datasets:
            values[name] = dict(current.datasets[name].model_dump())
        else:
            values[name] = {"weight": 0.0, "level": 0}
            notes.append(
                ProjectionNote(
                    field=f"datasets.{name}",
                    before=None,
                    after="added",
                    reason="every chosen dataset is kept; added at weight 0",
                )
            )
    for name in sorted(set(current.datasets) - set(levels)):
        notes.append(
            ProjectionNote(
                field=f"datasets.{name}",
                before="present",
                after=None,
                reason="not one of the task's datasets; removed",
            )
        )
    for name, fields in wanted.items():
        values[name].update(fields)
    for name in sorted(values):
        _set(values, name, "weight", max(values[name]["weight"], 0.0), "clipped to [0, inf)", notes)
    _renormalise(values, notes)
    for name in sorted(values):
        high = levels[name]
        clipped = min(max(values[name]["level"], 0), high)
        _set(values, name, "level", clipped, f"clipped to [0, {high}], {name}'s levels", notes)
        whole = math.floor(values[name]["level"] + 0.5)
        _set(values, name, "level", whole, "rounded to a whole level", notes)
    datasets = {
        name: DatasetSetting(weight=v["weight"], level=int(v["level"]))
        for name, v in sorted(values.items())
    }
    return RgConfig(samples=current.samples, datasets=datasets), tuple(notes)


def _read(
    current: RgConfig, draft: Mapping[str, Any] | None, changes: type[BaseModel]
) -> tuple[dict[str, dict[str, float]], list[ProjectionNote]]:
    """The fields each dataset's changes set, and the notes of ignored changes."""
    if draft is None:
        draft = {}
    if not isinstance(draft, Mapping):
        raise ConfigError(
            f"changes must be a mapping of datasets to fields, got {type(draft).__name__}"
        )
    try:
        read = changes.model_validate(dict(draft))
    except ValidationError as err:
        raise config_error(err, "changes", changes) from None
    notes: list[ProjectionNote] = []
    asked: Any = getattr(read, "samples", None)
    if "samples" in read.model_fields_set and asked != current.samples:
        asked = asked if isinstance(asked, int | float) else bounded_repr(asked)
        notes.append(
            ProjectionNote(
                field="samples",
                before=asked,
                after=current.samples,
                reason="samples is fixed by the experiment; the change was ignored",
            )
        )
    wanted: dict[str, dict[str, float]] = {}
    sources: list[BaseModel] = [read]
    table = getattr(read, "datasets", None)
    if isinstance(table, BaseModel):
        sources.append(table)
    for source in sources:
        for name in sorted(source.model_fields_set - {"datasets", "samples"}):
            fields = getattr(source, name)
            if fields is not None:
                changed = fields.model_dump(include=fields.model_fields_set, exclude_none=True)
                if float(changed.get("level", 0.5)).is_integer():  # 3.0 reads as level 3
                    changed["level"] = int(changed["level"])
                wanted.setdefault(name, {}).update(changed)
    return wanted, notes


def _set(
    values: dict[str, dict[str, float]],
    name: str,
    field: str,
    value: float,
    reason: str,
    notes: list[ProjectionNote],
) -> None:
    before = values[name][field]
    if value != before:
        notes.append(
            ProjectionNote(
                field=f"datasets.{name}.{field}", before=before, after=value, reason=reason
            )
        )
        values[name][field] = value


def _renormalise(values: dict[str, dict[str, float]], notes: list[ProjectionNote]) -> None:
    rescaled = rescaled_shares({n: values[n]["weight"] for n in sorted(values)}, "weights")
    if rescaled is not None:
        shares, reason = rescaled
        for name, share in shares.items():
            _set(values, name, "weight", share, reason, notes)
