"""`matched`: the benchmarks' own mix, checked against the shipped suites counted by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction

import pytest

import designers.builtin.matched as matched_module
from designers import (
    DesignerOptionsError,
    create_designer,
    designer_option_problems,
    sample_contexts,
)
from designers.builtin import MatchedDesigner, benchmark_mix
from mapf_env import (
    BENCHMARK_SUITES,
    SIZES,
    BenchmarkItem,
    BenchmarkSuite,
    EnvConfig,
    Instance,
    Objective,
    Optimum,
    find_optimum,
    load_suite,
)
from tasks.mapf_frozenlake import MapfFrozenLake

MAPF = MapfFrozenLake()

SUITE_SIZES = {"3agents": range(3, 11), "4agents": range(4, 11), "5agents": range(5, 11)}


@pytest.fixture(autouse=True)
def fresh_mix() -> Iterator[None]:
    """Every test computes the mix itself, and leaves no mix of its own suites behind."""
    benchmark_mix.cache_clear()
    yield
    benchmark_mix.cache_clear()


def hand_mix(suites: tuple[str, ...]) -> dict[int, tuple[float, float]]:
    """(hole share, wait share) per size: holes counted as 'H' characters of the grid rows, and
    conflict resolution decided by the rules' definition (docs/tasks/mapf-frozenlake.md) on the
    answer key's numbers."""
    holes: dict[int, Fraction] = {}
    waits: dict[int, Fraction] = {}
    counts: dict[int, int] = {}
    for name in suites:
        for item in load_suite(name).items:
            grid = item.instance.grid
            optimum = item.instance.optimum
            assert optimum is not None and optimum.min_soc is not None
            size = len(grid)
            counts[size] = counts.get(size, 0) + 1
            share = Fraction("".join(grid).count("H"), size * size)
            holes[size] = holes.get(size, Fraction(0)) + share
            waits[size] = waits.get(size, Fraction(0)) + (optimum.min_soc > sum(optimum.individual))
    return {s: (float(holes[s] / counts[s]), float(waits[s] / counts[s])) for s in counts}


def test_the_default_mix_is_the_benchmarks_counted_by_hand() -> None:
    config = MatchedDesigner().initial_config(EnvConfig.uniform(), 0, MAPF)
    assert config is not None
    # 150 instances per (agent count, size): 3x3 is in one suite, 4x4 in two, the rest in three
    covering = {s: sum(s in sizes for sizes in SUITE_SIZES.values()) for s in SIZES}
    assert covering == {3: 1, 4: 2, 5: 3, 6: 3, 7: 3, 8: 3, 9: 3, 10: 3}
    assert {s: config.sizes[s].ratio for s in SIZES} == {s: k / 21 for s, k in covering.items()}
    by_hand = hand_mix(BENCHMARK_SUITES)
    for size in SIZES:
        hole, wait = by_hand[size]
        assert config.sizes[size].hole_ratio == pytest.approx(hole, abs=1e-12), size
        assert config.sizes[size].wait_ratio == pytest.approx(wait, abs=1e-12), size
    assert benchmark_mix().instances == {s: 150 * k for s, k in covering.items()}
    assert benchmark_mix().clipped == ()  # the module docstring says so


def test_hole_shares_come_from_the_grids_not_the_labels() -> None:
    items = [i for i in load_suite("3agents").items if i.size == 3]
    labelled = sum(item.hole_ratio for item in items) / len(items)
    measured = benchmark_mix(("3agents",)).sizes[3].hole_ratio
    assert labelled == pytest.approx(0.3)
    assert measured == pytest.approx(hand_mix(("3agents",))[3][0])
    assert measured < labelled - 0.02  # a 3x3 grid cannot hold every nominal share


def test_sizes_outside_the_suites_get_no_budget_and_the_pooled_shares() -> None:
    mix = benchmark_mix(("5agents",))
    by_hand = hand_mix(("5agents",))
    assert mix.instances == {3: 0, 4: 0, **{s: 150 for s in range(5, 11)}}
    assert [mix.sizes[s].ratio for s in SIZES] == [0.0, 0.0] + [1 / 6] * 6
    pooled_holes = sum(by_hand[s][0] for s in range(5, 11)) / 6  # equal counts per size
    pooled_waits = sum(by_hand[s][1] for s in range(5, 11)) / 6
    for size in (3, 4):
        assert mix.sizes[size].hole_ratio == pytest.approx(pooled_holes, abs=1e-12)
        assert mix.sizes[size].wait_ratio == pytest.approx(pooled_waits, abs=1e-12)


