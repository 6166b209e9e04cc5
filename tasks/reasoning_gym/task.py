"""reasoning-gym's procedural datasets as one `Task`: a designer mixes datasets and levels.

Nothing here decides how a question is made or graded: generation, curricula and scoring are
reasoning-gym's own (`catalog`). This module wires the parts -- the configuration and its
projection, seeded generation, the suites and their shipped checksums, the prompt and the
verdict -- into the task interface.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from envdesign_common import ConfigError, bounded_repr
from tasks.base import Generated, Judgement, Knob, Projected, Suite
from tasks.cut_records import CutRecords
from tasks.reasoning_gym import catalog, judging, projection, suites
from tasks.reasoning_gym.config import DatasetSetting, RgConfig, RgStats
from tasks.reasoning_gym.describe import compact_config, stats_lines
from tasks.reasoning_gym.generation import generate_round
from tasks.reasoning_gym.items import RgItem, canonical_json, item_from_text
from tasks.reasoning_gym.settings import RgSettings

__all__ = ["CUTS", "TASK_ID", "ReasoningGym"]

TASK_ID = "reasoning-gym-v1"
CUTS = ("dataset", "level")
DESCRIPTION = (
    "reasoning-gym's procedural datasets (arithmetic, counting, spelling, sorting, ...), mixed "
    "by weight at curriculum levels and graded by each dataset's own scorer"
)


class ReasoningGym(CutRecords):
    """A mix of reasoning-gym datasets, each at a curriculum level a designer chooses; its
    reports and suite results are the generic ones, per dataset and level (`CutRecords`)."""

    id: str = TASK_ID
    description: str = DESCRIPTION
    config_model: type[RgConfig] = RgConfig
    stats_model: type[BaseModel] = RgStats
    cuts: tuple[str, ...] = CUTS
    failure_types: tuple[str, ...] = judging.FAILURE_TYPES
    optimal_kinds: tuple[str, ...] = ()
    reward_bounds: tuple[float, float] = (0.0, 1.0)
    suite_names: tuple[str, ...] = tuple(suites.SUITES)
    validation_suite: str = suites.VALIDATION
    benchmark_suites: tuple[str, ...] = (suites.EVAL,)

    def __init__(self, settings: RgSettings | None = None) -> None:
        self.settings = settings or RgSettings()
        problem = catalog.names_problem(self.settings.datasets)  # ImportError without the extra
        if problem:
            raise ConfigError(f"task {TASK_ID}: task_settings.datasets: {problem}")
        self.datasets: tuple[str, ...] = tuple(sorted(set(self.settings.datasets)))
        self.highest: dict[str, int] = {n: catalog.max_level(n) for n in self.datasets}
        self._changes = projection.change_model(self.datasets)

    def initial_config(self, seed: int, samples: int) -> RgConfig:
        """Equal weights, every dataset at level 0, whatever the seed.

        Level 0 is where reasoning-gym's curricula start (every attribute's default level),
        and equal weights favour no dataset, so every designer starts from the same round 0
        and the seed varies only what is generated from it."""
        share = 1.0 / len(self.datasets)
        return RgConfig(
            samples=samples,
            datasets={n: DatasetSetting(weight=share, level=0) for n in self.datasets},
        )

    def settled(self, config: RgConfig, fixed_from: RgConfig) -> RgConfig:
        return config.model_copy(update={"samples": fixed_from.samples})

    def knobs(self) -> tuple[Knob, ...]:
        """The weights as one share, and a level knob per dataset with that dataset's own
        curriculum as its bounds, so "mid-range" or "the top" means the same for each."""
        weights = Knob(
            "datasets.*.weight",
            0.0,
            1.0,
            "share of the round's samples from each dataset",
            share=True,
            cut="dataset",
            read_key=self._dataset,
        )
        levels = tuple(
            Knob(f"datasets.{name}.level", 0, top, f"curriculum level of {name}", integer=True,
                 harder="up")
            for name, top in sorted(self.highest.items())
        )  # fmt: skip
        return (weights, *levels)

    def _dataset(self, key: Any) -> str:
        """`key` as one of the task's datasets; ValueError for a name that is none of them."""
        if key not in self.datasets:
            raise ValueError(f"{bounded_repr(key)} is not one of the datasets {self.datasets}")
        return str(key)

    def project(self, current: RgConfig, draft: Mapping[str, Any] | None) -> Projected[RgConfig]:
        config, notes = projection.project(
            current, draft, levels=self.highest, changes=self._changes
        )
        return Projected(config, notes)

    def generate(
        self, config: RgConfig, seed: int, *, workers: int | None = None
    ) -> Generated[RgItem, RgStats]:
        items, stats = generate_round(config, seed)
        return Generated(items, stats)

    def suite(self, name: str) -> Suite[RgItem]:
        return suites.build_suite(name, self.datasets)

    def checksum(self, suite: Suite[RgItem]) -> str:
        return suites.content_sha256(suite.name, suite.version, suite.items)

    def prompt(self, item: RgItem) -> list[dict[str, str]]:
        return judging.messages(item)

    def encode_item(self, item: RgItem) -> str:
        return canonical_json(item.fields())

    def decode_item(self, text: str) -> RgItem:
        """The item, of one of this task's datasets (another's is no item of this task)."""
        item = item_from_text(text)
        self._dataset(item.dataset)
        return item

    def reference_answer(self, item: RgItem) -> str | None:
        return None if item.answer is None else f"<answer>{item.answer}</answer>"

    def judge(self, item: RgItem, answer: str) -> Judgement:
        return judging.judge(item, answer)

    def reward(
        self, item: RgItem, answer: str, *, valid_rate: float = 0.0, n_tokens: int | None = None
    ) -> float:
        return judging.judge(item, answer).score

    def accuracy_weight(self, valid_rate: float) -> float:
        return 1.0  # the reward is the dataset's own score: correctness alone

    def describe_config(self, config: RgConfig) -> str:
        return compact_config(config, self.highest)

    def describe_stats(self, stats: BaseModel) -> str:
        return stats_lines(RgStats.model_validate(stats))
