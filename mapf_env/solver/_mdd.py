"""MDDs (all cheapest constrained paths of one agent, as time layers) for conflict cardinality.

A conflict is *cardinal* for an agent when every cheapest path of that agent under its current
constraints uses the conflicting vertex (or move) at that time -- the MDD layer there holds a
single cell. Splitting a conflict that is cardinal for both agents raises the lower bound in
both children, so CBS splits such conflicts first (Boyarski et al., ICBS 2015).

The layers are built forward from the start (cells that can still reach the goal in time,
respecting constraints) and then pruned backward from the goal at time `cost`.
"""

from __future__ import annotations

from mapf_env.solver._space_time_astar import INFINITY, Constraints


def mdd_layers(
    steps: tuple[tuple[int, ...], ...],
    start: int,
    goal: int,
    dist: list[int],
    cost: int,
    cons: Constraints,
    size: int,
) -> list[frozenset[int]]:
    """Layer t = cells on some cheapest constrained path at time t, for t in 0..cost.

    `steps[v]` is v itself (a wait) followed by its neighbours (`GridGraph.steps`)."""
    vertex, move, blocked = cons.vertex, cons.move, cons.blocked
    forward: list[set[int]] = [{start}]
    for t in range(cost):
        left = cost - t - 1
        base = (t + 1) * size
        nxt: set[int] = set()
        for v in forward[t]:
            mbase = (t * size + v) * size
            for w in steps[v]:
                if (
                    dist[w] <= left
                    and base + w not in vertex
                    and mbase + w not in move
                    and (not blocked or blocked.get(w, INFINITY) > t + 1)
                ):
                    nxt.add(w)
        forward.append(nxt)
    layers: list[frozenset[int]] = [frozenset()] * (cost + 1)
    layers[cost] = frozenset((goal,)) & frozenset(forward[cost])
    for t in range(cost - 1, -1, -1):
        later = layers[t + 1]
        keep = set()
        for v in forward[t]:
            mbase = (t * size + v) * size
            for w in steps[v]:
                if w in later and mbase + w not in move:
                    keep.add(v)
                    break
        layers[t] = frozenset(keep)
    return layers
