"""The solver's public entry points: cheap checks first, then an exact search.

`solve` proceeds from cheapest to dearest, and every step is exact:
1. BFS per agent: an agent that cannot reach its goal makes the instance unsolvable.
2. `conflict_free_paths`: if the agents' shortest paths can be combined without conflicts, that
   plan is optimal for both objectives (each agent's cost is already its minimum).
3. Joint A* (`_joint.py`) also proves unsolvability, by exhausting its finite space.
4. Otherwise CBS (`_cbs.py`) first. If a short probe does not finish it, two agents switch to
   joint A*; more agents alternate ever longer CBS runs with ever larger attempts at the
   configuration-reachability proof (`_solvability.py`), since CBS never proves unsolvability.
   Dense small maps (few placements of the agents) also switch to joint A*.
A spent node or time budget ends any step with status LIMIT and a reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mapf_env.instance import Instance, Objective, Optimum, Plan
from mapf_env.paths import makespan, plan_cost, sum_of_costs
from mapf_env.solver._cbs import CBS, PENDING
from mapf_env.solver._conflict_free import conflict_free_paths
from mapf_env.solver._grid_graph import UNREACHABLE, GridGraph
from mapf_env.solver._joint import joint_search
from mapf_env.solver._makespan_flow import min_makespan
from mapf_env.solver._results import Budget, BudgetExceeded, SolveResult, SolverLimits, SolveStatus
from mapf_env.solver._solvability import SolvabilityProof
from mapf_env.verifier import check_plan

CBS_PROBE_NODES = 48
"""CT nodes CBS may expand before the solvability proof is run (most instances need fewer)."""
SOLVABILITY_FIRST_STATES = 500
SOLVABILITY_MAX_STATES = 500_000
"""The solvability proof is tried with a growing cap on stored configurations, between ever
longer CBS runs, so neither starves the other; past the largest cap solvability stays unknown.
The proof is resumed, not restarted, by each larger attempt. A small first cap keeps the proof
a small share of solvable instances' time (on solvable ones it is pure overhead: from 2,000 to
500 cut the 5-agent suites' solve time by about a tenth). The price: an unsolvable instance
whose proof needs more than 500 configurations gets it one CBS round later (rebuilding the
shipped suites meets no new node limit)."""
JOINT_MAX_CONFIGS = 20_000
"""Joint A* takes over from a stalled CBS probe when the agents have at most this many
placements (dense small maps, where CBS can stall on corridor and goal conflicts)."""


@dataclass(slots=True)
class _Prepared:
    graph: GridGraph
    starts: list[int]
    goals: list[int]
    individual: tuple[int, ...] | None


def _prepare(instance: Instance) -> _Prepared:
    graph = GridGraph.from_instance(instance)
    starts = [graph.index(c) for c in instance.starts]
    goals = [graph.index(c) for c in instance.goals]
    costs = [graph.dist_to(g)[s] for s, g in zip(starts, goals, strict=True)]
    individual = None if UNREACHABLE in costs else tuple(costs)
    return _Prepared(graph, starts, goals, individual)


def individual_costs(instance: Instance) -> tuple[int, ...] | None:
    """Each agent's BFS shortest-path length ignoring the others; None if one cannot arrive."""
    return _prepare(instance).individual


def _conflict_free(prep: _Prepared) -> Plan | None:
    if prep.individual is None:
        return None
    paths = conflict_free_paths(prep.graph, prep.starts, prep.goals, list(prep.individual))
    return None if paths is None else tuple(prep.graph.to_path(p) for p in paths)


def conflict_free_plan(instance: Instance) -> Plan | None:
    """A conflict-free plan made of each agent's shortest paths, or None when none exists.

    Exact: None means no combination of shortest paths avoids every conflict (agents resting on
    their goals included), i.e. the optimal SOC exceeds the sum of individual costs, or some
    agent cannot reach its goal at all.
    """
    return _conflict_free(_prepare(instance))


def needs_conflict_resolution(instance: Instance) -> bool | None:
    """True when no conflict-free combination of shortest paths exists; None when some agent
    cannot reach its goal even alone. (An instance unsolvable only through the agents' mutual
    blocking also gives True: its optimum is infinite.)"""
    prep = _prepare(instance)
    if prep.individual is None:
        return None
    return _conflict_free(prep) is None


