"""A suite result's benchmark layout: which items, in id order, under which value of each of
the task's cuts.

Every run of one benchmark has the same layout, so a board of many runs makes each distinct
layout once: the arrays the cuts read (shared, read-only) and the checksum `compat` compares.
Runs are matched to a known layout by their (id, cut values) rows, never by a name or a
checksum they carry, so an edited verdict still gets a layout of its own. A result is read
through its task once per result object (`read_suite`), and only what boards need is kept.
"""

from __future__ import annotations

import hashlib
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from tasks import Task

Row = tuple[str, ...]
"""One item's place in its benchmark: its id, then its value of each cut."""


@dataclass(frozen=True)
class Layout:
    """One benchmark's items in id order, as arrays a board cuts by (never written to)."""

    ids: tuple[str, ...]
    cuts: dict[str, NDArray[np.str_]]
    """Each cut's value per item, in the task's order of cuts."""
    strata: NDArray[np.int64]
    """Each item's rank among the first cut's values in `natural_order` (MAPF: its map size's
    rank), so the strata of a Sum come out ascending."""
    fingerprint: str
    """sha256 of the rows, one `id|value|value...` line each."""

    @property
    def first(self) -> str:
        return next(iter(self.cuts))

    def keys(self, cut: str) -> list[str]:
        """The cut's values present, in `natural_order`."""
        return natural_order(set(self.cuts[cut].tolist()))


def natural_order(values: Iterable[str]) -> list[str]:
    """Numbers by value when every value is one (sizes, hole ratios, levels), else by text."""
    found = list(values)
    try:
        return sorted(found, key=float)
    except ValueError:
        return sorted(found)


@dataclass(frozen=True)
class SuiteRead:
    """What a board keeps of one suite result, read once through its task
    (`Task.verdict_table`): its layout (one object for every run of the benchmark), a 0/1 array
    per kind of answer and rate it gives, its greedy answers counted per failure type (None:
    valid), and why it cannot give the others. Small beside the table it was read from: a
    board holds one per run and suite."""

    layout: Layout
    flags: dict[str, dict[str, NDArray[np.bool_]]]
    failures: dict[str | None, int]
    unavailable: Mapping[str, str]
    version: int | None
    checksum: str | None


def read_suite(task: Task[Any, Any], result: BaseModel) -> SuiteRead:
    """`result` as a board keeps it, made once per result object (its arrays, the compatibility
    check, the suite's info and the failure shares all read it)."""
    found = _READS.get(id(result))
    if found is None:
        table = task.verdict_table(result)
        key = (tuple(table.cuts), table.ids, *table.cuts.values())  # columns: hashed fast
        layout = _LAYOUTS.get(key)
        if layout is None:
            rows = tuple(zip(table.ids, *table.cuts.values(), strict=True))
            layout = _LAYOUTS[key] = _make(tuple(table.cuts), rows)
        flags = {answers: {rate: np.array(values, dtype=bool) for rate, values in given.items()}
                 for answers, given in table.flags.items()}  # fmt: skip
        found = _READS[id(result)] = SuiteRead(
            layout, flags, dict(Counter(table.failures)), dict(table.unavailable),
            table.version, table.checksum,
        )  # fmt: skip
        weakref.finalize(result, _READS.pop, id(result), None)  # before the id is reused
    return found


def suite_layout(task: Task[Any, Any], result: BaseModel) -> Layout:
    """`result`'s layout (`read_suite`)."""
    return read_suite(task, result).layout


_READS: dict[int, SuiteRead] = {}
_LAYOUTS: dict[tuple[tuple[str, ...], ...], Layout] = {}
"""Layouts by the cuts' names, the ids and each cut's column."""


def _make(names: tuple[str, ...], rows: tuple[Row, ...]) -> Layout:
    cuts = {name: np.array([r[i + 1] for r in rows], dtype=np.str_) for i, name in enumerate(names)}
    order = {value: rank for rank, value in enumerate(natural_order({r[1] for r in rows}))}
    strata = np.array([order[r[1]] for r in rows], dtype=np.int64)
    for shared in (strata, *cuts.values()):
        shared.flags.writeable = False
    lines = "".join("|".join(row) + "\n" for row in rows)
    fingerprint = hashlib.sha256(lines.encode()).hexdigest()
    return Layout(tuple(r[0] for r in rows), cuts, strata, fingerprint)
