"""Exact test: can every agent follow one of its own shortest paths without any conflict?

Each agent's shortest paths form an MDD: at time t its cell v must satisfy
``dist_to_goal(v) == cost - t``, so the successors of v are its neighbours one step closer to
the goal (shortest paths never wait). After `cost` the agent rests on its goal for good and
still blocks it. The joint product of these MDDs is searched depth-first, layer by layer,
assigning agents one at a time and rejecting vertex and swap clashes with agents already
placed; a joint state ``(t, positions)`` that failed once is remembered, so no state is
expanded twice. The search is exhaustive, hence exact: it returns None only when no
combination of shortest paths is conflict-free. In practice it succeeds on the first descent
or fails within a few layers, which keeps it well under a millisecond.
"""

from __future__ import annotations

from mapf_env.solver._grid_graph import GridGraph


def conflict_free_paths(
    graph: GridGraph, starts: list[int], goals: list[int], costs: list[int]
) -> list[list[int]] | None:
    """One conflict-free combination of shortest paths (as cell-index lists), or None."""
    k = len(starts)
    dists = [graph.dist_to(g) for g in goals]
    horizon = max(costs)
    nbrs = graph.nbrs
    failed: set[tuple[int, ...]] = set()
    trail: list[tuple[int, ...]] = [tuple(starts)]

    def successors(i: int, v: int, t: int) -> tuple[int, ...]:
        if t >= costs[i]:
            return (v,)
        want = costs[i] - t - 1
        dist = dists[i]
        return tuple(w for w in nbrs[v] if dist[w] == want)

    def descend(t: int, pos: tuple[int, ...]) -> bool:
        if t >= horizon:
            return True
        key = (t, *pos)
        if key in failed:
            return False
        options = [successors(i, pos[i], t) for i in range(k)]
        new: list[int] = []

        def assign(i: int) -> bool:
            if i == k:
                nxt = tuple(new)
                trail.append(nxt)
                if descend(t + 1, nxt):
                    return True
                trail.pop()
                return False
            here = pos[i]
            for w in options[i]:
                if w in new:
                    continue
                if any(new[j] == here and pos[j] == w for j in range(i)):
                    continue
                new.append(w)
                if assign(i + 1):
                    return True
                new.pop()
            return False

        if assign(0):
            return True
        failed.add(key)
        return False

    if not descend(0, tuple(starts)):
        return None
    return [[trail[t][i] for t in range(costs[i] + 1)] for i in range(k)]
