"""Exact optimal solver for MAPF-FrozenLake (sum of costs or makespan).

`find_optimum` is the generator's call; `solve` returns a `SolveResult` with status OPTIMAL,
UNSOLVABLE or LIMIT. `conflict_free_plan` / `needs_conflict_resolution` decide, without a
search, whether the agents' shortest paths can be combined without conflicts.
See `_api.py` for the order in which the exact methods are tried.
"""

from mapf_env.solver._api import (
    conflict_free_plan,
    find_optimum,
    individual_costs,
    needs_conflict_resolution,
    solve,
)
from mapf_env.solver._grid_graph import GridGraph
from mapf_env.solver._results import SolveResult, SolverLimits, SolveStatus

__all__ = [
    "GridGraph",
    "SolveResult",
    "SolveStatus",
    "SolverLimits",
    "conflict_free_plan",
    "find_optimum",
    "individual_costs",
    "needs_conflict_resolution",
    "solve",
]
