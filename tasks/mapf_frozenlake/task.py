"""MAPF-FrozenLake as a `Task`: the testbed of `mapf_env`, seen through the task interface.

Nothing here decides a rule of the game: generation, projection, the eight checks, the reward
and the suites are `mapf_env`'s, called as they are. This module only says what they are to
the harness: the knobs a designer may turn and their bounds, the cuts a board groups by
(map size, wait-ratio subset, hole ratio), and the verdict as a `Judgement`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mapf_env import (
    SIZES,
    EnvConfig,
    EvalReport,
    Instance,
    Objective,
    RewardConfig,
    accuracy_weight,
    generate,
    instance_from_ground_truth,
    load_suite,
    merge,
    project,
    random_config,
    reference_answer,
    render_prompt,
    reward,
    verify,
)
from mapf_env.config import MAX_HOLE_RATIO, parse_size
from mapf_env.generator import GenerationStats
from mapf_env.instance import MIN_SIZE, size_name
from mapf_env.suites import (
    BENCHMARK_SUITES,
    SUITE_VERSION,
    SUITES,
    BenchmarkItem,
    BenchmarkSuite,
    content_sha256,
)
from mapf_env.verifier import FailureType
from tasks.base import (
    BoardRate,
    Generated,
    Judgement,
    Knob,
    Projected,
    ReportRates,
    Suite,
    SuiteItem,
    VerdictTable,
)
from tasks.mapf_frozenlake import scoring
from tasks.mapf_frozenlake.board_view import (
    BOARD_RATES,
    CUT_TITLES,
    mapf_result_problem,
    mapf_verdict_table,
)
from tasks.mapf_frozenlake.describe import compact_config, report_lines, report_table, stats_lines
from tasks.mapf_frozenlake.records import SuiteResult

__all__ = [
    "MAX_TRAINING_AGENTS",
    "TASK_ID",
    "MapfFrozenLake",
    "MapfSettings",
    "as_task_suite",
    "hole_cut",
]

TASK_ID = f"mapf-frozenlake-v{SUITE_VERSION}"
CUTS = ("size", "subset", "hole")
FIXED_FIELDS = ("n_agents", "samples", "objective")
"""What the experiment fixes in a configuration; a designer changes only the sizes."""


MAX_TRAINING_AGENTS = MIN_SIZE * MIN_SIZE // 2
"""Most agents a training instance may have: every map size may get samples (a designer picks
the ratios), and the smallest grid holds 2 x agents distinct start and goal cells."""


class MapfSettings(BaseModel):
    """What stays fixed while designers change the configuration (an experiment's
    ``task_settings``): the paper trains with two agents; which optimum the reward pays for
    is recorded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n_agents: int = Field(
        2,
        ge=1,
        le=MAX_TRAINING_AGENTS,
        description="Agents per training instance (at most what a 3x3 grid holds).",
    )
    objective: Objective = Field(
        Objective.SOC,
        description="The optimum the training instances are solved for, which the prompt asks "
        "for and the reward's accuracy term pays: soc (default) or makespan. Benchmarks carry "
        "both minima and report both optimal rates whichever is trained.",
    )
    reward: RewardConfig = Field(default_factory=RewardConfig)


def reward_config(settings: BaseModel | None) -> RewardConfig:
    """The reward's coefficients an experiment's ``task_settings`` hold (the defaults where it
    has none): what a backend that trains MAPF-FrozenLake alone pays its rollouts with."""
    return MapfSettings.model_validate(settings if settings is not None else {}).reward


def hole_cut(hole_ratio: float) -> str:
    """A suite item's hole-ratio cut as boards show it (``0.3``)."""
    return f"{hole_ratio:g}"


