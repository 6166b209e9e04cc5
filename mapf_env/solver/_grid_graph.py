"""Integer-indexed view of an instance's grid, shared by every search in the solver.

Searches run in hot Python loops, so cells become ints ``v = row * n + col`` and the grid
becomes a tuple of neighbour tuples (4-neighbours that are on the grid and not holes, always in
the fixed order up, left, right, down, so every search expands in a deterministic order).
Breadth-first distance tables to each goal are the admissible heuristic of every A* here and
the layer test of every MDD (multi-valued decision diagram of shortest paths).

The generator asks about many candidate instances on one grid (and twice per candidate), and
building the table costs a good share of a cheap solve, so graphs are cached per grid rows
(`from_rows`), and each graph caches its distance tables: both are pure functions of the grid.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache

from mapf_env.instance import HOLE, Cell, Instance, Path

UNREACHABLE = 1 << 30
"""Distance of a cell that cannot reach the target; larger than any real distance."""


@dataclass(slots=True)
class GridGraph:
    """Neighbour table and cached BFS distance tables of one grid."""

    n: int
    free: tuple[bool, ...]
    nbrs: tuple[tuple[int, ...], ...]
    steps: tuple[tuple[int, ...], ...] = ()
    """Per cell: itself (a wait) followed by its neighbours -- one time step's options."""
    _dist: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def from_instance(cls, instance: Instance) -> GridGraph:
        return cls.from_rows(instance.grid)

    @classmethod
    def from_rows(cls, grid: tuple[str, ...]) -> GridGraph:
        """The (shared, cached) graph of `grid`; treat it as read-only."""
        return _cached_graph(tuple(grid))

    @classmethod
    def build(cls, grid: tuple[str, ...]) -> GridGraph:
        """A fresh graph of `grid` (uncached)."""
        n = len(grid)
        free = tuple(ch != HOLE for row in grid for ch in row)
        nbrs: list[tuple[int, ...]] = []
        for v in range(n * n):
            r, c = divmod(v, n)
            if not free[v]:
                nbrs.append(())
                continue
            cand = ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))
            nbrs.append(
                tuple(
                    rr * n + cc
                    for rr, cc in cand
                    if 0 <= rr < n and 0 <= cc < n and free[rr * n + cc]
                )
            )
        steps = tuple((v, *nb) for v, nb in enumerate(nbrs))
        return cls(n, free, tuple(nbrs), steps)

    @property
    def size(self) -> int:
        return self.n * self.n

    def index(self, cell: Cell) -> int:
        return cell[0] * self.n + cell[1]

    def cell(self, v: int) -> Cell:
        return divmod(v, self.n)

    def to_path(self, vs: list[int]) -> Path:
        n = self.n
        return tuple(divmod(v, n) for v in vs)

    def dist_to(self, target: int) -> list[int]:
        """BFS distance of every cell to `target` (UNREACHABLE where cut off); cached."""
        table = self._dist.get(target)
        if table is None:
            table = [UNREACHABLE] * (self.n * self.n)
            table[target] = 0
            queue = deque((target,))
            nbrs = self.nbrs
            while queue:
                v = queue.popleft()
                d = table[v] + 1
                for w in nbrs[v]:
                    if table[w] == UNREACHABLE:
                        table[w] = d
                        queue.append(w)
            self._dist[target] = table
        return table


@lru_cache(maxsize=512)
def _cached_graph(grid: tuple[str, ...]) -> GridGraph:
    return GridGraph.build(grid)
