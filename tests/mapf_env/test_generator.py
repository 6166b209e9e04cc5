"""The round generator: exact budgets, conflict targeting, determinism, impossible requests."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from envdesign_common.field_errors import ConfigError
from mapf_env import SIZES, Objective
from mapf_env.config import EnvConfig, SizeConfig, random_config
from mapf_env.generator import conflict_slots, generate, size_counts
from mapf_env.solver import needs_conflict_resolution
from mapf_env.verifier import check_plan


def only(size: int, samples: int, hole: float, wait: float, **shared: object) -> EnvConfig:
    """A config that spends the whole budget on one size."""
    sizes = {
        s: SizeConfig(ratio=1.0 if s == size else 0.0, hole_ratio=hole, wait_ratio=wait)
        for s in SIZES
    }
    return EnvConfig(sizes=sizes, samples=samples, **shared)  # type: ignore[arg-type]


@given(st.integers(0, 10_000), st.integers(1, 5000))
def test_size_counts_are_exact(seed: int, samples: int) -> None:
    config = random_config(seed, samples=samples)
    counts = size_counts(config)
    assert sum(counts.values()) == samples
    for s, n in counts.items():
        assert abs(n - config.sizes[s].ratio * samples) < 1


@given(st.integers(1, 400), st.floats(0, 1))
def test_conflict_slots_hit_the_share_and_are_prefix_stable(n: int, ratio: float) -> None:
    kinds = conflict_slots(n, ratio)
    assert abs(sum(kinds) - n * ratio) <= 0.5 + 1e-9
    assert conflict_slots(n + 7, ratio)[:n] == kinds


def test_every_instance_is_solved_checked_and_of_its_kind() -> None:
    config = random_config(11, samples=160)
    result = generate(config, seed=5, workers=1)
    assert len(result.instances) == 160
    for inst in result.instances:
        assert inst.optimum is not None
        verdict = check_plan(inst, inst.optimum.plan)
        assert verdict.valid and verdict.cost == inst.optimum.cost
        assert needs_conflict_resolution(inst) == inst.optimum.needs_conflict_resolution
        assert inst.optimum.soc >= sum(inst.optimum.individual)
    for stats in result.stats.sizes.values():
        if stats.requested:
            assert stats.kind_shortfall == 0
            n = stats.requested
            assert abs(stats.wait_ratio - stats.target_wait_ratio) <= 0.5 / n + 1e-9


def test_same_config_and_seed_give_identical_rounds() -> None:
    config = random_config(2, samples=120)
    first, second = generate(config, 9, workers=1), generate(config, 9, workers=1)
    assert first.instances == second.instances
    assert generate(config, 10, workers=1).instances != first.instances


def test_worker_processes_do_not_change_the_output() -> None:
    config = only(4, 240, hole=0.2, wait=0.5)
    assert generate(config, 3, workers=2).instances == generate(config, 3, workers=1).instances


def test_instance_i_does_not_depend_on_the_budget() -> None:
    small = generate(only(6, 30, 0.2, 0.5), 1, workers=1).instances
    large = generate(only(6, 70, 0.2, 0.5), 1, workers=1).instances
    assert large[:30] == small


def test_hole_share_is_met_when_possible() -> None:
    result = generate(only(8, 40, hole=0.3, wait=0.25), 4, workers=1)
    stats = result.stats.sizes[8]
    assert stats.hole_ratio == pytest.approx(round(0.3 * 64) / 64)
    assert stats.hole_relief == 0
    for inst in result.instances:
        assert len(inst.holes) == round(0.3 * 64)


def test_makespan_objective_is_recorded() -> None:
    result = generate(only(5, 20, 0.2, 0.5, objective=Objective.MAKESPAN), 0, workers=1)
    for inst in result.instances:
        assert inst.optimum is not None and inst.optimum.objective is Objective.MAKESPAN
        assert inst.optimum.cost == inst.optimum.makespan


def test_impossible_hole_share_is_relieved_and_reported() -> None:
    result = generate(only(3, 12, hole=0.5, wait=0.0, n_agents=3), 0, workers=1)
    stats = result.stats.sizes[3]
    assert stats.generated == 12
    assert stats.hole_ratio < 0.5 and stats.hole_relief == 12
    assert any("hole_ratio" in line for line in result.stats.shortfalls())


def test_impossible_conflict_share_falls_back_and_is_reported() -> None:
    # One agent can never conflict with anybody: every slot misses its kind, none hangs.
    result = generate(only(5, 8, hole=0.1, wait=1.0, n_agents=1), 0, workers=1)
    stats = result.stats.sizes[5]
    assert stats.generated == 8 and stats.kind_shortfall == 8 and stats.wait_ratio == 0.0
    assert any("wait_ratio" in line for line in result.stats.shortfalls())


def test_too_many_agents_for_a_map_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="3x3 cannot hold 5 agents"):
        generate(only(3, 10, hole=0.0, wait=0.0, n_agents=5), 0)


def test_dead_cells_are_counted() -> None:
    result = generate(only(10, 30, hole=0.5, wait=0.25), 0, workers=1)
    stats = result.stats.sizes[10]
    assert 0.0 < stats.dead_cell_ratio < 0.5
    assert math.isclose(stats.hole_ratio, 0.5)
