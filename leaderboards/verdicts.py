"""One run's per-instance verdicts on one suite as arrays, and the cuts a board makes of them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from harness.records import SuiteResult
from leaderboards.board import Answers, Cut
from leaderboards.bootstrap import Floats

CUTS: tuple[Cut, ...] = ("size", "subset", "hole")
Metric = str
"""'valid' or 'optimal'."""


def hole_key(hole_ratio: float) -> str:
    return f"{hole_ratio:g}"


@dataclass(frozen=True)
class SuiteArrays:
    """Verdicts of one (run, suite), sorted by instance id so runs line up instance by instance."""

    ids: tuple[str, ...]
    size: NDArray[np.int64]
    subset: NDArray[np.str_]
    hole: NDArray[np.str_]
    valid: Floats
    optimal: Floats

    @classmethod
    def from_result(cls, result: SuiteResult, answers: Answers) -> SuiteArrays:
        rows = sorted(result.verdicts, key=lambda v: v.id)
        best = answers == "best_of"
        return cls(
            ids=tuple(v.id for v in rows),
            size=np.array([v.size for v in rows], dtype=np.int64),
            subset=np.array([v.subset for v in rows], dtype=np.str_),
            hole=np.array([hole_key(v.hole_ratio) for v in rows], dtype=np.str_),
            valid=np.array([v.best_of_valid if best else v.valid for v in rows], dtype=float),
            optimal=np.array([v.best_of_optimal if best else v.optimal for v in rows], dtype=float),
        )

    def values(self, metric: Metric) -> Floats:
        return self.valid if metric == "valid" else self.optimal

    def keys(self, cut: Cut) -> list[str]:
        """The cut's values present in the suite, in natural order."""
        if cut == "size":
            return [str(s) for s in sorted(set(self.size.tolist()))]
        if cut == "hole":
            return sorted(set(self.hole.tolist()), key=float)
        return sorted(set(self.subset.tolist()))

    def mask(self, cut: Cut | None, key: str = "") -> NDArray[np.bool_]:
        if cut is None:
            return np.ones(len(self.ids), dtype=bool)
        if cut == "size":
            return np.asarray(self.size == int(key))
        return np.asarray((self.subset if cut == "subset" else self.hole) == key)

    def strata(self, values: Floats, mask: NDArray[np.bool_]) -> list[Floats]:
        """`values` of the masked instances, split by map size (sizes with none left out)."""
        out = []
        for size in sorted(set(self.size[mask].tolist())):
            out.append(values[mask & (self.size == size)])
        return out
