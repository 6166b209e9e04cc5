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

Config = int
"""A configuration packed into one int: agent i's cell in bits ``[i * b, (i + 1) * b)``. Moving
an agent is one addition, and ints hash and compare far faster than tuples, which matters
because the proof may store hundreds of thousands of configurations."""


def _squares(graph: GridGraph) -> dict[int, tuple[int, int, int, int]]:
    """Every 2x2 block of free cells, keyed by its top-left cell, as a cycle: top-left,
    top-right, bottom-right, bottom-left. Keyed so that a configuration looks only at the (at
    most k) blocks whose top-left cell it occupies -- a fully occupied block is one of them."""
    n, free = graph.n, graph.free
    out = {}
    for r in range(n - 1):
        for c in range(n - 1):
            a, b = r * n + c, r * n + c + 1
            d, e = a + n, b + n
            if free[a] and free[b] and free[d] and free[e]:
                out[a] = (a, b, e, d)
    return out


class _Packing:
    """Packs and unpacks configurations; `units[i]` is the value of one cell step of agent i."""

    def __init__(self, size: int, k: int) -> None:
        self.bits = max(1, (size - 1).bit_length())
        self.mask = (1 << self.bits) - 1
        self.units = [1 << (self.bits * i) for i in range(k)]

    def pack(self, cells: list[int]) -> Config:
        return sum(v * u for v, u in zip(cells, self.units, strict=True))

    def unpack(self, conf: Config) -> list[int]:
        bits, mask = self.bits, self.mask
        return [(conf >> (bits * i)) & mask for i in range(len(self.units))]


def _rotations(
    conf: Config,
    cells: list[int],
    units: list[int],
    squares: dict[int, tuple[int, int, int, int]],
) -> list[Config]:
    """Both rotations of every fully occupied block, blocks in row-major order (a fixed
    order, so the search and its node count are deterministic). Single-agent steps, in agent
    then neighbour order, come first and are generated inline by the search."""
    out: list[Config] = []
    occupied = set(cells)
    for v in sorted(cells):
        cyc = squares.get(v)
        if cyc is None or not occupied.issuperset(cyc):
            continue
        where = {u: units[i] for i, u in enumerate(cells)}
        for step in (1, 3):
            out.append(conf + sum((cyc[(j + step) % 4] - u) * where[u] for j, u in enumerate(cyc)))
    return out


class SolvabilityProof:
    """The bidirectional search, resumable: `run` with a larger cap continues where the last
    call stopped instead of starting over. It stops only between layers, so the layers grown,
    and the verdict, are exactly those of a fresh search with the larger cap -- the repeated
    work of earlier, smaller attempts is simply not done again."""

    def __init__(self, graph: GridGraph, starts: list[int], goals: list[int]) -> None:
        self.trivial = starts == goals
        self.packing = _Packing(graph.size, len(starts))
        src, dst = self.packing.pack(starts), self.packing.pack(goals)
        self.squares = _squares(graph) if len(starts) >= 4 else {}
        self.nbrs = graph.nbrs
        self.seen = ({src}, {dst})
        self.frontier: tuple[list[Config], list[Config]] = ([src], [dst])

    def run(self, budget: Budget, max_states: int) -> bool | None:
        """True/False when proven, None when more than `max_states` configurations were
        needed (then a later call with a larger cap resumes)."""
        if self.trivial:
            return True
        seen, frontier = self.seen, self.frontier
        if len(seen[0]) + len(seen[1]) > max_states:
            return None
        packing, nbrs, squares = self.packing, self.nbrs, self.squares
        while frontier[0] and frontier[1]:
            side = 0 if len(frontier[0]) <= len(frontier[1]) else 1
            mine, other = seen[side], seen[1 - side]
            nxt: list[Config] = []
            units, bits, mask = packing.units, packing.bits, packing.mask
            shifts = [bits * i for i in range(len(units))]
            for conf in frontier[side]:
                budget.charge()
                # Single-agent steps inlined (the hot loop); then the rare block rotations.
                cells = [(conf >> sh) & mask for sh in shifts]
                for v, unit in zip(cells, units, strict=True):
                    for w in nbrs[v]:
                        if w not in cells:
                            new = conf + (w - v) * unit
                            if new in other:
                                return True
                            if new not in mine:
                                mine.add(new)
                                nxt.append(new)
                for new in _rotations(conf, cells, units, squares) if squares else ():
                    if new in other:
                        return True
                    if new not in mine:
                        mine.add(new)
                        nxt.append(new)
            frontier[side].clear()
            frontier[side].extend(nxt)
            if len(seen[0]) + len(seen[1]) > max_states:
                return None
        return False


def is_solvable(
    graph: GridGraph, starts: list[int], goals: list[int], budget: Budget, max_states: int
) -> bool | None:
    """True/False when proven, None when more than `max_states` configurations were needed."""
    return SolvabilityProof(graph, starts, goals).run(budget, max_states)
