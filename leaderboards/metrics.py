"""The three rates every board shows, how each is named, and when one cannot be given.

- `valid`: all eight checks pass (the paper's "acc.").
- `optimal_makespan`: valid and at the exact minimal makespan -- the paper's "opt." (its
  project page: the plan "reaches the optimal makespan" of the ground truth). The comparison
  with the paper's reported figures uses this one.
- `optimal_soc`: valid and at the exact minimal sum of costs.

A result can give an optimal rate only when its suite version carries that objective's exact
minima (`run_records.schema.SuiteResult.optima`): suites of version 1 carry the minimal SOC only,
so their makespan-optimal rate is unknown. Boards show such a cell as "n/a" with
`unavailable_note` beside it -- never 0, and never the SOC rate in its place.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from mapf_env import Objective

Metric = Literal["valid", "optimal_makespan", "optimal_soc"]
METRICS: tuple[Metric, ...] = ("valid", "optimal_makespan", "optimal_soc")
"""In the order boards draw them."""

OBJECTIVE: dict[Metric, Objective | None] = {
    "valid": None,
    "optimal_makespan": Objective.MAKESPAN,
    "optimal_soc": Objective.SOC,
}
"""The exact minimum each rate is judged against (None: validity needs none)."""

LABELS: dict[Metric, str] = {
    "valid": "valid",
    "optimal_makespan": "opt. makespan (paper's)",
    "optimal_soc": "opt. SOC",
}
"""Row labels in the tables."""

SHORT: dict[Metric, str] = {
    "valid": "valid",
    "optimal_makespan": "opt. makespan",
    "optimal_soc": "opt. SOC",
}
"""Column headers and plot titles, where the tables' notes say which one is the paper's."""

DEFINITIONS: dict[Metric, str] = {
    "valid": "valid rate: all eight checks pass (the paper's 'acc.')",
    "optimal_makespan": "valid and at the exact minimal makespan: the paper's 'opt.', which its "
    "project page defines by the optimal makespan of the ground truth",
    "optimal_soc": "valid and at the exact minimal sum of costs (SOC)",
}
"""What each rate counts, for the board's JSON and the tables' notes."""

NA = "n/a"


def available(optima: Iterable[str], metric: Metric) -> bool:
    """Whether results judged against `optima` (objective names) can give `metric`."""
    objective = OBJECTIVE[metric]
    return objective is None or objective.value in {str(o) for o in optima}


def unavailable_note(suite: str, version: int | None, optima: Iterable[str], metric: Metric) -> str:
    """Why a suite's `metric` cells read "n/a" (one line for the tables' notes)."""
    held = "/".join(str(o).upper() for o in optima) or "no"
    objective = OBJECTIVE[metric]
    name = "SOC" if objective is Objective.SOC else "makespan"
    return (
        f"n/a: the {suite} records are of suite version {version or 1} ({held} optima only): "
        f"they hold no exact minimal {name}, so no {name}-optimal rate; runs scored on suite "
        "version 2 have it."
    )
