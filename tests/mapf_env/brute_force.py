"""Independent exhaustive joint search, used only to check the solver in tests.

Written separately from `mapf_env.solver` and sharing none of its code: cells stay ``(row, col)``
tuples, moves come from `itertools.product`, and there is no heuristic.

Sum of costs: uniform-cost search over ``(positions, retired agents)``. An agent standing on its
goal may *retire* at no cost and without time passing; a retired agent stays forever. Every joint
step costs one per active agent. A retirement schedule of a plan costs exactly its SOC when each
agent retires at its last arrival, and never less, so the cheapest all-retired state is the
optimal SOC. The state space is finite, so exhausting it proves the instance unsolvable.

Makespan: breadth-first search over configurations with simultaneous moves; after the last agent
arrives everyone waits, so the depth of the goal configuration is the optimal makespan.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque

from mapf_env.instance import Cell, Instance

Positions = tuple[Cell, ...]


def _options(instance: Instance, cell: Cell) -> list[Cell]:
    r, c = cell
    out = [cell]
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        nxt = (r + dr, c + dc)
        if instance.is_free(nxt):
            out.append(nxt)
    return out


def _legal(before: Positions, after: Positions) -> bool:
    if len(set(after)) != len(after):
        return False
    for i in range(len(before)):
        for j in range(i + 1, len(before)):
            if after[i] == before[j] and after[j] == before[i] and before[i] != before[j]:
                return False
    return True


def _steps(instance: Instance, pos: Positions, moving: list[int]) -> list[Positions]:
    choices = [_options(instance, pos[i]) if i in moving else [pos[i]] for i in range(len(pos))]
    return [after for after in itertools.product(*choices) if _legal(pos, after)]


def optimal_soc(instance: Instance) -> int | None:
    """Optimal sum of costs, or None when no plan exists."""
    start = (tuple(instance.starts), frozenset[int]())
    k = instance.n_agents
    best = {start: 0}
    heap: list[tuple[int, int, tuple[Positions, frozenset[int]]]] = [(0, 0, start)]
    tie = itertools.count(1)
    while heap:
        cost, _, state = heapq.heappop(heap)
        if cost > best[state]:
            continue
        pos, retired = state
        if len(retired) == k:
            return cost
        moves: list[tuple[int, tuple[Positions, frozenset[int]]]] = []
        for i in range(k):
            if i not in retired and pos[i] == instance.goals[i]:
                moves.append((0, (pos, retired | {i})))
        active = [i for i in range(k) if i not in retired]
        for after in _steps(instance, pos, active):
            moves.append((len(active), (after, retired)))
        for step, nxt in moves:
            if cost + step < best.get(nxt, cost + step + 1):
                best[nxt] = cost + step
                heapq.heappush(heap, (cost + step, next(tie), nxt))
    return None


def optimal_makespan(instance: Instance) -> int | None:
    """Optimal makespan, or None when no plan exists."""
    start: Positions = tuple(instance.starts)
    goal: Positions = tuple(instance.goals)
    depth = {start: 0}
    queue = deque([start])
    everyone = list(range(instance.n_agents))
    while queue:
        pos = queue.popleft()
        if pos == goal:
            return depth[pos]
        for after in _steps(instance, pos, everyone):
            if after not in depth:
                depth[after] = depth[pos] + 1
                queue.append(after)
    return None


def shortest_length(instance: Instance, agent: int) -> int | None:
    """One agent's BFS distance to its goal on the bare grid, or None."""
    start, goal = instance.starts[agent], instance.goals[agent]
    dist = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            return dist[cell]
        for nxt in _options(instance, cell)[1:]:
            if nxt not in dist:
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    return None
