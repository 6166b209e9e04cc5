"""Random lake layouts: where the holes go and where the agents stand.

A layout is sampled from a `random.Random` the caller seeds per instance, so one instance never
depends on another. Agents are placed inside the largest connected region of ice (the
"agents' component"): every agent can then reach its goal on its own, and the free cells cut
off from that region are reported as dead cells rather than silently wasted.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mapf_env.instance import HOLE, ICE, Cell
from mapf_env.solver import GridGraph


@dataclass(frozen=True, slots=True)
class Lake:
    """A sampled grid: rows, the agents' component (cell indices), dead cells, its graph."""

    size: int
    rows: tuple[str, ...]
    holes: int
    component: tuple[int, ...]
    dead_cells: int
    graph: GridGraph

    def cell(self, index: int) -> Cell:
        return divmod(index, self.size)


def sample_lake(rng: random.Random, size: int, holes: int) -> Lake:
    """Scatter `holes` holes uniformly and find the largest region of ice."""
    cells = size * size
    hole_set = set(rng.sample(range(cells), holes))
    rows = tuple(
        "".join(HOLE if r * size + c in hole_set else ICE for c in range(size)) for r in range(size)
    )
    graph = GridGraph.from_rows(rows)  # cached: the solver reuses it for this lake's instances
    seen = [False] * cells
    best: list[int] = []
    for start in range(cells):
        if graph.free[start] and not seen[start]:
            region = [start]
            seen[start] = True
            for u in region:
                for v in graph.nbrs[u]:
                    if not seen[v]:
                        seen[v] = True
                        region.append(v)
            if len(region) > len(best):
                best = region
    return Lake(size, rows, holes, tuple(sorted(best)), cells - holes - len(best), graph)


def place_random(rng: random.Random, lake: Lake, n_agents: int) -> list[tuple[int, int]]:
    """Distinct (start, goal) cell indices for each agent, all inside the component."""
    chosen = rng.sample(lake.component, 2 * n_agents)
    return [(chosen[2 * i], chosen[2 * i + 1]) for i in range(n_agents)]


def place_crossing(rng: random.Random, lake: Lake, n_agents: int) -> list[tuple[int, int]] | None:
    """Like `place_random`, but agent 1 is set to cross agent 0's shortest path at the same time.

    Conflicts are rare on open maps (about 1% of random 2-agent instances on 10x10), so a
    conflict quota filled by rejection alone wastes most samples. Putting agent 1 where one of
    its shortest paths meets agent 0's at the same step makes a conflict likely; the exact check
    still decides whether the instance counts.
    """
    graph = lake.graph
    s0, g0 = rng.sample(lake.component, 2)
    to_goal = graph.dist_to(g0)
    path = [s0]
    while path[-1] != g0:
        here = path[-1]
        steps = [v for v in graph.nbrs[here] if to_goal[v] == to_goal[here] - 1]
        path.append(rng.choice(steps))
    if len(path) < 3:
        return None
    t = rng.randrange(1, len(path) - 1)
    meet = path[t]
    from_meet = graph.dist_to(meet)
    used = {s0, g0}
    starts = [i for i in lake.component if from_meet[i] == t and i not in used]
    if not starts:
        return None
    s1 = rng.choice(starts)
    from_s1 = graph.dist_to(s1)
    goals = [
        i
        for i in lake.component
        if i not in used and i != s1 and from_meet[i] > 0 and from_s1[i] == t + from_meet[i]
    ]
    if not goals:
        return None
    pairs = [(s0, g0), (s1, rng.choice(goals))]
    taken = {cell for pair in pairs for cell in pair}
    rest = [i for i in lake.component if i not in taken]
    if len(rest) < 2 * (n_agents - 2):
        return None
    extra = rng.sample(rest, 2 * (n_agents - 2))
    pairs += [(extra[2 * i], extra[2 * i + 1]) for i in range(n_agents - 2)]
    return pairs
