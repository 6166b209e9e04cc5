"""A proposal's "changes asked" as a table: a row per arm of the task, a column per field.

A designer's raw change set is a nested mapping in whatever key form it wrote (MAPF-FrozenLake:
`"7"`, `"7x7"`, under `sizes` or not; reasoning-gym: a dataset's name, under `datasets` or
not); shown as JSON, keys sort as strings (`"10"` before `"3"`) and numbers carry 17 digits.
Here the rows are the values of the task's first cut that hold a budget share (its *arms*,
`designers.arms`): a key is read as the task's share knob reads it (`Knob.read_key`), merged
as projection merges it (the table's entry laid over the same arm written bare, in the order
written), and rows are ordered by the key read; numbers are rounded to 3 decimals. Anything
that is not an arm's fields (a locked key, a key that names no arm, a value that is not a
mapping) is kept, as text, in `other`: the table shows what was asked, not what projection made
of it (the projection notes say that: `projection_rows`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from designers.arms import budget_knob
from envdesign_common.projection_notes import ProjectionNote
from tasks import Knob, Task

DIGITS = 3
NOTE_DIGITS = 6
"""Significant digits of the projection notes' numbers."""
MISSING = "-"


@dataclass(frozen=True)
class ChangesTable:
    """Rows of (arm name, one text per column); `other`: (key, text) of everything else asked.
    `title` heads the rows' column: the task's first cut (`map size`)."""

    columns: list[str]
    rows: list[tuple[str, list[str]]]
    other: list[tuple[str, str]] = field(default_factory=list)
    title: str = ""

    def __bool__(self) -> bool:
        return bool(self.rows or self.other)


def changes_table(task: Task[Any, Any], changes: Mapping[str, Any]) -> ChangesTable:
    """`changes` (a proposal's raw change set) as a table ordered by arm."""
    budget = budget_knob(task)
    table = budget.path.split(".", 1)[0] if budget is not None else None
    arms: dict[Any, dict[str, Any]] = {}
    other: list[tuple[str, str]] = []

    def collect(key: str, value: Any, prefix: str = "") -> None:
        arm = _arm_key(budget, key)
        if arm is None or not isinstance(value, Mapping):
            other.append((prefix + str(key), value_text(value)))
        else:
            arms.setdefault(arm, {}).update({str(k): v for k, v in value.items()})

    for key, value in changes.items():
        if key == table and isinstance(value, Mapping):
            for arm_key, fields in value.items():
                collect(str(arm_key), fields, prefix=f"{table}.")
        else:
            collect(str(key), value)
    asked = {name for fields in arms.values() for name in fields}
    order = list(dict.fromkeys(k.path.rsplit(".", 1)[-1] for k in task.knobs()))
    columns = [f for f in order if f in asked] + sorted(asked - set(order))
    rows = [
        (
            _arm_name(budget, a),
            [value_text(arms[a][c]) if c in arms[a] else MISSING for c in columns],
        )
        for a in _ordered(arms)
    ]
    title = task.cut_titles.get(task.cuts[0], task.cuts[0]) if task.cuts else ""
    return ChangesTable(columns, rows, other, title)


def _arm_key(budget: Knob | None, key: str) -> Any:
    """The configuration's key of the arm `key` names, or None where it names none."""
    if budget is None:
        return None
    try:
        return budget.read_key(key)
    except ValueError:
        return None


def _arm_name(budget: Knob | None, key: Any) -> str:
    return str(key) if budget is None else budget.cut_value(key)


def _ordered(arms: Mapping[Any, Any]) -> list[Any]:
    """The arms' keys in their own order (sizes as numbers), as text where they do not compare."""
    try:
        return sorted(arms)
    except TypeError:
        return sorted(arms, key=str)


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