class MapfFrozenLake:
    """Several agents cross an N x N frozen lake with holes, without colliding."""

    id: str = TASK_ID
    description: str = (
        "MAPF-FrozenLake: plan collision-free paths for several agents across a grid with holes "
        "(the paper's testbed)"
    )
    config_model: type[EnvConfig] = EnvConfig
    stats_model: type[BaseModel] = GenerationStats
    report_model: type[BaseModel] = EvalReport
    result_model: type[BaseModel] = SuiteResult
    cuts: tuple[str, ...] = CUTS
    cut_titles: Mapping[str, str] = CUT_TITLES
    board_rates: tuple[BoardRate, ...] = BOARD_RATES
    failure_types: tuple[str, ...] = tuple(f.value for f in FailureType)
    optimal_kinds: tuple[str, ...] = tuple(o.value for o in Objective)
    reward_bounds: tuple[float, float] = (0.0, 1.0)
    suite_names: tuple[str, ...] = tuple(SUITES)
    validation_suite: str = "validation"
    benchmark_suites: tuple[str, ...] = BENCHMARK_SUITES

    def __init__(self, settings: MapfSettings | None = None) -> None:
        self.settings = settings or MapfSettings()

    @property
    def reward_optimum(self) -> str:
        return scoring.RATE_NAMES[self.settings.objective]

    def initial_config(self, seed: int, samples: int) -> EnvConfig:
        s = self.settings
        drawn = random_config(seed, n_agents=s.n_agents, samples=samples)
        return drawn.model_copy(update={"objective": s.objective})

    def settled(self, config: EnvConfig, fixed_from: EnvConfig) -> EnvConfig:
        return config.model_copy(update={f: getattr(fixed_from, f) for f in FIXED_FIELDS})

    def config_yaml(self, config: EnvConfig) -> str:
        return config.to_yaml()

    def knobs(self) -> tuple[Knob, ...]:
        sizes = f"{size_name(SIZES[0])}..{size_name(SIZES[-1])}"
        return (
            Knob("sizes.*.ratio", 0.0, 1.0, f"share of the round's samples at each size {sizes}",
                 share=True, cut="size", cut_value=size_name, read_key=parse_size),
            Knob("sizes.*.hole_ratio", 0.0, MAX_HOLE_RATIO, "share of a grid's cells as holes",
                 harder="up"),
            Knob("sizes.*.wait_ratio", 0.0, 1.0,
                 "share of instances whose optimum needs an agent to wait or detour",
                 harder="up"),
        )  # fmt: skip

    def encode_item(self, item: Instance) -> str:
        """The solved instance as JSON: what `mapf_env.export` writes as a row's ground truth."""
        return item.model_dump_json()

    def decode_item(self, text: str) -> Instance:
        return instance_from_ground_truth(text)

    def project(self, current: EnvConfig, draft: Mapping[str, Any] | None) -> Projected[EnvConfig]:
        projection = project(merge(current, draft))
        return Projected(projection.config, projection.notes)

    def generate(
        self, config: EnvConfig, seed: int, *, workers: int | None = None
    ) -> Generated[Instance, GenerationStats]:
        made = generate(config, seed, workers=workers)
        return Generated(made.instances, made.stats)

    def suite(self, name: str) -> Suite[Instance]:
        return as_task_suite(load_suite(name))

    def checksum(self, suite: Suite[Instance]) -> str:
        return content_sha256([
            BenchmarkItem(suite=suite.name, size=it.item.size, subset=it.cuts["subset"],
                          hole_ratio=float(it.cuts["hole"]), instance=it.item)
            for it in suite.items
        ])  # fmt: skip

    def prompt(self, item: Instance) -> list[dict[str, str]]:
        return render_prompt(item)

    def reference_answer(self, item: Instance) -> str | None:
        return reference_answer(item) if item.optimum is not None else None

    def judge(self, item: Instance, answer: str) -> Judgement:
        v = verify(item, answer)
        return Judgement(
            valid=v.valid,
            score=1.0 if v.valid else 0.0,
            failure=v.failure.value if v.failure is not None else None,
            optimal={Objective.SOC.value: v.optimal_soc,
                     Objective.MAKESPAN.value: v.optimal_makespan},
            detail=v.detail,
        )  # fmt: skip

    def report(self, items: Sequence[SuiteItem[Instance]], answers: Sequence[str]) -> EvalReport:
        return scoring.report(items, answers)

    def score_suite(
        self,
        suite: Suite[Instance],
        greedy: Sequence[str],
        sampled: Sequence[Sequence[str]],
        best_of: int,
    ) -> SuiteResult:
        return scoring.score_suite(suite, greedy, sampled, best_of)

    def rates(self, report: BaseModel) -> ReportRates:
        return scoring.rates(EvalReport.model_validate(report))

    def suite_rates(self, result: BaseModel, *, best_of: bool = False) -> ReportRates:
        read = SuiteResult.model_validate(result)
        return scoring.rates(read.best_of if best_of else read.greedy)

    def result_problem(self, result: BaseModel) -> str | None:
        return mapf_result_problem(SuiteResult.model_validate(result))

    def verdict_table(self, result: BaseModel) -> VerdictTable:
        return mapf_verdict_table(SuiteResult.model_validate(result))

    def reward(
        self, item: Instance, answer: str, *, valid_rate: float = 0.0, n_tokens: int | None = None
    ) -> float:
        if item.optimum is None:
            raise ValueError("the reward reads the instance's optima: train on solved instances")
        scored = reward(item, answer, self.settings.reward, valid_rate, n_tokens=n_tokens)
        return scored.total

    def accuracy_weight(self, valid_rate: float) -> float:
        return accuracy_weight(valid_rate, self.settings.reward)

    def describe_config(self, config: EnvConfig) -> str:
        return compact_config(config)

    def describe_stats(self, stats: BaseModel) -> str:
        return stats_lines(GenerationStats.model_validate(stats))

    def describe_report(self, report: BaseModel) -> str:
        return report_table(EvalReport.model_validate(report))

    def report_headline(self, report: BaseModel) -> str:
        return report_lines(EvalReport.model_validate(report))


def as_task_suite(shipped: BenchmarkSuite) -> Suite[Instance]:
    """A testbed suite (whole, or `mapf_env.stratified`'s subset of it) as the task's suite."""
    items = tuple(
        SuiteItem(item.instance.id or f"{shipped.name}-{i}", item.instance, _cuts(item))
        for i, item in enumerate(shipped.items)
    )
    return Suite(shipped.name, shipped.version, items, shipped.content_sha256)


def _cuts(item: BenchmarkItem) -> dict[str, str]:
    return {"size": size_name(item.size), "subset": item.subset, "hole": hole_cut(item.hole_ratio)}
