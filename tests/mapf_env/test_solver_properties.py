"""The solver against the independent brute-force joint search, on random small instances."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

from mapf_env import Instance, Objective, first_conflict, makespan, path_cost, sum_of_costs
from mapf_env.solver import (
    SolveStatus,
    conflict_free_plan,
    exact_makespan,
    find_optimum,
    individual_costs,
    needs_conflict_resolution,
    solve,
)
from tests.mapf_env import brute_force


@st.composite
def small_instances(draw: st.DrawFn) -> Instance:
    """Grids 2..4, 1..3 agents, random holes; joint spaces kept small enough for brute force."""
    n = draw(st.integers(2, 4))
    cells = [(r, c) for r in range(n) for c in range(n)]
    k = draw(st.integers(1, min(3, n * n // 2)))
    holes = draw(st.sets(st.sampled_from(cells), max_size=n * n - 2 * k))
    free = [c for c in cells if c not in holes]
    assume(len(free) >= 2 * k and len(free) ** k <= 2000)
    chosen = draw(st.permutations(free))[: 2 * k]
    grid = tuple("".join("H" if (r, c) in holes else "." for c in range(n)) for r in range(n))
    return Instance(grid=grid, starts=tuple(chosen[:k]), goals=tuple(chosen[k:]))


def assert_valid_plan(instance: Instance, plan: tuple[tuple[tuple[int, int], ...], ...]) -> None:
    assert len(plan) == instance.n_agents
    for path, start, goal in zip(plan, instance.starts, instance.goals, strict=True):
        assert path[0] == start and path[-1] == goal
        for a, b in itertools.pairwise(path):
            assert abs(a[0] - b[0]) + abs(a[1] - b[1]) <= 1
        assert all(instance.is_free(c) for c in path)
    assert first_conflict(plan) is None


SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


@SETTINGS
@given(small_instances())
def test_soc_matches_brute_force(instance: Instance) -> None:
    expected = brute_force.optimal_soc(instance)
    res = solve(instance, Objective.SOC)
    if expected is None:
        assert res.status is SolveStatus.UNSOLVABLE and res.plan is None
        return
    assert res.status is SolveStatus.OPTIMAL and res.plan is not None
    assert res.cost == expected == sum_of_costs(res.plan)
    assert_valid_plan(instance, res.plan)


@SETTINGS
@given(small_instances())
def test_makespan_matches_brute_force(instance: Instance) -> None:
    expected = brute_force.optimal_makespan(instance)
    res = solve(instance, Objective.MAKESPAN)
    if expected is None:
        assert res.status is SolveStatus.UNSOLVABLE
        return
    assert res.status is SolveStatus.OPTIMAL and res.plan is not None
    assert res.cost == expected == makespan(res.plan)
    assert_valid_plan(instance, res.plan)


@SETTINGS
@given(small_instances())
def test_conflict_free_plan_is_exact(instance: Instance) -> None:
    lengths = [brute_force.shortest_length(instance, i) for i in range(instance.n_agents)]
    ind = individual_costs(instance)
    plan = conflict_free_plan(instance)
    if None in lengths:
        assert ind is None and plan is None and needs_conflict_resolution(instance) is None
        return
    assert ind == tuple(lengths)
    best = brute_force.optimal_soc(instance)
    exists = best is not None and best == sum(ind)
    assert (plan is not None) == exists
    assert needs_conflict_resolution(instance) is (not exists)
    if plan is not None:
        assert_valid_plan(instance, plan)
        assert tuple(path_cost(p) for p in plan) == ind


@SETTINGS
@given(small_instances(), st.sampled_from(list(Objective)))
def test_find_optimum_record(instance: Instance, objective: Objective) -> None:
    out = find_optimum(instance, objective)
    if not hasattr(out, "plan") or getattr(out, "status", None) is not None:
        assert out.status is SolveStatus.UNSOLVABLE  # type: ignore[union-attr]
        return
    assert out.objective is objective
    assert out.soc == sum_of_costs(out.plan) and out.makespan == makespan(out.plan)
    assert out.cost == (out.soc if objective is Objective.SOC else out.makespan)
    assert out.individual == individual_costs(instance)
    best = brute_force.optimal_soc(instance)
    assert out.needs_conflict_resolution is (best != sum(out.individual))
    assert_valid_plan(instance, out.plan)


@SETTINGS
@given(small_instances(), st.sampled_from(list(Objective)))
def test_both_minima_match_brute_force(instance: Instance, objective: Objective) -> None:
    """`both=True` records each objective's exact minimum from its own search; the brute-force
    joint search of each objective agrees, and so does the verifier on the record's plan."""
    out = find_optimum(instance, objective, both=True)
    soc, span = brute_force.optimal_soc(instance), brute_force.optimal_makespan(instance)
    if not hasattr(out, "plan") or getattr(out, "status", None) is not None:
        assert soc is None and span is None
        return
    assert (out.min_soc, out.min_makespan) == (soc, span)
    assert out.minimum(objective) == out.cost
    assert out.min_makespan is not None and out.min_makespan <= out.makespan
    assert out.min_soc is not None and out.min_soc <= out.soc


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(small_instances(), st.sampled_from(list(Objective)))
def test_an_objective_by_name_is_the_objective(instance: Instance, objective: Objective) -> None:
    """A plain string (what an unvalidated `model_copy` leaves in a config) solves for the
    objective it names: the engines once compared by identity, so "makespan" ran CBS for SOC
    and priced that plan by its makespan, a key above the true minimum."""
    by_name = solve(instance, objective.value)  # type: ignore[arg-type]
    by_enum = solve(instance, objective)
    assert by_name.objective is objective and by_name.status is by_enum.status
    assert (by_name.cost, by_name.plan) == (by_enum.cost, by_enum.plan)
    key = find_optimum(instance, objective.value)  # type: ignore[arg-type]
    if by_enum.plan is not None:
        assert key == find_optimum(instance, objective)