def solve(
    instance: Instance, objective: Objective = Objective.SOC, limits: SolverLimits | None = None
) -> SolveResult:
    """Exact optimum of `objective` with a plan, a proof of unsolvability, or LIMIT."""
    return _solve(instance, objective, limits or SolverLimits())[0]


def _solve(
    instance: Instance, objective: Objective, limits: SolverLimits
) -> tuple[SolveResult, _Prepared, bool]:
    """The result, the prepared instance, and whether the plan is conflict-free shortest paths.

    `objective` goes through `Objective(...)` first: the engines tell the objectives apart by
    identity (`is Objective.MAKESPAN`), and a plain string "makespan" (a config changed with
    `model_copy(update=...)`, which skips validation) would otherwise make CBS minimise SOC
    while the result priced that SOC-optimal plan by its makespan -- a wrong "optimum".
    """
    objective = Objective(objective)
    budget = Budget(limits)
    prep = _prepare(instance)

    def result(
        status: SolveStatus, method: str, paths: list[list[int]] | None = None, reason: str = ""
    ) -> SolveResult:
        plan = None if paths is None else tuple(prep.graph.to_path(p) for p in paths)
        cost = None if plan is None else plan_cost(plan, objective)
        return SolveResult(
            status, objective, plan, cost, budget.nodes, budget.elapsed(), method, reason
        )

    if prep.individual is None:
        stuck = [i for i, _ in enumerate(prep.starts) if _unreachable(prep, i)]
        why = f"agent {stuck[0]} cannot reach its goal even alone"
        return result(SolveStatus.UNSOLVABLE, "bfs", reason=why), prep, False
    free = conflict_free_paths(prep.graph, prep.starts, prep.goals, list(prep.individual))
    if free is not None:
        return result(SolveStatus.OPTIMAL, "conflict-free", free), prep, True
    log: list[str] = []
    try:
        paths = _search(prep, objective, budget, log)
    except BudgetExceeded as exc:
        why = f"{exc.what} during {log[-1]}"
        if log[-1].startswith("cbs") and "cbs" in log and "solvability" not in log:
            why += "; solvability not checked yet"
        elif "unknown" in log[-1]:
            why += "; solvability not proven (configuration space too large)"
        return result(SolveStatus.LIMIT, log[-1], reason=why), prep, False
    method = log[-1].split(" ")[0]
    if paths is None:
        why = "the goal configuration is unreachable from the start configuration"
        return result(SolveStatus.UNSOLVABLE, method, reason=why), prep, False
    return result(SolveStatus.OPTIMAL, method, paths), prep, False


def _unreachable(prep: _Prepared, i: int) -> bool:
    return prep.graph.dist_to(prep.goals[i])[prep.starts[i]] == UNREACHABLE


def _joint_fits(prep: _Prepared) -> bool:
    """Two agents, or few enough placements of the agents on the free cells for joint A*."""
    k = len(prep.starts)
    return k <= 2 or math.perm(sum(prep.graph.free), k) <= JOINT_MAX_CONFIGS


def _search(
    prep: _Prepared, objective: Objective, budget: Budget, log: list[str]
) -> list[list[int]] | None:
    """Exact search; None when unsolvable. `log` collects the engines run, in order.

    CBS goes first (fast when agents interact little). If it has not finished after a short
    probe, two agents, and dense small maps, switch to joint A* (exact, finite, immune to
    symmetric head-on stalls); otherwise solvability proofs are interleaved with CBS.
    """
    g, starts, goals = prep.graph, prep.starts, prep.goals
    log.append("cbs")
    cbs = CBS(g, starts, goals, objective, budget)
    found = cbs.run(CBS_PROBE_NODES)
    if found == PENDING and _joint_fits(prep):
        log.append("joint-astar")
        return joint_search(g, starts, goals, objective, budget)
    proven: bool | None = None
    proof: SolvabilityProof | None = None  # resumed, never restarted, by each larger attempt
    states, nodes = SOLVABILITY_FIRST_STATES, CBS_PROBE_NODES
    while found == PENDING:
        if proven is None and states <= SOLVABILITY_MAX_STATES:
            log.append("solvability")
            proof = proof or SolvabilityProof(g, starts, goals)
            proven = proof.run(budget, states)
            if proven is False:
                return None
            log.append("cbs" if proven else "cbs (solvability unknown)")
        states, nodes = states * 4, nodes * 4
        found = cbs.run(nodes)
    assert not isinstance(found, str)
    return found


