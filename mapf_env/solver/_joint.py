"""Joint-state A* over all agents at once: exact, finite, and immune to CBS's symmetric stalls.

Plain CBS can branch for a long time on two agents meeting head-on in a corridor, where every
detour of one agent is matched by a symmetric detour of the other. A joint search looks at both
agents together and resolves that directly, so the solver uses it for two agents.

Sum of costs. An agent's cost is the time it last arrives at its goal, which depends on the
future (it might leave again). To keep the state finite the search lets an agent standing on its
goal *freeze* there: a frozen agent stays for good and stops paying; every other agent pays one
per step, moving or waiting. The cost of a run is then exactly the sum of the agents' final
arrival times, and the state is just ``(positions, frozen set)`` -- no clock. The heuristic (sum
of BFS distances of unfrozen agents) is consistent, so the first all-frozen state popped is
optimal; if the finite space is exhausted first, the instance is unsolvable.

Makespan. Every agent waits at its goal once the last one arrives, so the optimal makespan is a
shortest path between the start and goal configurations with simultaneous moves; A* with the
largest remaining distance as heuristic finds it, or exhausts the space.

Successors are built agent by agent, rejecting vertex and swap clashes with the agents already
placed, in a fixed order (determinism).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator

from mapf_env.instance import Objective
from mapf_env.solver._grid_graph import GridGraph
from mapf_env.solver._results import Budget

State = tuple[tuple[int, ...], int]
"""(positions, bitmask of frozen agents)."""


def _joint_moves(pos: tuple[int, ...], options: list[tuple[int, ...]]) -> Iterator[tuple[int, ...]]:
    """Every clash-free combination of one option per agent."""
    k = len(pos)
    new: list[int] = []

    def rec(i: int) -> Iterator[tuple[int, ...]]:
        if i == k:
            yield tuple(new)
            return
        here = pos[i]
        for w in options[i]:
            if w in new or any(new[j] == here and pos[j] == w for j in range(i)):
                continue
            new.append(w)
            yield from rec(i + 1)
            new.pop()

    return rec(0)


def joint_search(
    graph: GridGraph, starts: list[int], goals: list[int], objective: Objective, budget: Budget
) -> list[list[int]] | None:
    """Optimal plan as cell-index paths, or None when the instance is unsolvable."""
    dists = [graph.dist_to(g) for g in goals]
    k = len(starts)
    all_frozen = (1 << k) - 1
    soc = Objective(objective) is Objective.SOC  # a plain string too (see `_api._solve`)
    nbrs = graph.nbrs
    goal_t = tuple(goals)

    def heuristic(state: State) -> int:
        pos, frozen = state
        vals = [dists[i][pos[i]] for i in range(k) if not frozen >> i & 1]
        return (sum(vals) if soc else max(vals, default=0)) if vals else 0

    def successors(state: State) -> Iterator[tuple[State, int]]:
        pos, frozen = state
        options = [(pos[i],) if frozen >> i & 1 else (pos[i], *nbrs[pos[i]]) for i in range(k)]
        for new in _joint_moves(pos, options):
            if soc:
                yield from _freeze_choices(pos, new, frozen, goals, k)
            else:
                yield (new, 0), 1

    def is_goal(state: State) -> bool:
        return state[1] == all_frozen if soc else state[0] == goal_t

    return _astar((tuple(starts), 0), heuristic, successors, is_goal, budget, k)


def _freeze_choices(
    pos: tuple[int, ...], new: tuple[int, ...], frozen: int, goals: list[int], k: int
) -> Iterator[tuple[State, int]]:
    """Each unfrozen agent that waits on its goal may freeze (cost 0) or keep paying."""
    movable = [i for i in range(k) if not frozen >> i & 1]
    can = [i for i in movable if pos[i] == goals[i] and new[i] == goals[i]]
    for sub in range(1 << len(can)):
        mask = frozen
        for bit, i in enumerate(can):
            if sub >> bit & 1:
                mask |= 1 << i
        paying = len(movable) - (mask.bit_count() - frozen.bit_count())
        yield (new, mask), paying


def _astar(
    start: State,
    heuristic: Callable[[State], int],
    successors: Callable[[State], Iterator[tuple[State, int]]],
    is_goal: Callable[[State], bool],
    budget: Budget,
    k: int,
) -> list[list[int]] | None:
    best: dict[State, int] = {start: 0}
    parent: dict[State, State] = {}
    seq = 0
    heap: list[tuple[int, int, int, State]] = [(heuristic(start), 0, 0, start)]
    closed: set[State] = set()
    while heap:
        _f, neg_g, _seq, state = heapq.heappop(heap)
        if state in closed:
            continue
        closed.add(state)
        budget.charge()
        if is_goal(state):
            return _unwind(parent, state, k)
        g = -neg_g
        for nxt, step in successors(state):
            ng = g + step
            if nxt in closed or best.get(nxt, ng + 1) <= ng:
                continue
            best[nxt] = ng
            parent[nxt] = state
            seq += 1
            heapq.heappush(heap, (ng + heuristic(nxt), -ng, seq, nxt))
    return None


def _unwind(parent: dict[State, State], state: State, k: int) -> list[list[int]]:
    trail = [state[0]]
    while state in parent:
        state = parent[state]
        trail.append(state[0])
    trail.reverse()
    paths = [[conf[i] for conf in trail] for i in range(k)]
    for p in paths:
        while len(p) > 1 and p[-1] == p[-2]:
            p.pop()
    return paths