@SETTINGS
@given(small_instances())
def test_makespan_flow_matches_brute_force(instance: Instance) -> None:
    """The time-expanded flow (the suites' makespan keys) against the brute-force search."""
    expected = brute_force.optimal_makespan(instance)
    known = solve(instance, Objective.SOC)
    if expected is None or known.plan is None:
        assert expected is None and known.plan is None
        return
    value, plan = exact_makespan(instance, makespan(known.plan))
    assert value == expected == makespan(plan)
    assert_valid_plan(instance, plan)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(small_instances(), st.sampled_from(list(Objective)))
def test_many_more_against_brute_force(instance: Instance, objective: Objective) -> None:
    if objective is Objective.SOC:
        expected = brute_force.optimal_soc(instance)
    else:
        expected = brute_force.optimal_makespan(instance)
    res = solve(instance, objective)
    assert res.cost == expected


def _engine_cost(instance: Instance, objective: Objective, engine: str) -> int | None:
    """Run one exact engine directly (the public `solve` picks joint A* on maps this small)."""
    from mapf_env.solver._cbs import CBS, PENDING
    from mapf_env.solver._grid_graph import GridGraph
    from mapf_env.solver._joint import joint_search
    from mapf_env.solver._results import Budget, BudgetExceeded, SolverLimits
    from mapf_env.solver._solvability import is_solvable

    graph = GridGraph.from_instance(instance)
    starts = [graph.index(c) for c in instance.starts]
    goals = [graph.index(c) for c in instance.goals]
    budget = Budget(SolverLimits(max_nodes=200_000, time_limit_s=60))
    if engine == "joint":
        try:
            paths = joint_search(graph, starts, goals, objective, budget)
        except BudgetExceeded:
            reject()  # only the densest 4x4 cases with five agents get here
    elif engine == "solvability":
        return int(bool(is_solvable(graph, starts, goals, budget, 10**6)))
    else:
        try:
            found = CBS(graph, starts, goals, objective, budget).run(10**6)
        except BudgetExceeded:
            reject()  # CBS stalls on some dense corridors; `solve` uses joint A* there
        assert found != PENDING
        paths = None if found is None else list(found)
    if paths is None:
        return None
    plan = tuple(graph.to_path(p) for p in paths)
    assert_valid_plan(instance, plan)
    return sum_of_costs(plan) if objective is Objective.SOC else makespan(plan)


@SETTINGS
@given(small_instances(), st.sampled_from(list(Objective)))
def test_cbs_engine_matches_brute_force(instance: Instance, objective: Objective) -> None:
    if objective is Objective.SOC:
        expected = brute_force.optimal_soc(instance)
    else:
        expected = brute_force.optimal_makespan(instance)
    assume(expected is not None)  # CBS alone cannot prove unsolvability
    assert _engine_cost(instance, objective, "cbs") == expected


@SETTINGS
@given(small_instances(), st.sampled_from(list(Objective)))
def test_joint_engine_matches_brute_force(instance: Instance, objective: Objective) -> None:
    if objective is Objective.SOC:
        expected = brute_force.optimal_soc(instance)
    else:
        expected = brute_force.optimal_makespan(instance)
    assert _engine_cost(instance, objective, "joint") == expected


@SETTINGS
@given(small_instances())
def test_solvability_proof_matches_brute_force(instance: Instance) -> None:
    expected = brute_force.optimal_makespan(instance) is not None
    assert _engine_cost(instance, Objective.SOC, "solvability") == int(expected)


@st.composite
def dense_instances(draw: st.DrawFn) -> Instance:
    """3x3 and 4x4 grids with 3..5 agents: beyond brute force's reach, within joint A*'s."""
    n = draw(st.integers(3, 4))
    cells = [(r, c) for r in range(n) for c in range(n)]
    k = draw(st.integers(3, min(5, n * n // 2)))
    holes = draw(st.sets(st.sampled_from(cells), max_size=n * n - 2 * k))
    free = [c for c in cells if c not in holes]
    assume(len(free) >= 2 * k)
    chosen = draw(st.permutations(free))[: 2 * k]
    grid = tuple("".join("H" if (r, c) in holes else "." for c in range(n)) for r in range(n))
    return Instance(grid=grid, starts=tuple(chosen[:k]), goals=tuple(chosen[k:]))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(dense_instances(), st.sampled_from(list(Objective)))
def test_cbs_and_joint_agree_on_dense_maps(instance: Instance, objective: Objective) -> None:
    joint = _engine_cost(instance, objective, "joint")
    assume(joint is not None)
    assert _engine_cost(instance, objective, "cbs") == joint
