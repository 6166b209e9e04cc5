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
    """Forbidden vertices and moves of one agent, plus the earliest time it may rest on goal.

    `blocked` maps a cell to the time from which it is forbidden for good: another agent's goal
    where that agent is taken to rest already (target reasoning, see `_cbs.py`). Shared between
    nodes, so it is replaced, never mutated.
    """

    vertex: frozenset[int] = frozenset()
    blocked: dict[int, int] = field(default_factory=dict)
    move: frozenset[int] = frozenset()
    goal_free_from: int = 0
    last_time: int = 0


@dataclass(slots=True)
class ClashTable:
    """The other agents' paths, for counting clashes (conflict avoidance table).

    `rest[v]` is the time from which some other agent rests on cell v for good (INFINITY when
    none): a list, not a dict, since the low level looks it up for every generated state.
    """

    at: dict[int, int] = field(default_factory=dict)
    moves: dict[int, int] = field(default_factory=dict)
    rest: list[int] = field(default_factory=list)
    horizon: int = 0

    @classmethod
    def build(cls, paths: list[list[int]], skip: int, size: int) -> ClashTable:
        """Table of every path but `skip`'s; `moves` is keyed by the reverse move (a swap)."""
        table = cls(rest=[INFINITY] * size)
        at, moves, rest = table.at, table.moves, table.rest
        for j, p in enumerate(paths):
            if j == skip:
                continue
            last = len(p) - 1
            key = -size
            for t in range(last):
                key += size
                u, v = p[t], p[t + 1]
                k = key + u
                at[k] = at.get(k, 0) + 1
                if u != v:
                    mk = (key + v) * size + u
                    moves[mk] = moves.get(mk, 0) + 1
            rest[p[last]] = last
            if last > table.horizon:
                table.horizon = last
        return table


Entry = tuple[int, int, int, int, int, int, "Entry | None"]
"""A heap entry: (f, clashes, -t, seq, cell, t, parent entry). The parent link replaces
separate parent/cell/time lists; `seq` (push order) keeps ties deterministic and stops the
comparison before the parent."""

_PACK = 1 << 24
"""`best` packs (time, clashes) of a state's best queued entry into one int."""


def plan_path(
    steps: tuple[tuple[int, ...], ...],
    start: int,
    goal: int,
    dist: list[int],
    cons: Constraints,
    cat: ClashTable,
    size: int,
) -> tuple[list[int] | None, int]:
    """Cheapest constrained path (fewest clashes among those) and the number of expansions.

    An entry is not queued when the same state already has a queued entry that pops first
    (earlier time, or the same time with no more clashes): it could only be discarded when
    popped, so skipping it changes neither the result nor the expansion count, but keeps the
    heap small.
    """
    t_cap = max(cons.last_time, cat.horizon) + 1
    vertex, move, free_from = cons.vertex, cons.move, cons.goal_free_from
    blocked = cons.blocked
    at, moves, rest, horizon = cat.at, cat.moves, cat.rest, cat.horizon
    push, pop = heapq.heappush, heapq.heappop
    first: Entry = (dist[start], 0, 0, 0, start, 0, None)
    heap = [first]
    closed: set[int] = set()
    best: dict[int, int] = {}
    seq = expanded = 0
    while heap:
        entry = pop(heap)
        _f, clashes, _negt, _seq, v, t, _parent = entry
        key = (t if t < t_cap else t_cap) * size + v
        if key in closed:
            continue
        closed.add(key)
        expanded += 1
        if v == goal and t >= free_from:
            return _unwind(entry), expanded
        nt = t + 1
        base = nt * size
        mbase = (t * size + v) * size
        cbase = (nt if nt < t_cap else t_cap) * size
        for w in steps[v]:
            ck = cbase + w
            if ck in closed or base + w in vertex or mbase + w in move:
                continue
            if blocked and blocked.get(w, INFINITY) <= nt:
                continue
            c = clashes
            if nt <= horizon:  # no other path has a step later than its horizon
                c += at.get(base + w, 0) + moves.get(mbase + w, 0)
            if rest[w] <= nt:
                c += 1
            packed = nt * _PACK + c
            if best.get(ck, packed + 1) <= packed:
                continue
            best[ck] = packed
            seq += 1
            push(heap, (nt + dist[w], c, -nt, seq, w, nt, entry))
    return None, expanded


def _unwind(entry: Entry | None) -> list[int]:
    out: list[int] = []
    while entry is not None:
        out.append(entry[4])
        entry = entry[6]
    out.reverse()
    return out