def test_the_mix_is_kept_every_round_with_the_experiments_own_fields() -> None:
    designer = create_designer("matched")
    assert isinstance(designer, MatchedDesigner)
    base = EnvConfig.uniform(n_agents=2, samples=123, objective=Objective.MAKESPAN)
    start = designer.initial_config(base, 7, MAPF)
    assert start is not None
    assert (start.n_agents, start.samples, start.objective) == (2, 123, Objective.MAKESPAN)
    assert start.sizes == benchmark_mix().sizes
    for ctx in sample_contexts():
        proposal = designer.propose(ctx)
        assert proposal.config.sizes == benchmark_mix().sizes
        assert proposal.config.samples == ctx.config.samples
        assert proposal.notes == ()  # the mix is legal as it stands
        assert proposal.rationale == "fixed mix of 3agents, 4agents, 5agents"


def test_the_mix_is_the_same_in_a_fresh_process() -> None:
    here = benchmark_mix()
    code = (
        "from designers.builtin import benchmark_mix; import json; "
        "print(json.dumps(benchmark_mix().model_dump(mode='json')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
    )  # fmt: skip
    assert json.loads(out.stdout) == here.model_dump(mode="json")
    benchmark_mix.cache_clear()
    assert benchmark_mix() == here and benchmark_mix() is not here  # recomputed, equal


@pytest.mark.parametrize(
    ("options", "line"),
    [
        ({"benchmarks": ["3agents", "6agents"]},
         "designer_options.matched.benchmarks: no shipped suite '6agents'; the suites are "
         "3agents, 4agents, 5agents, validation, validation-multi (got ['3agents', '6agents'])"),
        ({"benchmarks": ["4agents", "4agents"]},
         "designer_options.matched.benchmarks: '4agents' named more than once; name it once "
         "(got ['4agents', '4agents'])"),
        ({"benchmarks": []},
         "designer_options.matched.benchmarks: too short (got []); needs at least 1 item"),
        ({"benchmarks": "3agents"},
         "designer_options.matched.benchmarks: wrong type (got '3agents'); expected a list of "
         "strings"),
        ({"suites": ["3agents"]},
         "designer_options.matched.suites: not a field (got ['3agents']); fields are benchmarks"),
    ],
)  # fmt: skip
def test_bad_options_are_one_line_each(options: dict[str, object], line: str) -> None:
    assert designer_option_problems("matched", options) == [line]
    with pytest.raises(DesignerOptionsError) as err:
        create_designer("matched", **options)
    assert err.value.lines == [line]


def test_options_choose_the_suites() -> None:
    designer = create_designer("matched", benchmarks=["4agents", "3agents"])
    assert isinstance(designer, MatchedDesigner) and designer.benchmarks == ("4agents", "3agents")
    start = designer.initial_config(EnvConfig.uniform(), 0, MAPF)
    assert start is not None and start.sizes[3].ratio == 1 / 15  # 150 of 1200 + 1050
    assert start.sizes == benchmark_mix(("3agents", "4agents")).sizes  # order does not matter


def crowded_suite() -> BenchmarkSuite:
    """A one-instance suite whose grid is two-thirds holes, above EnvConfig's bound of 0.5."""
    instance = Instance(grid=("...", "HHH", "HHH"), starts=((0, 0),), goals=((0, 2),), id="c")
    optimum = find_optimum(instance, Objective.SOC)
    assert isinstance(optimum, Optimum)
    item = BenchmarkItem(
        suite="crowded", size=3, subset="wr_000", hole_ratio=0.5,
        instance=instance.model_copy(update={"optimum": optimum}),
    )  # fmt: skip
    return BenchmarkSuite(name="crowded", version=2, n_agents=1, items=(item,), content_sha256="")


def test_a_share_beyond_the_bounds_is_clipped_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    suite = crowded_suite()
    monkeypatch.setattr(matched_module, "load_suite", lambda name: suite)
    mix = benchmark_mix(("crowded",))
    assert all(mix.sizes[s].hole_ratio == 0.5 for s in SIZES)
    assert mix.clipped[0] == "sizes.3x3.hole_ratio: 0.6666666666666666 -> 0.5 (clipped to [0, 0.5])"
    assert len(mix.clipped) == len(SIZES)  # the empty sizes took the pooled share: clipped too
    designer = MatchedDesigner(benchmarks=("crowded",))
    proposal = designer.propose(sample_contexts()[0])
    assert proposal.rationale.startswith("fixed mix of crowded; clipped to bounds: sizes.3x3.")
