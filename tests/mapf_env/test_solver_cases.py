"""Hand-made cases for the solver: known optima, unsolvable instances, limits, determinism."""

from __future__ import annotations

import random
import time

import pytest

from mapf_env import Instance, Objective, Optimum, first_conflict, makespan, sum_of_costs
from mapf_env.solver import (
    SolveResult,
    SolverLimits,
    SolveStatus,
    conflict_free_plan,
    find_optimum,
    individual_costs,
    needs_conflict_resolution,
    solve,
)


def make(grid: list[str], starts: list[tuple[int, int]], goals: list[tuple[int, int]]) -> Instance:
    return Instance(grid=tuple(grid), starts=tuple(starts), goals=tuple(goals))


def test_head_on_corridor_swap_is_unsolvable() -> None:
    inst = make(["...", "HHH", "HHH"], [(0, 0), (0, 2)], [(0, 2), (0, 0)])
    for objective in Objective:
        res = solve(inst, objective)
        assert res.status is SolveStatus.UNSOLVABLE and res.plan is None and res.reason
    assert needs_conflict_resolution(inst) is True
    assert conflict_free_plan(inst) is None


def test_three_agent_corridor_is_unsolvable_through_cbs_and_proof() -> None:
    # A separate free row makes too many placements for joint A*: CBS runs, the proof decides.
    grid = ["." * 10, "HHHHHHHHH.", "." * 10, "HHHHHHHHHH", "." * 10]
    grid += ["HHHHHHHHHH"] * 5
    inst = make(grid, [(0, 0), (0, 1), (2, 0)], [(0, 1), (0, 0), (2, 1)])
    res = solve(inst)
    assert res.status is SolveStatus.UNSOLVABLE, res
    assert res.method == "solvability"


def test_unreachable_goal_is_unsolvable() -> None:
    inst = make(["..H", "HHH", "..."], [(0, 0)], [(2, 2)])
    assert individual_costs(inst) is None
    assert needs_conflict_resolution(inst) is None
    res = solve(inst)
    assert res.status is SolveStatus.UNSOLVABLE and "agent 0" in res.reason


def test_two_agents_needing_a_wait() -> None:
    # Both want to cross the centre at t=1; one must wait one step.
    inst = make(["H.H", "...", "H.H"], [(1, 0), (0, 1)], [(1, 2), (2, 1)])
    assert individual_costs(inst) == (2, 2)
    assert conflict_free_plan(inst) is None
    res = solve(inst)
    assert res.status is SolveStatus.OPTIMAL and res.cost == 5 and res.plan is not None
    assert first_conflict(res.plan) is None
    assert solve(inst, Objective.MAKESPAN).cost == 3


def test_goal_in_dead_end() -> None:
    # Agent 0's goal is the end of a dead-end corridor that agent 1 must cross first.
    inst = make(["....", "HHH.", "HHH.", "HHH."], [(0, 0), (0, 1)], [(0, 3), (3, 3)])
    res = solve(inst)
    assert res.status is SolveStatus.OPTIMAL and res.plan is not None
    assert res.cost == 3 + 5 and first_conflict(res.plan) is None
    out = find_optimum(inst)
    assert isinstance(out, Optimum) and out.needs_conflict_resolution is False


def test_resting_agent_blocks_its_goal() -> None:
    # Agent 1 arrives at (0, 1) first; agent 0 must still pass it, so one of them detours.
    inst = make(["...", "...", "HHH"], [(0, 2), (1, 1)], [(0, 0), (0, 1)])
    res = solve(inst)
    assert res.status is SolveStatus.OPTIMAL and res.plan is not None
    assert res.cost == sum_of_costs(res.plan) == 4
    assert first_conflict(res.plan) is None


def test_conflict_free_instance_short_cuts() -> None:
    inst = make(["....", "....", "....", "...."], [(0, 0), (3, 3)], [(0, 3), (3, 0)])
    res = solve(inst)
    assert res.method == "conflict-free" and res.cost == 6
    out = find_optimum(inst, Objective.MAKESPAN)
    assert isinstance(out, Optimum) and out.cost == 3 and not out.needs_conflict_resolution


