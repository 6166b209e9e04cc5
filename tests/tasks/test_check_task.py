"""`check_task` passes every registered task and names each broken rule of a broken one."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest
from pydantic import BaseModel

from mapf_env import EnvConfig, Instance
from tasks import (
    Generated,
    Judgement,
    Knob,
    Projected,
    Suite,
    TaskConformanceError,
    VerdictTable,
    check_task,
    create_task,
)
from tasks.mapf_frozenlake import MapfFrozenLake, MapfSettings
from tasks.registry import TASKS

SMALL = MapfSettings()


@pytest.mark.parametrize("task_id", TASKS.names())
def test_every_registered_task_keeps_the_contract(task_id: str) -> None:
    check_task(create_task(task_id))


class Unversioned(MapfFrozenLake):
    id = "mapf-frozenlake"


class Restless(MapfFrozenLake):
    def generate(
        self, config: EnvConfig, seed: int, *, workers: int | None = None
    ) -> Generated[Instance, Any]:
        return super().generate(config, random.randrange(10**6), workers=workers)


class Touchy(MapfFrozenLake):
    def judge(self, item: Instance, answer: str) -> Judgement:
        if not answer:
            raise ValueError("empty")
        return super().judge(item, answer)


class Generous(MapfFrozenLake):
    def reward(
        self, item: Instance, answer: str, *, valid_rate: float = 0.0, n_tokens: int | None = None
    ) -> float:
        return 2.0


class OwnWords(MapfFrozenLake):
    def judge(self, item: Instance, answer: str) -> Judgement:
        judged = super().judge(item, answer)
        return judged if judged.valid else Judgement(False, 0.0, "wrong", {})


class Unclipped(MapfFrozenLake):
    def project(self, current: EnvConfig, draft: Mapping[str, Any] | None) -> Projected[EnvConfig]:
        sizes = {s: c.model_copy(update={"hole_ratio": 0.9}) for s, c in current.sizes.items()}
        return Projected(current.model_copy(update={"sizes": sizes}), ())


class Tampered(MapfFrozenLake):
    suite_names = ("validation",)

    def suite(self, name: str) -> Suite[Instance]:
        shipped = super().suite(name)
        return Suite(name, shipped.version, shipped.items[1:], shipped.checksum)


class Mute(MapfFrozenLake):
    def report_headline(self, report: BaseModel) -> str:
        return " "


class Unsorted(MapfFrozenLake):
    def verdict_table(self, result: BaseModel) -> VerdictTable:
        table = super().verdict_table(result)
        return replace(table, ids=tuple(reversed(table.ids)))


class Unnamed(MapfFrozenLake):
    def knobs(self) -> tuple[Knob, ...]:  # arms keyed 3, 4, ... where reports say 3x3, 4x4, ...
        budget, *levers = super().knobs()
        return (replace(budget, cut_value=str), *levers)


class Unpaid(MapfFrozenLake):
    @property
    def reward_optimum(self) -> str:
        return "soc"  # the summaries name it SOC


class Forgetful(MapfFrozenLake):
    def encode_item(self, item: Instance) -> str:  # drops the optimum the reward judges against
        return item.model_copy(update={"optimum": None}).model_dump_json()


class Credulous(MapfFrozenLake):
    def decode_item(self, text: str) -> Instance:
        if not text.startswith("{"):
            raise KeyError(text)  # not the ValueError a trainer's worker can report as bad data
        return super().decode_item(text)


@pytest.mark.parametrize(
    ("broken", "check", "words"),
    [
        (Unversioned, "identity", "has no version"),
        (Restless, "deterministic", "different items"),
        (Touchy, "judge", "raised ValueError"),
        (Generous, "reward", "outside (0.0, 1.0)"),
        (OwnWords, "judge", "'wrong' is not a failure type"),
        (Unclipped, "knobs", "outside [0.0, 0.5]"),
        (Tampered, "suites", "is not the shipped"),
        (Mute, "describe", "report_headline gave ' '"),
        (Unsorted, "boards", "each item once, in id order"),
        (Unnamed, "knobs", "values ['10x10', '3x3', '4x4'] name no key of 'sizes.*.ratio'"),
        (Unpaid, "records", "reward_optimum 'soc' is not among the rates' optima"),
        (Forgetful, "codec", "an item did not survive its text"),
        (Credulous, "codec", "raised KeyError"),
    ],
)
def test_a_broken_rule_is_named_with_its_fix(
    broken: type[MapfFrozenLake], check: str, words: str
) -> None:
    task = broken(SMALL)
    task.suite_names = ("validation",)
    with pytest.raises(TaskConformanceError) as err:
        check_task(task, seeds=(0,), suite_items=3)
    assert check in err.value.checks
    line = next(str(p) for p in err.value.problems if p.check == check)
    assert words in line and "; " in line  # what was seen, then the fix


def test_an_object_without_the_protocol_fails_first() -> None:
    with pytest.raises(TaskConformanceError, match=r"protocol.*missing.*judge"):
        check_task(object())
