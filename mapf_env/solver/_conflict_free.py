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
    first = _first_choice_paths(nbrs, starts, dists, costs)
    if not _any_clash(first, horizon):
        return first
    if _forced_clash(nbrs, starts, dists, costs, horizon):
        return None
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


def _first_choice_paths(
    nbrs: tuple[tuple[int, ...], ...], starts: list[int], dists: list[list[int]], costs: list[int]
) -> list[list[int]]:
    """Each agent's shortest path that always takes its first option (neighbour order).

    The search below tries exactly these first; when they do not clash it would return them
    unchanged, so building and checking them directly gives the same plan, only cheaper -- and
    most instances end here.
    """
    out = []
    for v, dist, cost in zip(starts, dists, costs, strict=True):
        path = [v]
        for want in range(cost - 1, -1, -1):
            v = next(w for w in nbrs[v] if dist[w] == want)
            path.append(v)
        out.append(path)
    return out


def _any_clash(paths: list[list[int]], horizon: int) -> bool:
    """Whether two paths (agents resting on their last cell) meet or swap at some time."""
    prev: list[int] = []
    for t in range(horizon + 1):
        pos = [p[t] if t < len(p) else p[-1] for p in paths]
        if len(set(pos)) < len(pos):
            return True
        if prev:
            moved = {(u, v) for u, v in zip(prev, pos, strict=True) if u != v}
            if any((v, u) in moved for u, v in moved):
                return True
        prev = pos
    return False


def _forced_clash(
    nbrs: tuple[tuple[int, ...], ...],
    starts: list[int],
    dists: list[list[int]],
    costs: list[int],
    horizon: int,
) -> bool:
    """Whether two agents must meet (or swap) whatever shortest paths they take.

    An agent whose shortest paths all pass one cell at time t (its MDD layer there is a single
    cell; from its cost on, its goal) cannot avoid another agent forced into that cell at t.
    Proves, cheaply, what the exhaustive search would prove slowly -- the usual way an
    instance needs conflict resolution.
    """
    forced: list[list[int]] = []  # per agent and time: the only cell, or -1
    for v, dist, cost in zip(starts, dists, costs, strict=True):
        layer, only = [v], [v]
        for t in range(cost):
            want = cost - t - 1
            layer = list({w for u in layer for w in nbrs[u] if dist[w] == want})
            only.append(layer[0] if len(layer) == 1 else -1)
        only.extend([only[-1]] * (horizon - cost))
        forced.append(only)
    for t in range(1, horizon + 1):
        now: dict[int, int] = {}
        for i, only in enumerate(forced):
            u = only[t]
            if u != -1:
                if u in now:
                    return True
                now[u] = i
        for u, i in now.items():
            back = forced[i][t - 1]
            j = now.get(back, -1) if back not in (-1, u) else -1
            if j != -1 and forced[j][t - 1] == u:
                return True
    return False
