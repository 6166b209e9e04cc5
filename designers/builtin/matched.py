"""`matched`: the positive control -- train on the benchmarks' own mix, kept every round.

A comparison can only say a designer helps if the board can tell a strong fixed configuration
from a weak one at this budget. `matched` is the strongest fixed baseline we can state without
looking at any policy: it gives each map size the budget, hole share and conflict share of the
benchmark instances themselves ("train on what you are tested on"). With `random` as zero and
`matched` as one, a designer's score can be read as a share of that gap; `harder` (the
negative control) shows how far below zero a bad designer falls.

Per map size 3..10, over the instances of the suites named in `benchmarks`, pooled:

- `ratio`: the size's share of those instances (the default suites -- 3, 4 and 5 agents on
  sizes 3..10, 4..10 and 5..10, 150 instances per agent count and size -- give 3x3 1/21, 4x4
  2/21 and every larger size 3/21);
- `hole_ratio`: the mean share of the grid's cells that are holes, measured on each
  instance's grid rather than read from its nominal hole label (0.1..0.5): small grids cannot
  hold every nominal share, so the achieved shares run 0.26..0.30 where the labels average
  0.3;
- `wait_ratio`: the share of instances that need conflict resolution, read from each
  instance's answer key (exact minimal SOC above the sum of the agents' individual shortest
  paths). The wait subsets' nominal 0.25 / 0.50 / 0.75 of 50 instances each round to 13, 25
  and 38 conflicted instances, hence 76/150 = 0.507 at every size.

A size none of the suites covers (3x3 when only `5agents` is matched) gets ratio 0 and the
pooled hole and wait shares of all matched instances, so its entry is still a mix the
benchmarks hold. Values are clipped to `EnvConfig`'s bounds through `mapf_env.project`, which
records every clip (`BenchmarkMix.clipped`, repeated in the rationale); on the shipped suites
(version 2) nothing needs clipping. The mix is computed from the shipped, checksummed suites,
so it follows a suite version change, and only once per process.

Only the mix is matched: the number of agents, the sample budget and the objective stay the
experiment's (training uses 2 agents while the benchmarks have 3 to 5), as for every designer.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from designers.base import RuleDesigner, as_changes
from designers.context import DesignContext
from mapf_env import (
    BENCHMARK_SUITES,
    SIZES,
    BenchmarkItem,
    EnvConfig,
    SizeConfig,
    available_suites,
    load_suite,
    project,
)
from mapf_env.instance import size_name
from tasks import Task


class MatchedOptions(BaseModel):
    """Options of `matched`: which benchmark suites' mix it trains on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmarks: tuple[str, ...] = Field(
        BENCHMARK_SUITES,
        min_length=1,
        description="Shipped suites whose instances, pooled, give the mix of sizes, holes and "
        "waits to match.",
    )

    @field_validator("benchmarks")
    @classmethod
    def _shipped_once(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        known = available_suites()
        unknown = [name for name in value if name not in known]
        if unknown:
            raise ValueError(
                f"no shipped suite {', '.join(map(repr, unknown))}; the suites are "
                f"{', '.join(known)}"
            )
        twice = sorted(name for name, n in Counter(value).items() if n > 1)
        if twice:
            raise ValueError(f"{', '.join(map(repr, twice))} named more than once; name it once")
        return value


class BenchmarkMix(BaseModel):
    """The per-size mix of a set of benchmark suites, and what had to bend to make it legal."""

    model_config = ConfigDict(frozen=True)

    suites: tuple[str, ...] = Field(description="The suites whose instances were pooled.")
    instances: dict[int, int] = Field(description="Benchmark instances per map size.")
    sizes: dict[int, SizeConfig] = Field(description="The mix per map size, within bounds.")
    clipped: tuple[str, ...] = Field(
        default=(), description="Every value clipped to EnvConfig's bounds, as 'field: a -> b'."
    )


@cache
def benchmark_mix(suites: tuple[str, ...] = BENCHMARK_SUITES) -> BenchmarkMix:
    """The mix of sizes, hole shares and wait shares of the shipped `suites`' instances.

    Cached: the shipped suites are fixed for the life of the process (`load_suite` checks them
    against the manifest's checksums on the first read).
    """
    items = [item for name in suites for item in load_suite(name).items]
    by_size: dict[int, list[BenchmarkItem]] = {size: [] for size in SIZES}
    for item in items:
        by_size[item.instance.size].append(item)
    pooled = (_hole_share(items), _wait_share(items))
    draft = {
        size_name(size): {
            "ratio": len(group) / len(items),
            "hole_ratio": _hole_share(group) if group else pooled[0],
            "wait_ratio": _wait_share(group) if group else pooled[1],
        }
        for size, group in by_size.items()
    }
    projection = project({"sizes": draft})
    return BenchmarkMix(
        suites=suites,
        instances={size: len(group) for size, group in by_size.items()},
        sizes=projection.config.sizes,
        clipped=tuple(str(note) for note in projection.notes),
    )


def _hole_share(items: Sequence[BenchmarkItem]) -> float:
    """Mean share of each grid's cells that are holes (what the grids hold, not their label)."""
    return math.fsum(len(i.instance.holes) / i.instance.size**2 for i in items) / len(items)


def _wait_share(items: Sequence[BenchmarkItem]) -> float:
    """Share of `items` whose answer key says they need conflict resolution."""
    return sum(_needs_resolution(item) for item in items) / len(items)


def _needs_resolution(item: BenchmarkItem) -> bool:
    optimum = item.instance.optimum
    if optimum is None:
        raise ValueError(
            f"benchmark instance {item.instance.id} has no answer key; rebuild the suites with "
            "`harness env bench-build`"
        )
    return optimum.needs_conflict_resolution


class MatchedDesigner(RuleDesigner):
    """Picks its own start and asks for it again at every step: asking for the whole
    configuration (not an empty change set) keeps it even when a projection or a resumed run
    would otherwise drift from it; the rationale says what is kept."""

    name = "matched"
    description = "Positive control: the benchmarks' own mix of sizes, holes and waits, kept."
    options_model: ClassVar[type[BaseModel]] = MatchedOptions

    def __init__(self, benchmarks: Sequence[str] = BENCHMARK_SUITES) -> None:
        self.benchmarks = tuple(benchmarks)

    def rationale(self) -> str:
        clipped = benchmark_mix(self.benchmarks).clipped
        bent = f"; clipped to bounds: {', '.join(clipped)}" if clipped else ""
        return f"fixed mix of {', '.join(self.benchmarks)}{bent}"

    def fixed_config(self, base: EnvConfig) -> EnvConfig:
        """The kept configuration, with the experiment's agents, budget and objective."""
        return EnvConfig(
            sizes=benchmark_mix(self.benchmarks).sizes,
            n_agents=base.n_agents,
            samples=base.samples,
            objective=base.objective,
        )

    def initial_config(self, base: EnvConfig, seed: int, task: Task[Any, Any]) -> EnvConfig:
        return self.fixed_config(base)

    def changes(self, ctx: DesignContext) -> tuple[Mapping[str, Any], str]:
        return as_changes(self.fixed_config(ctx.config)), self.rationale()
