"""Low level of CBS: one agent's cheapest path under constraints, fewest clashes among those.

States are ``(cell, time)``; a step goes to a neighbour or waits, and costs one. The heuristic
is the exact BFS distance to the goal, so ``f = t + dist`` is consistent and the first goal
state popped is a cheapest path. The goal is accepted only at a time from which the agent may
rest there for good (after the last vertex constraint on its goal), because an agent keeps
occupying its last cell.

Ties on ``f`` are broken by the number of clashes with the other agents' current paths (the
conflict avoidance table, CAT), then by depth: since every path to ``(cell, time)`` has the
same cost ``time``, popping in ``(f, clashes)`` order gives, exactly, a cheapest path with the
fewest clashes. Fewer clashes means fewer CBS splits.

Constraints and the CAT end at some time; after it the search is time-invariant, so states
later than ``t_cap`` are merged with ``(cell, t_cap)``. This keeps the state space finite, so
the search also proves that no path exists.

Keys are ints: vertex ``t * S + v`` and move ``(t * S + u) * S + v`` (u at t, v at t + 1),
with S the number of cells.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

INFINITY = 1 << 30


@dataclass(slots=True)
class Constraints:
    """Forbidden vertices and moves of one agent, plus the earliest time it may rest on goal."""

    vertex: frozenset[int] = frozenset()
    move: frozenset[int] = frozenset()
    goal_free_from: int = 0
    last_time: int = 0


@dataclass(slots=True)
class ClashTable:
    """The other agents' paths, for counting clashes (conflict avoidance table)."""

    at: dict[int, int] = field(default_factory=dict)
    moves: dict[int, int] = field(default_factory=dict)
    rest: dict[int, int] = field(default_factory=dict)
    horizon: int = 0

    @classmethod
    def build(cls, paths: list[list[int]], skip: int, size: int) -> ClashTable:
        """Table of every path but `skip`'s; `moves` is keyed by the reverse move (a swap)."""
        table = cls()
        at, moves, rest = table.at, table.moves, table.rest
        for j, p in enumerate(paths):
            if j == skip:
                continue
            last = len(p) - 1
            for t in range(last):
                key = t * size + p[t]
                at[key] = at.get(key, 0) + 1
                u, v = p[t], p[t + 1]
                if u != v:
                    mk = (t * size + v) * size + u
                    moves[mk] = moves.get(mk, 0) + 1
            rest[p[last]] = last
            table.horizon = max(table.horizon, last)
        return table


def plan_path(
    nbrs: tuple[tuple[int, ...], ...],
    start: int,
    goal: int,
    dist: list[int],
    cons: Constraints,
    cat: ClashTable,
    size: int,
) -> tuple[list[int] | None, int]:
    """Cheapest constrained path (fewest clashes among those) and the number of expansions."""
    t_cap = max(cons.last_time, cat.horizon) + 1
    vertex, move, free_from = cons.vertex, cons.move, cons.goal_free_from
    at, moves, rest = cat.at, cat.moves, cat.rest
    parents: list[int] = [-1]
    cells: list[int] = [start]
    times: list[int] = [0]
    heap = [(dist[start], 0, 0, 0)]
    closed: set[int] = set()
    expanded = 0
    while heap:
        _f, clashes, _negt, idx = heapq.heappop(heap)
        v, t = cells[idx], times[idx]
        key = (t if t < t_cap else t_cap) * size + v
        if key in closed:
            continue
        closed.add(key)
        expanded += 1
        if v == goal and t >= free_from:
            return _unwind(parents, cells, idx), expanded
        nt = t + 1
        base = nt * size
        mbase = t * size + v
        for w in (v, *nbrs[v]):
            if base + w in vertex or mbase * size + w in move:
                continue
            if (nt if nt < t_cap else t_cap) * size + w in closed:
                continue
            c = clashes + at.get(base + w, 0) + moves.get(mbase * size + w, 0)
            if rest.get(w, INFINITY) <= nt:
                c += 1
            parents.append(idx)
            cells.append(w)
            times.append(nt)
            heapq.heappush(heap, (nt + dist[w], c, -nt, len(cells) - 1))
    return None, expanded


def _unwind(parents: list[int], cells: list[int], idx: int) -> list[int]:
    out: list[int] = []
    while idx >= 0:
        out.append(cells[idx])
        idx = parents[idx]
    out.reverse()
    return out
