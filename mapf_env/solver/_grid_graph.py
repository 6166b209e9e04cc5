"""Integer-indexed view of an instance's grid, shared by every search in the solver.

Searches run in hot Python loops, so cells become ints ``v = row * n + col`` and the grid
becomes a tuple of neighbour tuples (4-neighbours that are on the grid and not holes, always in
the fixed order up, left, right, down, so every search expands in a deterministic order).
Breadth-first distance tables to each goal are the admissible heuristic of every A* here and
the layer test of every MDD (multi-valued decision diagram of shortest paths).

The generator asks about many candidate instances on one grid (and twice per candidate), and
building the table costs a good share of a cheap solve, so graphs are cached per grid rows
(`from_rows`), and each graph caches its distance tables: both are pure functions of the grid.
Benchmark suites bring a new grid with every instance, so building must be cheap too: the
neighbour table is the open grid's (cached per size) filtered by the free cells, and the
one-step table (`steps`, used only by CBS) is built on first use.
"""

from __future__ import annotations

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
    _steps: tuple[tuple[int, ...], ...] | None = None
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
        free = tuple([ch != HOLE for ch in "".join(grid)])
        nbrs = tuple(
            [
                tuple([w for w in around if free[w]]) if ok else ()
                for around, ok in zip(_open_grid(n), free, strict=True)
            ]
        )
        return cls(n, free, nbrs)

    @property
    def steps(self) -> tuple[tuple[int, ...], ...]:
        """Per cell: itself (a wait) followed by its neighbours -- one time step's options."""
        if self._steps is None:
            self._steps = tuple([(v, *nb) for v, nb in enumerate(self.nbrs)])
        return self._steps

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
            nbrs = self.nbrs
            layer, d = [target], 0
            while layer:  # one BFS layer at a time: plain lists, no per-cell distance lookups
                d += 1
                nxt = []
                for v in layer:
                    for w in nbrs[v]:
                        if table[w] == UNREACHABLE:
                            table[w] = d
                            nxt.append(w)
                layer = nxt
            self._dist[target] = table
        return table


@lru_cache(maxsize=512)
def _cached_graph(grid: tuple[str, ...]) -> GridGraph:
    return GridGraph.build(grid)


@lru_cache(maxsize=16)
def _open_grid(n: int) -> tuple[tuple[int, ...], ...]:
    """Neighbours of every cell of an n x n grid without holes, in the order up, left, right,
    down."""
    out = []
    for v in range(n * n):
        r, c = divmod(v, n)
        cand = ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))
        out.append(tuple(rr * n + cc for rr, cc in cand if 0 <= rr < n and 0 <= cc < n))
    return tuple(out)
