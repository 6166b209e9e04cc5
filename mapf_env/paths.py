"""Costs and conflicts of plans, shared by the solver, the verifier and the tests.

These functions follow the rules of MAPF-FrozenLake (docs/tasks/mapf-frozenlake.md) exactly: an
agent occupies its last cell for good, the cost of a path is its length minus one after trailing
repeats of the goal are dropped, and two agents conflict when they share a cell at one time
(vertex) or swap cells between t and t+1 (edge). They assume each path is non-empty; legality of
single moves is the verifier's concern.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mapf_env.instance import Cell, Objective, Path, Plan


def at(path: Path, t: int) -> Cell:
    """Where the agent is at time t (it stays on its last cell after the path ends)."""
    return path[t] if t < len(path) else path[-1]


def path_cost(path: Path) -> int:
    """Length minus one, after trailing repeats of the final cell are dropped."""
    end = len(path) - 1
    while end > 0 and path[end - 1] == path[-1]:
        end -= 1
    return end


def sum_of_costs(plan: Plan) -> int:
    return sum(path_cost(p) for p in plan)


def makespan(plan: Plan) -> int:
    return max((path_cost(p) for p in plan), default=0)


def plan_cost(plan: Plan, objective: Objective) -> int:
    """The plan's value under `objective`.

    `Objective(...)` first, so that a plain string (from an unvalidated `model_copy`) is read as
    the objective it names and an unknown one raises: an identity check alone would price
    every non-enum value, "soc" included, as the makespan.
    """
    return sum_of_costs(plan) if Objective(objective) is Objective.SOC else makespan(plan)


@dataclass(frozen=True, slots=True)
class Conflict:
    """The first clash between two agents: both in `cell` at `time` (vertex), or swapping
    `cell` and `other_cell` between `time` and `time + 1` (edge)."""

    kind: Literal["vertex", "edge"]
    agents: tuple[int, int]
    time: int
    cell: Cell
    other_cell: Cell | None = None


def first_conflict(plan: Plan) -> Conflict | None:
    """The earliest vertex or edge conflict in `plan` (vertex first at equal times), or None."""
    if len(plan) < 2:
        return None
    horizon = max(len(p) for p in plan)
    for t in range(horizon):
        seen: dict[Cell, int] = {}
        for i, p in enumerate(plan):
            cell = at(p, t)
            j = seen.get(cell)
            if j is not None:
                return Conflict("vertex", (j, i), t, cell)
            seen[cell] = i
        if t + 1 >= horizon:
            break
        moves = {(at(p, t), at(p, t + 1)): i for i, p in enumerate(plan)}
        for (a, b), i in moves.items():
            if a == b:
                continue
            j = moves.get((b, a))
            if j is not None and j != i:
                return Conflict(
                    "edge", (min(i, j), max(i, j)), t, a if i < j else b, b if i < j else a
                )
    return None
