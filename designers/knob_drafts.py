"""Change sets written from a task's declared knobs alone, for designers that know no task.

A knob's path is dotted as a designer writes a change (``sizes.*.hole_ratio``); ``*`` stands
for every key of the table at that point of the current configuration, so a draft names the
same keys the configuration has. Projection (the task's `project`) then keeps the draft within
the task's own rules -- shares renormalised, values clipped -- exactly as for any designer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from tasks import Knob, Task

__all__ = ["cell_value", "example_draft", "knob_cells", "knob_paths", "midpoint_draft", "put_cell"]


def knob_cells(knob: Knob, config: BaseModel) -> list[tuple[Any, ...]]:
    """The concrete paths (tuples of keys) `knob` names in `config`."""
    return list(_expand(tuple(knob.path.split(".")), config.model_dump(), ()))


def midpoint_draft(
    task: Task[Any, Any], config: BaseModel, values: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """A change set putting every knob of `task` at `values[knob.path]`, else at the middle
    of its bounds; a share's cells split their group evenly, an integer knob is rounded."""
    draft: dict[str, Any] = {}
    for knob in task.knobs():
        cells = knob_cells(knob, config)
        if knob.path in (values or {}):
            value: float = (values or {})[knob.path]
        elif knob.share:
            value = 1.0 / len(cells) if cells else 0.0
        else:
            value = (knob.low + knob.high) / 2
        for cell in cells:
            put_cell(draft, cell, round(value) if knob.integer else value)
    return draft


def example_draft(task: Task[Any, Any], config: BaseModel, knobs: int = 2) -> dict[str, Any]:
    """A change set showing the shape of one: the first cell of each of the first `knobs`
    knobs, at its current value (so following the example changes nothing by itself)."""
    draft: dict[str, Any] = {}
    for knob in task.knobs()[:knobs]:
        cells = knob_cells(knob, config)
        if cells:
            put_cell(draft, cells[0], cell_value(config, cells[0]))
    return draft


def knob_paths(task: Task[Any, Any], config: BaseModel) -> list[str]:
    """Every concrete dotted path the task's knobs name in `config`, in knob order."""
    return [".".join(map(str, cell)) for knob in task.knobs() for cell in knob_cells(knob, config)]


def cell_value(config: BaseModel, cell: tuple[Any, ...]) -> Any:
    """The value at `cell` of `config` (a path `knob_cells` gave)."""
    node: Any = config
    for key in cell:
        node = node[key] if isinstance(node, Mapping) else getattr(node, key)
    return node


def _expand(parts: tuple[str, ...], node: Any, done: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    if not parts:
        yield done
        return
    head, rest = parts[0], parts[1:]
    if not isinstance(node, Mapping):
        return
    keys = list(node) if head == "*" else [head] if head in node else []
    for key in keys:
        yield from _expand(rest, node[key], (*done, key))


def put_cell(draft: dict[Any, Any], cell: tuple[Any, ...], value: float) -> None:
    """Set `cell` of the change set `draft` to `value`, making the tables on its way."""
    *parents, leaf = cell
    node = draft
    for key in parents:
        node = node.setdefault(key, {})
    node[leaf] = value
