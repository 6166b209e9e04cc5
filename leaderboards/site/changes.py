"""A proposal's "changes asked" as a table: a row per map size (3x3 .. 10x10), a column per field.

A designer's raw change set is a nested mapping in whatever key form it wrote (`"7"`, `"7x7"`,
under `sizes` or not, as `mapf_env.merge` accepts); shown as JSON its sizes sort as strings
(`"10"` before `"3"`) and its numbers carry 17 digits. Here sizes are read with the testbed's own
`parse_size`, merged the way `merge` merges them, and ordered by size; numbers are rounded to
3 decimals. Anything that is not a size's fields (a locked key, a key that is not a size, a value
that is not a mapping) is kept, as text, in `other`: the table shows what was asked, not what
projection made of it (the projection notes say that: `projection_rows`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from envdesign_common.field_errors import ConfigError
from envdesign_common.projection_notes import ProjectionNote
from mapf_env.config import parse_size
from mapf_env.instance import size_name

FIELD_ORDER = ("ratio", "hole_ratio", "wait_ratio")
"""The configuration's fields first, in the order the configuration lists them."""
DIGITS = 3
NOTE_DIGITS = 6
"""Significant digits of the projection notes' numbers."""
MISSING = "-"


@dataclass(frozen=True)
class ChangesTable:
    """Rows of (size name, one text per column); `other`: (key, text) of everything else asked."""

    columns: list[str]
    rows: list[tuple[str, list[str]]]
    other: list[tuple[str, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.rows or self.other)


def changes_table(changes: Mapping[str, Any]) -> ChangesTable:
    """`changes` (a proposal's raw change set) as a table ordered by map size."""
    sizes: dict[int, dict[str, Any]] = {}
    other: list[tuple[str, str]] = []

    def collect(key: str, value: Any, prefix: str = "") -> None:
        try:
            size = parse_size(key)
        except ConfigError:
            size = None
        if size is None or not isinstance(value, Mapping):
            other.append((prefix + str(key), value_text(value)))
        else:
            sizes.setdefault(size, {}).update({str(k): v for k, v in value.items()})

    for key, value in changes.items():
        if key == "sizes" and isinstance(value, Mapping):
            for size_key, fields in value.items():
                collect(str(size_key), fields, prefix="sizes.")
        else:
            collect(str(key), value)
    asked = {name for fields in sizes.values() for name in fields}
    columns = [f for f in FIELD_ORDER if f in asked] + sorted(asked - set(FIELD_ORDER))
    rows = [
        (size_name(s), [value_text(sizes[s][c]) if c in sizes[s] else MISSING for c in columns])
        for s in sorted(sizes)
    ]
    return ChangesTable(columns, rows, other)


def projection_rows(notes: Sequence[ProjectionNote]) -> list[tuple[str, str, str, str]]:
    """(field, before, after, reason) of each projection note, numbers to 6 significant
    digits: enough to show what a clip or a renormalisation moved, without float noise."""
    return [(n.field, _noted(n.before), _noted(n.after), n.reason) for n in notes]


def _noted(value: float | int | str | None) -> str:
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:.{NOTE_DIGITS}g}"
    return "-" if value is None else str(value)


def value_text(value: Any) -> str:
    """A number to 3 decimals (integers as they are), text as it is, anything else as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{DIGITS}f}" if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)
