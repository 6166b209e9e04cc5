"""Exact minimal makespan through a time-expanded network flow, solved as a 0-1 program.

Why a second exact engine for makespan: CBS is strong for the sum of costs, but under makespan
its high level sees long plateaus of equal-cost nodes, and on a few dense 5-agent suite
instances it expands tens of millions of nodes without finishing. "Is there a plan with
makespan <= T?" is instead one integer feasibility problem (Yu and LaValle's time-expanded
network): agent a uses arc (v, t) -> (w, t+1) or not; its arcs form one path from its start at
t = 0 to its goal at t = T; no two agents share a vertex at a time, nor cross one edge in
opposite directions between t and t+1. States (v, t) an agent cannot use -- too far from its
start to be there at t, or from its goal to arrive by T -- are never created, which keeps the
programs small. Plans of makespan <= T exist for every T from the minimum on (agents can wait
on their goals), so the minimum is the first feasible T counted up from the largest individual
shortest-path length.

HiGHS (through scipy's `milp`) proves each infeasible T; a feasible T comes with a plan, which
the caller re-checks with the verifier's conflict test rather than trusting the solver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mapf_env.solver._grid_graph import UNREACHABLE, GridGraph

FLOW_TIME_LIMIT_S = 600.0
"""Per feasibility program; far above what any shipped suite instance needs."""


class FlowUnavailable(RuntimeError):
    """scipy (HiGHS) is not installed: the makespan flow needs the `build` extra."""


class FlowLimit(RuntimeError):
    """HiGHS stopped before proving a horizon feasible or infeasible."""


@dataclass(frozen=True, slots=True)
class _Arc:
    agent: int
    t: int
    v: int
    w: int


def _arcs(
    graph: GridGraph, starts: Sequence[int], goals: Sequence[int], horizon: int
) -> list[_Arc]:
    """Every move or wait an agent can make on some path from its start at 0 to its goal at T."""
    arcs = []
    steps = graph.steps
    for a, (s, g) in enumerate(zip(starts, goals, strict=True)):
        from_start, to_goal = graph.dist_to(s), graph.dist_to(g)  # the grid is undirected
        for t in range(horizon):
            for v in range(graph.size):
                if from_start[v] > t or to_goal[v] > horizon - t or from_start[v] == UNREACHABLE:
                    continue
                for w in steps[v]:
                    if from_start[w] <= t + 1 and to_goal[w] <= horizon - t - 1:
                        arcs.append(_Arc(a, t, v, w))
    return arcs


def feasible_plan(
    graph: GridGraph, starts: Sequence[int], goals: Sequence[int], horizon: int
) -> list[list[int]] | None:
    """A conflict-free plan with every agent on its goal at `horizon`, or None if none exists."""
    try:
        import numpy as np
        from scipy.optimize import LinearConstraint, milp
        from scipy.sparse import coo_array
    except ImportError as err:  # pragma: no cover - depends on the installation
        raise FlowUnavailable(
            "the exact makespan flow needs scipy: pip install 'envdesign-bench[build]'"
        ) from err
    arcs = _arcs(graph, starts, goals, horizon)
    rows: dict[tuple[object, ...], int] = {}
    lower: list[float] = []
    upper: list[float] = []
    entries: list[tuple[int, int, float]] = []

    def row(key: tuple[object, ...], lo: float, hi: float) -> int:
        if key not in rows:
            rows[key] = len(lower)
            lower.append(lo)
            upper.append(hi)
        return rows[key]

    for j, arc in enumerate(arcs):
        a, t, v, w = arc.agent, arc.t, arc.v, arc.w
        # flow: out of (v, t) minus into (v, t) is 1 at the start, -1 at the goal at T, else 0
        supply = 1.0 if t == 0 and v == starts[a] else 0.0
        entries.append((row(("flow", a, t, v), supply, supply), j, 1.0))
        end = -1.0 if t + 1 == horizon else 0.0
        entries.append((row(("flow", a, t + 1, w), end, end), j, -1.0))
        entries.append((row(("vertex", t + 1, w), 0.0, 1.0), j, 1.0))
        if v != w:
            entries.append((row(("edge", t, min(v, w), max(v, w)), 0.0, 1.0), j, 1.0))
    if not arcs:  # some agent cannot reach its goal by `horizon` (starts never are goals)
        return None
    r, c, x = zip(*entries, strict=True)
    matrix = coo_array((x, (r, c)), shape=(len(lower), len(arcs))).tocsr()
    result = milp(
        c=np.zeros(len(arcs)),
        constraints=LinearConstraint(matrix, np.array(lower), np.array(upper)),
        integrality=np.ones(len(arcs)),
        bounds=(0, 1),
        options={"time_limit": FLOW_TIME_LIMIT_S, "presolve": True},
    )
    if result.status == 2:
        return None
    if result.status != 0 or result.x is None:
        raise FlowLimit(f"horizon {horizon}: {result.message}")
    return _paths(arcs, result.x, starts, horizon)


def _paths(
    arcs: Sequence[_Arc], x: Sequence[float], starts: Sequence[int], horizon: int
) -> list[list[int]]:
    nxt = {(arc.agent, arc.t, arc.v): arc.w for arc, on in zip(arcs, x, strict=True) if on > 0.5}
    paths = []
    for a, s in enumerate(starts):
        path = [s]
        for t in range(horizon):
            path.append(nxt[(a, t, path[-1])])
        paths.append(path)
    return paths


def min_makespan(
    graph: GridGraph, starts: Sequence[int], goals: Sequence[int], upper: int
) -> tuple[int, list[list[int]]]:
    """The exact minimal makespan and a plan of it, given a known plan of makespan `upper`."""
    lower = max(graph.dist_to(g)[s] for s, g in zip(starts, goals, strict=True))
    for horizon in range(lower, upper):
        plan = feasible_plan(graph, starts, goals, horizon)
        if plan is not None:
            return horizon, plan
    plan = feasible_plan(graph, starts, goals, upper)
    if plan is None:
        raise FlowLimit(
            f"no plan of makespan {upper}, though one was given: the upper bound is wrong"
        )
    return upper, plan
