"""The paper's reported figures, shipped as package data: shown beside runs, never mixed in.

`reference_paper.json` holds every cell of the paper's three result tables (3-, 4- and 5-agent:
each model row, each map size, "acc." and "opt.", and the Sums) as its project page prints them,
with the page's commit named, plus the rows and context variants only the paper's text gives
(Sums only). The paper's "opt." is makespan-optimal, so it is stored as `optimal_makespan`.

A reported Sum should be the mean of its row's cells; `sum_discrepancies` recomputes which are
not (beyond the paper's two-decimal rounding), and the data lists the same ones under
`discrepancies` -- kept as reported, never corrected.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from statistics import mean
from typing import Literal

from leaderboards.board import ReferenceBoard, ReferenceDiscrepancy, ReferenceRow

REFERENCE_FILE = "reference_paper.json"
ROUNDING = 0.01
"""How far a Sum may sit from its cells' mean: the Sum and each cell are rounded to 0.01."""

ReferenceMetric = Literal["valid", "optimal_makespan"]
REFERENCE_METRICS: tuple[ReferenceMetric, ...] = ("valid", "optimal_makespan")


@cache
def load_reference() -> ReferenceBoard:
    """The reported board of arXiv 2606.17682 (labelled "reported, not reproduced")."""
    text = resources.files("leaderboards.data").joinpath(REFERENCE_FILE).read_text("utf-8")
    return ReferenceBoard.model_validate_json(text)


def cell_mean(row: ReferenceRow, suite: str, metric: ReferenceMetric) -> float:
    """The mean of `row`'s reported per-size cells on `suite`."""
    return mean(float(getattr(cell, metric)) for cell in row.sizes[suite].values())


def sum_discrepancies(reference: ReferenceBoard) -> list[ReferenceDiscrepancy]:
    """Every reported Sum further than `ROUNDING` from the mean of its row's cells."""
    out = []
    for row in reference.rows:
        for suite in row.sizes:
            for metric in REFERENCE_METRICS:
                reported = getattr(row.suites[suite], metric)
                cells = cell_mean(row, suite, metric)
                if abs(reported - cells) > ROUNDING:
                    out.append(ReferenceDiscrepancy(row=row.label, suite=suite, metric=metric,
                                                    reported_sum=reported,
                                                    cell_mean=round(cells, 4)))  # fmt: skip
    return out


def size_rows(reference: ReferenceBoard, suite: str) -> list[ReferenceRow]:
    """The rows with per-size cells on `suite`, in the data's order."""
    return [row for row in reference.rows if suite in row.sizes]
