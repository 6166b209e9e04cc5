"""The generator's answer keys: every recorded optimum is the exact minimum of its objective.

Checked against the independent brute force (`brute_force.py`) as well as `find_optimum`, since a
generator bug that fed the solver the wrong objective would fool a comparison with the same
solver only if it were made there too. Configs are built both validated and with
`model_copy(update=...)`, which skips validation: with the plain string "makespan" as objective,
the solver once minimised SOC and recorded that plan's makespan as the makespan optimum.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from envdesign_common.field_errors import ConfigError
from mapf_env import SIZES, Instance, Objective, makespan, plan_cost, sum_of_costs
from mapf_env.config import EnvConfig, SizeConfig, random_config
from mapf_env.generator import fill_slots, generate, round_slots
from mapf_env.sampler import SlotSpec
from mapf_env.solver import SolveResult, find_optimum, solve
from mapf_env.verifier import check_plan
from tests.mapf_env import brute_force

BRUTE: dict[Objective, Callable[[Instance], int | None]] = {
    Objective.SOC: brute_force.optimal_soc,
    Objective.MAKESPAN: brute_force.optimal_makespan,
}

PINNED = Instance(
    grid=("......", "......", "......", "......", "......", "..H..."),
    starts=((2, 4), (3, 5)),
    goals=((5, 0), (4, 0)),
    id="r1-s6-i00096",
)
"""Round 1 of `random_config(0, samples=1000)` under makespan: the SOC-optimal plan the SOC search
finds (SOC 14) has makespan 8, the minimal makespan is 7 (also at SOC 14). The string objective
recorded 8, and training later raised `AnswerKeyError` on a valid plan of makespan 7."""


def spread(
    sizes: tuple[int, ...], samples: int, objective: Objective, **shared: object
) -> EnvConfig:
    """Equal budget over `sizes`, mostly conflict slots (where the objectives' optima differ)."""
    share = 1 / len(sizes)
    entries = {
        s: SizeConfig(ratio=share if s in sizes else 0.0, hole_ratio=0.2, wait_ratio=0.75)
        for s in SIZES
    }
    return EnvConfig(sizes=entries, samples=samples, objective=objective, **shared)


def assert_exact_keys(instances: tuple[Instance, ...], objective: Objective) -> None:
    """Each key: its objective, a valid plan of cost `cost`, and `cost` the exact minimum."""
    assert instances
    for inst in instances:
        key = inst.optimum
        assert key is not None and key.objective is objective
        assert key.cost == key.minimum(objective) == plan_cost(key.plan, objective)
        assert check_plan(inst, key.plan).valid
        bare = inst.without_optimum()
        assert key.cost == BRUTE[objective](bare), inst.id
        solved = find_optimum(bare, objective)
        assert not isinstance(solved, SolveResult) and solved.cost == key.cost, inst.id


def test_pinned_instance_gets_its_minimal_makespan_from_an_unvalidated_config() -> None:
    """The reported slot, through the generator's own slot path: key 7, not the SOC plan's 8."""
    config = random_config(0, samples=1000).model_copy(update={"objective": "makespan"})
    slots = [slot for slot in round_slots(config, 1) if slot[2] == PINNED.id]
    (outcome,) = fill_slots(slots, workers=1)
    inst = outcome.instance
    assert inst is not None and inst.without_optimum() == PINNED
    assert inst.optimum is not None and inst.optimum.objective is Objective.MAKESPAN
    assert inst.optimum.cost == inst.optimum.min_makespan == makespan(inst.optimum.plan) == 7
    assert brute_force.optimal_makespan(PINNED) == 7
    assert inst.optimum.soc == sum_of_costs(inst.optimum.plan)
    assert slots[0][0].objective is Objective.MAKESPAN  # the slot normalised the string


@pytest.mark.parametrize("objective", list(Objective))
def test_the_solver_reads_a_plain_string_objective_as_the_enum(objective: Objective) -> None:
    by_name = find_optimum(PINNED, objective.value)  # type: ignore[arg-type]
    by_enum = find_optimum(PINNED, objective)
    assert by_name == by_enum and not isinstance(by_enum, SolveResult)
    assert by_enum.cost == BRUTE[objective](PINNED)
    assert solve(PINNED, objective.value).cost == by_enum.cost  # type: ignore[arg-type]
    assert plan_cost(by_enum.plan, objective.value) == by_enum.cost  # type: ignore[arg-type]
    assert by_enum.minimum(objective.value) == by_enum.cost  # type: ignore[arg-type]


def test_an_unknown_objective_name_raises_instead_of_picking_one() -> None:
    with pytest.raises(ValueError, match="sco"):
        SlotSpec(5, 2, 0.2, True, "sco")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sco"):
        solve(PINNED, "sco")  # type: ignore[arg-type]
    config = random_config(0, samples=10).model_copy(update={"objective": "sco"})
    with pytest.raises(ConfigError, match="objective"):
        generate(config, 0, workers=1)


def test_an_unvalidated_config_gives_the_validated_round() -> None:
    valid = spread((4, 5), 40, Objective.MAKESPAN)
    copied = spread((4, 5), 40, Objective.SOC).model_copy(update={"objective": "makespan"})
    first, second = generate(valid, 3, workers=1), generate(copied, 3, workers=1)
    assert second.config.objective is Objective.MAKESPAN and second.config == valid
    assert second.instances == first.instances
    assert_exact_keys(second.instances, Objective.MAKESPAN)


@pytest.mark.parametrize("validated", [True, False], ids=["validated", "model_copy"])
@pytest.mark.parametrize("objective", list(Objective))
def test_generated_keys_are_exact_minima(objective: Objective, validated: bool) -> None:
    """Two agents on 3x3..7x7, three quarters of them conflict slots: 250 keys per objective,
    from a validated config and from one whose objective is a plain string."""
    config = spread((3, 4, 5, 6, 7), 250, objective)
    if not validated:
        other = Objective.SOC if objective is Objective.MAKESPAN else Objective.MAKESPAN
        base = config.model_copy(update={"objective": other})
        config = base.model_copy(update={"objective": objective.value})
    result = generate(config, 11, workers=1)
    assert len(result.instances) == 250
    assert_exact_keys(result.instances, objective)


@pytest.mark.slow
@pytest.mark.parametrize("objective", list(Objective))
@pytest.mark.parametrize(("n_agents", "sizes", "samples"), [(2, (3, 4, 5, 6, 7), 1000),
                                                             (3, (3, 4, 5), 300)])  # fmt: skip
def test_generated_keys_are_exact_minima_at_scale(
    objective: Objective, n_agents: int, sizes: tuple[int, ...], samples: int
) -> None:
    """The same on more and larger instances, three agents included (minutes: brute force)."""
    config = spread(sizes, samples, objective, n_agents=n_agents)
    assert_exact_keys(generate(config, 7, workers=2).instances, objective)
