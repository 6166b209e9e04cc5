"""Conflict-Based Search (Sharon et al. 2015) with ICBS improvements, exact for SOC or makespan.

High level: a best-first search over constraint-tree nodes. Each node holds one cheapest path
per agent under that agent's constraints; its key is the objective's lower bound (sum of costs,
or the largest cost for makespan), then the number of conflicts. A node without conflicts is
optimal because every split is complete: any plan obeys the constraints of one of the two
children (the first agent avoids the clash, or the second does).

Improvements, each kept because it cut nodes in measurement and none affects optimality:
- conflict avoidance table: the low level picks, among cheapest paths, one with fewest clashes;
- prioritising conflicts: cardinal (both children's costs rise), then semi-cardinal, then the
  earliest, decided with MDDs (`_mdd.py`);
- bypassing (Boyarski et al. 2015): when a child's new path costs the same and leaves fewer
  conflicts, it replaces the parent's path instead of branching.

Agents rest on their goals for good, so a clash with a resting agent is a vertex conflict at the
goal; the branch forbidding the resting agent there pushes its arrival later (see
`Constraints.goal_free_from`).

`run` is resumable: it expands up to a given number of nodes and returns PENDING, so the caller
can interleave a solvability proof (CBS alone never proves unsolvability).
"""

from __future__ import annotations

import heapq
from dataclasses import replace
from typing import Final

from mapf_env.instance import Objective
from mapf_env.solver._grid_graph import GridGraph
from mapf_env.solver._mdd import mdd_layers
from mapf_env.solver._results import Budget
from mapf_env.solver._space_time_astar import ClashTable, Constraints, plan_path

PENDING: Final = "pending"
Conflict = tuple[int, int, int, int, int]
"""(a, b, t, u, v): a vertex clash in cell u at t when v == -1, else a swap (a: u->v, b: v->u)."""


def find_conflicts(paths: list[list[int]]) -> list[Conflict]:
    """All pairwise vertex and swap conflicts, ordered by time then agents."""
    k = len(paths)
    horizon = max(len(p) for p in paths)
    out: list[Conflict] = []
    prev: list[int] = []
    for t in range(horizon):
        pos = [p[t] if t < len(p) else p[-1] for p in paths]
        for i in range(k - 1):
            pi = pos[i]
            for j in range(i + 1, k):
                if pos[j] == pi:
                    out.append((i, j, t, pi, -1))
                elif prev and prev[j] == pi and prev[i] == pos[j]:
                    out.append((i, j, t - 1, prev[i], pi))
        prev = pos
    return out


def _conflict_order(conflict: Conflict) -> tuple[int, int, int]:
    """Where `find_conflicts` lists a conflict: a swap over t..t+1 is found at t + 1."""
    return conflict[2] + (conflict[4] != -1), conflict[0], conflict[1]


def agent_conflicts(paths: list[list[int]], agent: int) -> list[Conflict]:
    """The conflicts of `agent` with every other agent (unordered; see `_conflict_order`).

    A child changes one path, so its conflicts are the parent's without that agent plus these:
    k - 1 pairs instead of all k(k - 1)/2. Agents rest on distinct goals, so a pair cannot
    clash after the longer of its two paths.
    """
    out: list[Conflict] = []
    p = paths[agent]
    for other, q in enumerate(paths):
        if other == agent:
            continue
        i, j, a_path, b_path = (agent, other, p, q) if agent < other else (other, agent, q, p)
        la, lb = len(a_path) - 1, len(b_path) - 1
        prev_a = prev_b = -1
        for t in range(max(la, lb) + 1):
            a = a_path[t] if t <= la else a_path[la]
            b = b_path[t] if t <= lb else b_path[lb]
            if a == b:
                out.append((i, j, t, a, -1))
            elif a == prev_b and b == prev_a:
                out.append((i, j, t - 1, prev_a, a))
            prev_a, prev_b = a, b
    return out


_COVER_MAX_AGENTS = 12


def _min_vertex_cover(edges: set[tuple[int, int]]) -> int:
    """Size of a minimum vertex cover of a small graph (0 when it has too many vertices)."""
    if not edges:
        return 0
    verts = sorted({v for e in edges for v in e})
    if len(verts) > _COVER_MAX_AGENTS:
        return 0
    masks = [(1 << verts.index(a)) | (1 << verts.index(b)) for a, b in edges]
    best = len(verts)
    for cover in range(1 << len(verts)):
        size = cover.bit_count()
        if size < best and all(cover & m for m in masks):
            best = size
    return best


