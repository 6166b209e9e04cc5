"""Exact optimal solver for MAPF-FrozenLake (sum of costs or makespan).

`find_optimum` is the generator's call; `solve` returns a `SolveResult` with status OPTIMAL,
UNSOLVABLE or LIMIT. `conflict_free_plan` / `needs_conflict_resolution` decide, without a
search, whether the agents' shortest paths can be combined without conflicts.
`minimal_makespan` is the suites' makespan key: CBS where it finishes quickly, else
`exact_makespan`, a time-expanded network flow that finishes where CBS stalls.
See `_api.py` for the order in which the exact methods are tried.
"""

from mapf_env.solver._api import (
    MAKESPAN_CBS_NODES,
    conflict_free_plan,
    exact_makespan,
    find_optimum,
    individual_costs,
    minimal_makespan,
    needs_conflict_resolution,
    solve,
)
from mapf_env.solver._grid_graph import GridGraph
from mapf_env.solver._results import SolveResult, SolverLimits, SolveStatus

__all__ = [
    "MAKESPAN_CBS_NODES",
    "GridGraph",
    "SolveResult",
    "SolveStatus",
    "SolverLimits",
    "conflict_free_plan",
    "exact_makespan",
    "find_optimum",
    "individual_costs",
    "minimal_makespan",
    "needs_conflict_resolution",
    "solve",
]
