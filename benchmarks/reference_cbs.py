"""Textbook CBS (Sharon et al. 2015), used only as a speed reference for the real solver.

No improvements: the low level is a plain space-time A* (BFS-distance heuristic, no conflict
avoidance table), the high level expands nodes in sum-of-costs order and splits the first
conflict found by `mapf_env.paths.first_conflict`. It is exact for SOC on solvable instances
and gives up (returns None) after `max_nodes` constraint-tree nodes or `time_limit_s`.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque

from mapf_env import Cell, Instance, Path, first_conflict, sum_of_costs

Constraint = tuple[Cell, Cell | None, int]
"""(cell, None, t): not in cell at t; (a, b, t): no move a -> b between t and t + 1."""


def _distances(instance: Instance, goal: Cell) -> dict[Cell, int]:
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        r, c = queue.popleft()
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if instance.is_free(nxt) and nxt not in dist:
                dist[nxt] = dist[(r, c)] + 1
                queue.append(nxt)
    return dist


def _low_level(
    instance: Instance, start: Cell, goal: Cell, dist: dict[Cell, int], cons: set[Constraint]
) -> Path | None:
    if start not in dist:
        return None
    goal_busy = max((t for cell, other, t in cons if other is None and cell == goal), default=-1)
    horizon = max((t for _, _, t in cons), default=0) + instance.size**2 + 1
    tie = itertools.count()
    heap: list[tuple[int, int, int, Cell, Path]] = [(dist[start], next(tie), 0, start, (start,))]
    seen = set()
    while heap:
        _, _, t, cell, path = heapq.heappop(heap)
        if cell == goal and t > goal_busy:
            return path
        if (cell, t) in seen or t > horizon:
            continue
        seen.add((cell, t))
        r, c = cell
        for nxt in (cell, (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nxt not in dist or (nxt, None, t + 1) in cons or (cell, nxt, t) in cons:
                continue
            heapq.heappush(heap, (t + 1 + dist[nxt], next(tie), t + 1, nxt, (*path, nxt)))
    return None


def reference_cbs(
    instance: Instance, max_nodes: int = 100_000, time_limit_s: float = 10.0
) -> tuple[Path, ...] | None:
    """An SOC-optimal plan, or None when a limit is hit (or the root has no paths)."""
    deadline = time.perf_counter() + time_limit_s
    k = instance.n_agents
    dists = [_distances(instance, g) for g in instance.goals]
    cons: list[set[Constraint]] = [set() for _ in range(k)]
    paths = []
    for i in range(k):
        p = _low_level(instance, instance.starts[i], instance.goals[i], dists[i], cons[i])
        if p is None:
            return None
        paths.append(p)
    tie = itertools.count()
    heap = [(sum_of_costs(tuple(paths)), next(tie), cons, tuple(paths))]
    for _ in range(max_nodes):
        if not heap or time.perf_counter() > deadline:
            return None
        _, _, cons, plan = heapq.heappop(heap)
        conflict = first_conflict(plan)
        if conflict is None:
            return plan
        for side, agent in enumerate(conflict.agents):
            if conflict.kind == "vertex":
                new: Constraint = (conflict.cell, None, conflict.time)
            else:
                a, b = conflict.cell, conflict.other_cell
                assert b is not None
                new = (a, b, conflict.time) if side == 0 else (b, a, conflict.time)
            child = list(cons)
            child[agent] = cons[agent] | {new}
            p = _low_level(
                instance, instance.starts[agent], instance.goals[agent], dists[agent], child[agent]
            )
            if p is not None:
                child_plan = (*plan[:agent], p, *plan[agent + 1 :])
                heapq.heappush(heap, (sum_of_costs(child_plan), next(tie), child, child_plan))
    return None
