"""Exact solvability: is the goal configuration reachable at all, ignoring time and cost?

A simultaneous joint move splits into chains (each agent steps into a cell that is empty or
being vacated) and cycles (agents rotating round a cycle of cells). A chain can be replayed one
agent at a time, head first; a 2-cycle is a forbidden swap, and grid graphs are bipartite, so
the only cycle that at most five agents can fill is a 2x2 square of free cells. Hence the
configurations reachable by simultaneous moves are exactly those reachable by single-agent steps
plus rotations of a fully occupied 2x2 square. Both kinds of step are reversible, so the start
and goal configurations are either in one connected component or the instance is unsolvable.

Two breadth-first searches, one from each end, grow alternately (always the smaller frontier):
meeting proves solvable; exhausting either side without meeting proves unsolvable. Trapped
agents make the unsolvable side's component small, which is why this usually ends fast. A cap
on stored configurations turns an infeasible proof into "unknown" (None).
"""

from __future__ import annotations

from mapf_env.solver._grid_graph import GridGraph
from mapf_env.solver._results import Budget

Config = tuple[int, ...]


def _squares(graph: GridGraph) -> list[tuple[int, int, int, int]]:
    """Every 2x2 block of free cells, as a cycle: top-left, top-right, bottom-right, bottom-left."""
    n, free = graph.n, graph.free
    out = []
    for r in range(n - 1):
        for c in range(n - 1):
            a, b = r * n + c, r * n + c + 1
            d, e = a + n, b + n
            if free[a] and free[b] and free[d] and free[e]:
                out.append((a, b, e, d))
    return out


def _neighbours(
    conf: Config, nbrs: tuple[tuple[int, ...], ...], squares: list[tuple[int, int, int, int]]
) -> list[Config]:
    out: list[Config] = []
    occupied = set(conf)
    for i, v in enumerate(conf):
        for w in nbrs[v]:
            if w not in occupied:
                out.append((*conf[:i], w, *conf[i + 1 :]))
    if len(conf) >= 4:
        where = {v: i for i, v in enumerate(conf)}
        for cyc in squares:
            if all(v in where for v in cyc):
                for step in (1, 3):
                    moved = list(conf)
                    for j, v in enumerate(cyc):
                        moved[where[v]] = cyc[(j + step) % 4]
                    out.append(tuple(moved))
    return out


def is_solvable(
    graph: GridGraph, starts: list[int], goals: list[int], budget: Budget, max_states: int
) -> bool | None:
    """True/False when proven, None when more than `max_states` configurations were needed."""
    src, dst = tuple(starts), tuple(goals)
    if src == dst:
        return True
    squares = _squares(graph) if len(starts) >= 4 else []
    seen = ({src}, {dst})
    frontier = ([src], [dst])
    while frontier[0] and frontier[1]:
        side = 0 if len(frontier[0]) <= len(frontier[1]) else 1
        mine, other = seen[side], seen[1 - side]
        nxt: list[Config] = []
        for conf in frontier[side]:
            budget.charge()
            for new in _neighbours(conf, graph.nbrs, squares):
                if new in other:
                    return True
                if new not in mine:
                    mine.add(new)
                    nxt.append(new)
        if len(seen[0]) + len(seen[1]) > max_states:
            return None
        frontier[side].clear()
        frontier[side].extend(nxt)
    return False
