"""A task from outside the project: add two numbers. Registered by one entry-point line."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from envdesign_common import ProjectionNote
from tasks import Generated, Judgement, Knob, Projected, Suite, SuiteItem, TaskSpec


class AddingConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    largest: int = Field(9, ge=1, le=999)
    samples: int = Field(32, ge=1)


class Stats(BaseModel):
    generated: int


class Adding:
    id = "adding-v1"
    description = "add two whole numbers"
    config_model = AddingConfig
    cuts = ("digits",)
    failure_types = ("parse", "wrong")
    optimal_kinds: tuple[str, ...] = ()
    reward_bounds = (0.0, 1.0)
    suite_names = ("fixed",)

    def initial_config(self, seed: int) -> AddingConfig:
        return AddingConfig()

    def knobs(self) -> tuple[Knob, ...]:
        return (Knob("largest", 1, 999, "the largest operand", integer=True),)

    def project(
        self, current: AddingConfig, draft: Mapping[str, Any] | None
    ) -> Projected[AddingConfig]:
        wanted = {**current.model_dump(), **(draft or {})}
        kept = min(max(int(wanted["largest"]), 1), 999)
        notes = (
            ()
            if kept == wanted["largest"]
            else (
                ProjectionNote(
                    field="largest", before=wanted["largest"], after=kept, reason="bounds"
                ),
            )
        )
        return Projected(current.model_copy(update={"largest": kept}), notes)

    def generate(
        self, config: AddingConfig, seed: int, *, workers: int | None = None
    ) -> Generated[tuple[int, int]]:
        rng = random.Random(seed)
        items = tuple(
            (rng.randint(0, config.largest), rng.randint(0, config.largest))
            for _ in range(config.samples)
        )
        return Generated(items, Stats(generated=len(items)))

    def suite(self, name: str) -> Suite[tuple[int, int]]:
        if name != "fixed":
            raise KeyError(f"no suite {name!r}; suites are fixed")
        pairs = self.generate(AddingConfig(largest=99, samples=20), 1234).items
        items = tuple(
            SuiteItem(f"fixed-{i}", p, {"digits": str(len(str(max(p))))})
            for i, p in enumerate(pairs)
        )
        return Suite("fixed", 1, items, FIXED_SHA256)

    def checksum(self, suite: Suite[tuple[int, int]]) -> str:
        return hashlib.sha256(json.dumps([it.item for it in suite.items]).encode()).hexdigest()

    def prompt(self, item: tuple[int, int]) -> list[dict[str, str]]:
        return [
            {"role": "user", "content": f"What is {item[0]} + {item[1]}? Answer with the number."}
        ]

    def reference_answer(self, item: tuple[int, int]) -> str | None:
        return str(sum(item))

    def judge(self, item: tuple[int, int], answer: str) -> Judgement:
        words = answer.strip().split()
        if not words or not words[-1].isdigit() or len(words[-1]) > 9:
            return Judgement(False, 0.0, "parse")
        right = int(words[-1]) == sum(item)
        return Judgement(right, float(right), None if right else "wrong")

    def reward(
        self,
        item: tuple[int, int],
        answer: str,
        *,
        valid_rate: float = 0.0,
        n_tokens: int | None = None,
    ) -> float:
        return self.judge(item, answer).score

    def describe_config(self, config: AddingConfig) -> str:
        return f"operands 0..{config.largest}, {config.samples} per round"

    def describe_stats(self, stats: BaseModel) -> str:
        return f"{Stats.model_validate(stats).generated} sums generated"


FIXED_SHA256 = "ac03a30d2b8936304527caa38a958a2aeb30d46c02769f745ab834a22e255b5c"

SPEC = TaskSpec(id="adding-v1", description=Adding.description, build=lambda settings: Adding())
