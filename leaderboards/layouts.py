"""A suite result's benchmark layout: which instances, in id order, of which size, wait subset
and hole ratio.

Every run of one benchmark has the same layout, so a board of many runs makes each distinct
layout once: the arrays the cuts read (shared, read-only) and the checksum `compat` compares.
Runs are matched to a known layout by their (id, size, subset, hole ratio) rows, never by a
name or a checksum they carry, so an edited verdict still gets a layout of its own.
"""

from __future__ import annotations

import functools
import hashlib
import weakref
from dataclasses import dataclass
from operator import attrgetter

import numpy as np
from numpy.typing import NDArray

from run_records import InstanceVerdict, SuiteResult

Row = tuple[str, int, str, float]
"""One instance's place in its benchmark: id, map size, wait subset, hole ratio."""


@dataclass(frozen=True)
class Layout:
    """One benchmark's instances in id order, as arrays a board cuts by (never written to)."""

    ids: tuple[str, ...]
    size: NDArray[np.int64]
    subset: NDArray[np.str_]
    hole: NDArray[np.str_]
    """Hole ratios as the board's cut keys (`hole_key`)."""
    fingerprint: str
    """sha256 of the rows, one `id|size|subset|hole ratio` line each."""


@functools.lru_cache(maxsize=256)
def hole_key(hole_ratio: float) -> str:
    return f"{hole_ratio:g}"


def sorted_verdicts(result: SuiteResult) -> list[InstanceVerdict]:
    """`result`'s verdicts in instance id order, the order of its layout's arrays."""
    return sorted(result.verdicts, key=attrgetter("id"))


def suite_layout(result: SuiteResult) -> Layout:
    """`result`'s layout: looked up once per result object (a board asks for it in its
    compatibility check and again per answer kind), and made once per distinct layout."""
    found = _BY_RESULT.get(id(result))
    if found is None:
        key = tuple(map(_ROW, sorted_verdicts(result)))
        found = _LAYOUTS.get(key)
        if found is None:
            found = _LAYOUTS[key] = _make(key)
        _BY_RESULT[id(result)] = found
        weakref.finalize(result, _BY_RESULT.pop, id(result), None)  # before the id is reused
    return found


_ROW = attrgetter("id", "size", "subset", "hole_ratio")
_LAYOUTS: dict[tuple[Row, ...], Layout] = {}
_BY_RESULT: dict[int, Layout] = {}


def _make(rows: tuple[Row, ...]) -> Layout:
    size = np.array([r[1] for r in rows], dtype=np.int64)
    subset = np.array([r[2] for r in rows], dtype=np.str_)
    hole = np.array([hole_key(r[3]) for r in rows], dtype=np.str_)
    for shared in (size, subset, hole):
        shared.flags.writeable = False
    lines = "".join(f"{i}|{n}|{wait}|{holes!r}\n" for i, n, wait, holes in rows)
    fingerprint = hashlib.sha256(lines.encode()).hexdigest()
    return Layout(tuple(r[0] for r in rows), size, subset, hole, fingerprint)