class _Node:
    __slots__ = ("conflicts", "cons", "costs", "h", "h_done", "key", "mdds", "paths")

    def __init__(
        self,
        paths: list[list[int]],
        costs: list[int],
        cons: list[Constraints],
        conflicts: list[Conflict] | None = None,
    ) -> None:
        self.paths = paths
        self.costs = costs
        self.cons = cons
        self.mdds: list[list[frozenset[int]] | None] = [None] * len(paths)
        self.conflicts = find_conflicts(paths) if conflicts is None else conflicts
        self.key: tuple[int, ...] = ()
        self.h = 0
        self.h_done = False


class CBS:
    """One CBS search over a fixed instance; call `run` until it returns a plan or None."""

    def __init__(
        self,
        graph: GridGraph,
        starts: list[int],
        goals: list[int],
        objective: Objective,
        budget: Budget,
        reasoning: bool = True,
    ) -> None:
        self.graph, self.starts, self.goals = graph, starts, goals
        self.reasoning = reasoning
        """Use target reasoning and the CG heuristic (off: the plain ICBS of earlier releases,
        whose tie-breaking the shipped suites' recorded makespans depend on)."""
        self.dists = [graph.dist_to(g) for g in goals]
        self.makespan = Objective(objective) is Objective.MAKESPAN  # a plain string too
        self.budget = budget
        self.size = graph.size
        self.seq = 0
        self.open: list[tuple[tuple[int, ...], int, _Node]] = []
        self.generated = 0
        root = self._root()
        if root is not None:
            self._push(root)

    def _root(self) -> _Node | None:
        paths: list[list[int]] = []
        for i in range(len(self.starts)):
            cat = ClashTable.build(paths, -1, self.size)
            path = self._low(i, Constraints(), cat)
            if path is None:
                return None
            paths.append(path)
        k = len(paths)
        return _Node(paths, [len(p) - 1 for p in paths], [Constraints()] * k)

    def _low(self, i: int, cons: Constraints, cat: ClashTable) -> list[int] | None:
        g = self.graph
        path, expanded = plan_path(
            g.steps, self.starts[i], self.goals[i], self.dists[i], cons, cat, self.size
        )
        self.budget.charge(expanded)
        return path

    def _push(self, node: _Node) -> None:
        soc = sum(node.costs)
        self.seq += 1
        if self.makespan:
            node.key = (max(node.costs), soc, len(node.conflicts), -self.seq)
        else:
            node.key = (soc + node.h, len(node.conflicts), -self.seq)
        heapq.heappush(self.open, (node.key, self.seq, node))

    def run(self, max_expansions: int) -> list[list[int]] | str | None:
        """Expand up to `max_expansions` nodes: a plan, None (proven unsolvable) or PENDING."""
        for _ in range(max_expansions):
            if not self.open:
                return None
            node = heapq.heappop(self.open)[2]
            if node.conflicts and not node.h_done and self.reasoning and not self.makespan:
                node.h_done = True
                node.h = self._cardinal_cover(node)
                if node.h:
                    self._push(node)  # popped again once its raised bound is the lowest
                    continue
            self.budget.charge()
            if not node.conflicts:
                return node.paths
            self._expand(node)
        return PENDING

    def _expand(self, node: _Node) -> None:
        while True:
            conflict = self._choose(node)
            children: list[_Node | None] = []
            for side in (0, 1):
                # A bypass adopts the first qualifying child, so once the first child
                # qualifies the second is never looked at: it is not even planned.
                children.append(self._child(node, conflict, side))
                if self._bypass(node, children[-1:]):
                    break
            else:
                for child in children:
                    if child is not None:
                        self._push(child)
                return
            if not node.conflicts:
                node.h = 0
                self._push(node)
                return

    def _bypass(self, node: _Node, children: list[_Node | None]) -> bool:
        """Adopt a child's equally cheap path with fewer conflicts into `node` (no branching)."""
        for child in children:
            if (
                child is not None
                and child.costs == node.costs
                and len(child.conflicts) < len(node.conflicts)
            ):
                # The new path obeys the parent's constraints at the same cost, so the
                # parent's MDDs (which depend only on constraints and cost) stay valid.
                node.paths = child.paths
                node.conflicts = child.conflicts
                return True
        return False

    def _child(self, node: _Node, conflict: Conflict, side: int) -> _Node | None:
        a, b, t, u, v = conflict
        agent = a if side == 0 else b
        old = node.cons[agent]
        if v == -1:
            cons = self._vertex_constraint(node, agent, b if side == 0 else a, t, u)
        else:
            src, dst = (u, v) if side == 0 else (v, u)
            key = (t * self.size + src) * self.size + dst
            cons = replace(old, move=old.move | {key}, last_time=max(old.last_time, t + 1))
        path = self._low(agent, cons, ClashTable.build(node.paths, agent, self.size))
        if path is None:
            return None
        paths = list(node.paths)
        paths[agent] = path
        costs = list(node.costs)
        costs[agent] = len(path) - 1
        all_cons = list(node.cons)
        all_cons[agent] = cons
        conflicts = [c for c in node.conflicts if c[0] != agent and c[1] != agent]
        conflicts += agent_conflicts(paths, agent)
        conflicts.sort(key=_conflict_order)
        child = _Node(paths, costs, all_cons, conflicts)
        child.mdds = list(node.mdds)
        child.mdds[agent] = None
        self.generated += 1
        return child

    def _cardinal_cover(self, node: _Node) -> int:
        """Admissible bound on the SOC still to be added below `node` (CBSH's CG heuristic).

        A conflict cardinal for both agents means that at least one of them must get dearer, so
        the smallest set of agents touching every such pair (a minimum vertex cover, exact by
        brute force over at most `_COVER_MAX_AGENTS` agents) bounds the increase from below.
        Computed lazily, when the node is first popped, so nodes never expanded cost nothing.
        """
        edges: set[tuple[int, int]] = set()
        for conflict in node.conflicts:
            a, b = conflict[0], conflict[1]
            if (
                (a, b) not in edges
                and self._cardinal(node, a, conflict)
                and self._cardinal(node, b, conflict)
            ):
                edges.add((a, b))
        return _min_vertex_cover(edges)

    def _vertex_constraint(
        self, node: _Node, agent: int, other: int, t: int, u: int
    ) -> Constraints:
        """`agent` may not be in `u` at `t`; for good from `t` when `other` rests there then.

        Target reasoning: if `other` is resting on its goal `u` at `t`, the branch that spares
        `other` covers exactly the plans where `other` arrives for good by `t`, and in all of
        those `u` stays occupied from `t` on -- so the whole tail can be forbidden at once
        instead of one time step per CBS split.
        """
        old = node.cons[agent]
        last = max(old.last_time, t)
        reasoning = self.reasoning
        if reasoning and u == self.goals[agent] and t >= node.costs[agent]:
            # The sibling of the branch below: `agent` arrives for good after `t`. (Plans
            # where it is in `u` at `t` and leaves again belong here, so `u` at `t` stays open.)
            goal_free = max(old.goal_free_from, t + 1)
            return replace(old, goal_free_from=goal_free, last_time=last)
        if reasoning and u == self.goals[other] and t >= node.costs[other]:
            blocked = dict(old.blocked)
            blocked[u] = min(blocked.get(u, t), t)
            return replace(old, blocked=blocked, last_time=last)
        goal_free = old.goal_free_from
        if u == self.goals[agent]:
            goal_free = max(goal_free, t + 1)
        return replace(
            old, vertex=old.vertex | {t * self.size + u}, goal_free_from=goal_free, last_time=last
        )

    def _choose(self, node: _Node) -> Conflict:
        """First cardinal conflict, else first semi-cardinal, else the earliest."""
        semi: Conflict | None = None
        for conflict in node.conflicts:
            a, b = conflict[0], conflict[1]
            ca, cb = self._cardinal(node, a, conflict), self._cardinal(node, b, conflict)
            if ca and cb:
                return conflict
            if (ca or cb) and semi is None:
                semi = conflict
        return semi if semi is not None else node.conflicts[0]

    def _cardinal(self, node: _Node, agent: int, conflict: Conflict) -> bool:
        """Every cheapest path of `agent` uses the conflicting cell (or move) at that time."""
        a, _b, t, u, v = conflict
        cost = node.costs[agent]
        if v == -1:
            return t >= cost or self._layer(node, agent, t) == frozenset((u,))
        src, dst = (u, v) if agent == a else (v, u)
        if t + 1 > cost:
            return False
        return self._layer(node, agent, t) == frozenset((src,)) and self._layer(
            node, agent, t + 1
        ) == frozenset((dst,))

    def _layer(self, node: _Node, agent: int, t: int) -> frozenset[int]:
        layers = node.mdds[agent]
        if layers is None:
            g = self.graph
            layers = mdd_layers(
                g.steps,
                self.starts[agent],
                self.goals[agent],
                self.dists[agent],
                node.costs[agent],
                node.cons[agent],
                self.size,
            )
            node.mdds[agent] = layers
        return layers[t]