def _random_instance(rng: random.Random, n: int, k: int, holes: float) -> Instance:
    cells = [(r, c) for r in range(n) for c in range(n)]
    hole = {c for c in cells if rng.random() < holes}
    free = [c for c in cells if c not in hole]
    picks = rng.sample(free, 2 * k)
    grid = ["".join("H" if (r, c) in hole else "." for c in range(n)) for r in range(n)]
    return make(grid, picks[:k], picks[k:])


def test_limit_hit_returns_limit_quickly() -> None:
    rng = random.Random(3)
    hit = 0
    for _ in range(40):
        inst = _random_instance(rng, 10, 5, 0.2)
        start = time.perf_counter()
        res = solve(inst, limits=SolverLimits(max_nodes=50, time_limit_s=5))
        assert time.perf_counter() - start < 1.0
        if res.status is SolveStatus.LIMIT:
            hit += 1
            assert res.plan is None and "limit" in res.reason
    assert hit > 0
    res = solve(_random_instance(rng, 10, 5, 0.1), limits=SolverLimits(time_limit_s=0.0))
    assert res.status in (SolveStatus.LIMIT, SolveStatus.OPTIMAL)


def test_find_optimum_returns_failed_result() -> None:
    inst = make(["...", "HHH", "HHH"], [(0, 0), (0, 2)], [(0, 2), (0, 0)])
    out = find_optimum(inst)
    assert isinstance(out, SolveResult) and out.status is SolveStatus.UNSOLVABLE


@pytest.mark.parametrize("objective", list(Objective))
def test_deterministic(objective: Objective) -> None:
    rng = random.Random(11)
    cases = [_random_instance(rng, n, k, 0.25) for n, k in [(5, 3), (6, 4), (8, 5), (10, 5)]]
    first = [solve(inst, objective) for inst in cases]
    again = [solve(inst, objective) for inst in cases]
    for a, b in zip(first, again, strict=True):
        assert (a.status, a.plan, a.cost, a.nodes) == (b.status, b.plan, b.cost, b.nodes)


def test_larger_instances_are_valid_and_consistent() -> None:
    rng = random.Random(5)
    for n, k in [(6, 3), (7, 4), (8, 5), (10, 5), (10, 4)]:
        inst = _random_instance(rng, n, k, 0.2)
        soc = solve(inst, Objective.SOC)
        mk = solve(inst, Objective.MAKESPAN)
        if soc.status is SolveStatus.OPTIMAL:
            assert soc.plan is not None and first_conflict(soc.plan) is None
            assert mk.plan is not None and mk.status is SolveStatus.OPTIMAL
            assert sum_of_costs(soc.plan) <= sum_of_costs(mk.plan)
            assert makespan(mk.plan) <= makespan(soc.plan)
            ind = individual_costs(inst)
            assert ind is not None and soc.cost is not None and soc.cost >= sum(ind)


@pytest.mark.parametrize("name", ["5agents-s8-wr_075-i29", "5agents-s6-wr_075-i17"])
def test_the_flow_answers_where_cbs_under_makespan_stalls(name: str) -> None:
    """Two shipped instances on which CBS under makespan spends its node budget without an
    answer: `minimal_makespan` falls back to the flow, whose plan reaches the shipped key."""
    from mapf_env import load_suite
    from mapf_env.solver import MAKESPAN_CBS_NODES, exact_makespan, minimal_makespan

    item = next(i for i in load_suite("5agents").items if i.instance.id == name)
    key, bare = item.instance.optimum, item.instance.without_optimum()
    assert key is not None and key.min_makespan is not None
    stalled = solve(bare, Objective.MAKESPAN, SolverLimits(MAKESPAN_CBS_NODES, 3600.0))
    assert stalled.status is SolveStatus.LIMIT
    assert minimal_makespan(bare, key.makespan) == key.min_makespan
    value, plan = exact_makespan(bare, key.makespan)
    assert value == makespan(plan) == key.min_makespan and first_conflict(plan) is None