def find_optimum(
    instance: Instance,
    objective: Objective = Objective.SOC,
    limits: SolverLimits | None = None,
    *,
    both: bool = False,
) -> Optimum | SolveResult:
    """The generator's one call: the instance's `Optimum` record, or the failed `SolveResult`.

    With `both`, the other objective is solved too (its own exact search, not read off this
    plan: the makespan by `minimal_makespan`, the SOC by CBS) and its minimum recorded, so a
    verdict can say whether an answer is optimal under each; a limit in that second solve is
    returned like the first one's.
    """
    limits = limits or SolverLimits()
    objective = Objective(objective)  # a plain string too (see `_solve`); `other` below needs it
    res, prep, conflict_free = _solve(instance, objective, limits)
    if res.status is not SolveStatus.OPTIMAL or res.plan is None or res.cost is None:
        return res
    assert prep.individual is not None
    minima = {objective: res.cost}
    if both:
        other = Objective.MAKESPAN if objective is Objective.SOC else Objective.SOC
        if conflict_free:  # every agent on its own shortest path: optimal for both objectives
            minima[other] = plan_cost(res.plan, other)
        elif other is Objective.MAKESPAN:
            minima[other] = minimal_makespan(instance, makespan(res.plan))
        else:
            second = _solve(instance, other, limits)[0]
            if second.status is not SolveStatus.OPTIMAL or second.cost is None:
                return second
            minima[other] = second.cost
    return Optimum(
        objective=objective,
        cost=res.cost,
        soc=sum_of_costs(res.plan),
        makespan=makespan(res.plan),
        individual=prep.individual,
        needs_conflict_resolution=not conflict_free,
        plan=res.plan,
        min_soc=minima.get(Objective.SOC),
        min_makespan=minima.get(Objective.MAKESPAN),
    )


def exact_makespan(instance: Instance, upper: int) -> tuple[int, Plan]:
    """The exact minimal makespan and a plan of it, by the time-expanded flow
    (`_makespan_flow.py`), given that some valid plan of makespan `upper` exists.

    For suite answer keys: unlike CBS under makespan it finishes on every shipped instance.
    The plan is re-checked by the verifier's eight checks, so a solver bug
    raises instead of writing a wrong minimum into a benchmark.
    """
    prep = _prepare(instance)
    value, paths = min_makespan(prep.graph, prep.starts, prep.goals, upper)
    plan = tuple(prep.graph.to_path(p) for p in paths)
    if not check_plan(instance.without_optimum(), plan).valid or makespan(plan) > value:
        raise AssertionError(f"instance {instance.id}: the makespan flow returned a bad plan")
    return value, plan


MAKESPAN_CBS_NODES = 50_000
"""CBS under makespan gets this many nodes before the flow takes over in `minimal_makespan`:
enough for 94.5% (5 agents) to 100% (validation) of the suites' conflict instances, where CBS
answers in about a millisecond and the flow in about a tenth of a second (median; see
benchmarks/bench_solver.py --makespan). A node budget, not a clock, so which engine answers
does not depend on the machine (and both are exact, so the value never does)."""


def minimal_makespan(instance: Instance, upper: int) -> int:
    """The exact minimal makespan: CBS under makespan when it finishes within
    `MAKESPAN_CBS_NODES`, else the flow (`exact_makespan`), given a valid plan of makespan
    `upper` (the flow's upper bound)."""
    quick = _solve(instance, Objective.MAKESPAN, SolverLimits(MAKESPAN_CBS_NODES, 3600.0))[0]
    if quick.status is SolveStatus.OPTIMAL and quick.cost is not None:
        return quick.cost
    return exact_makespan(instance, upper)[0]
