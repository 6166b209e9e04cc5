"""A round's training summary reaches the round record and the LLM designer's T module.

Two real CPU rounds run through `run_designer` with the real LLM designer, asking the scripted
OpenAI-compatible server under T's "full RL details" option: the prompt the server received
carries the round's own numbers, equal to the round record's summary, which agrees with the
round's curves file. Rebuilt from the record, the same context renders only round and epochs
under bookkeeping-only T (the V6 default).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from designers.llm.variants import analysis_messages, get_variant
from envdesign_common import RunningValidRate
from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.experiment import ExperimentConfig
from harness.loop import design_context, run_designer
from harness.run_dir import RunDir
from mapf_env import RewardConfig, accuracy_weight
from run_records import DETAIL_KEYS, RoundResult, TrainingSummary, TrainStep, summarise
from tests.designers.openai_server import FAST, ScriptedServer

SPEC = "llm:openai/scripted-model"
BOOKKEEPING = ("finished round", "RL epochs trained this round")


def steps(rewards: list[float], valid: list[float]) -> list[TrainStep]:
    return [
        TrainStep(step=i, epoch=0, reward=r, valid_rate=v, kl=0.01 * i, loss=-0.1 * i, seconds=1)
        for i, (r, v) in enumerate(zip(rewards, valid, strict=True))
    ]


def summary_of(train: list[TrainStep], valid_rate: float = 0.0, **reward: float) -> TrainingSummary:
    weight = accuracy_weight(valid_rate, RewardConfig(**reward))
    got = summarise(train, epochs=1, samples=8, group_size=4, learning_rate=1e-3, kl_coef=0.01,
                    valid_rate=valid_rate, accuracy_weight=weight)  # fmt: skip
    assert got is not None
    return got


def test_the_summary_of_hand_built_steps() -> None:
    rising = summary_of(steps([0.1, 0.2, 0.3, 0.4], [0.0, 0.25, 0.5, 0.75]), 0.4,
                        w_min=0.5, w_max=0.9)  # fmt: skip
    assert rising.steps == 4 and rising.reward_mean == pytest.approx(0.25)
    assert rising.reward_trend == pytest.approx(0.1)  # reward gained per step
    assert (rising.valid_rate_start, rising.valid_rate_end) == (0.0, 0.75)
    assert (rising.kl_end, rising.policy_loss_end) == pytest.approx((0.03, -0.3))
    assert rising.reward_valid_rate == 0.4
    assert rising.accuracy_weight == pytest.approx(0.5 + 0.4 * 0.4)
    falling = summary_of(steps([0.5, 0.45, 0.2, 0.3], [0.9, 0.8, 0.6, 0.5]))
    assert falling.reward_trend < 0 < rising.reward_trend
    assert falling.valid_rate_start > falling.valid_rate_end
    assert summary_of(steps([0.3], [0.5])).reward_trend == 0.0  # one step: no trend
    none = summarise([], epochs=1, samples=0, group_size=4, learning_rate=1e-3, kl_coef=0.0,
                     valid_rate=0.0, accuracy_weight=1.0)  # fmt: skip
    assert none is None  # a round that took no step has nothing to summarise

    details = rising.as_details()
    assert list(details) == list(DETAIL_KEYS.values())
    assert details["optimiser steps"] == 4.0 and details["reward mean"] == rising.reward_mean
    assert not {"epochs", "samples"} & set(details)  # TrainingInfo has fields of its own


def training_lines(prompt: str) -> dict[str, str]:
    """The T section's ``- key: value`` lines of a rendered prompt."""
    section = prompt.split("## Training\n", 1)[1].split("\n## ", 1)[0]
    pairs = [line[2:].split(": ", 1) for line in section.strip().splitlines()]
    return {key: value for key, value in pairs}


def test_two_real_rounds_show_their_training_to_the_designer(
    tmp_path: Path, openai_server: ScriptedServer
) -> None:
    pytest.importorskip("litellm", reason="the LLM designer asks its model through LiteLLM")
    options = {**FAST, "api_base": openai_server.base_url, "training_details": True}
    experiment = ExperimentConfig.from_mapping({
        "name": "details", "rounds": 2, "samples_per_round": 40, "epochs_per_round": 2,
        "grpo": {"group_size": 4, "learning_rate": 2e-3, "kl_coef": 0.05},
        "validation": "validation", "benchmarks": ["validation"], "best_of": 1,
        "designer_options": {SPEC: options},
    })  # fmt: skip
    grpo = experiment.grpo
    settings = CpuLearnerSettings(group_size=grpo.group_size, lr=grpo.learning_rate,
                                  kl_coef=grpo.kl_coef, batch_size=8, threads=1)  # fmt: skip
    backend = CpuBackend(settings)
    run = RunDir(tmp_path, experiment, SPEC, 0)
    record = run_designer(experiment, SPEC, 0, backend, run, workers=1)

    # the record: the summary of the round's real steps (its curves file) and settings
    first = record.rounds[0]
    summary = first.training
    assert summary is not None and record.rounds[1].training is not None
    on_disk = RoundResult.model_validate_json((run.round_path(0) / "round.json").read_text())
    assert on_disk.training == summary
    curve = [TrainStep.model_validate_json(line) for line in run.curves(0).read_text().split()]
    rewards = [s.reward for s in curve]
    assert summary.steps == len(curve) == 10  # 40 instances / 8 per step, x 2 epochs
    assert (summary.epochs, summary.samples, summary.group_size) == (2, 40, 4)
    assert (summary.learning_rate, summary.kl_coef) == (2e-3, 0.05)
    assert summary.reward_mean == pytest.approx(float(np.mean(rewards)))
    assert summary.reward_trend == pytest.approx(float(np.polyfit(range(10), rewards, 1)[0]))
    assert (summary.valid_rate_start, summary.valid_rate_end) == (
        curve[0].valid_rate, curve[-1].valid_rate)  # fmt: skip
    assert (summary.kl_end, summary.policy_loss_end) == (curve[-1].kl, curve[-1].loss)
    running = RunningValidRate()  # round 0 starts at 0; the last step weighs the nine before
    for step in curve[:-1]:
        running.update(step.valid_rate)
    assert summary.reward_valid_rate == pytest.approx(running.value)
    assert summary.accuracy_weight == pytest.approx(0.7 + 0.25 * summary.reward_valid_rate)

    # the prompt the designer sent: bookkeeping, then every number of the record's summary
    analysis = openai_server.requests[0].body["messages"][1]["content"]
    shown = training_lines(analysis)
    assert list(shown)[:3] == [*BOOKKEEPING, "training samples"]
    assert (shown["finished round"], shown["RL epochs trained this round"]) == ("0 of 2", "2")
    assert shown["training samples"] == "40"
    numbers = {key: float(value) for key, value in list(shown.items())[3:]}
    assert numbers == pytest.approx(summary.as_details(), rel=1e-5)
    assert numbers["optimiser steps"] == 10 and numbers["learning rate"] == 2e-3

    # the same context, rebuilt from the record, renders that prompt; bookkeeping-only T does
    # not show the details
    context = design_context(experiment, 0, first.config, [first], {})
    full = analysis_messages(context, get_variant("V6", training_details=True))[1]["content"]
    assert full == analysis
    plain = analysis_messages(context, get_variant("V6"))[1]["content"]
    assert list(training_lines(plain)) == list(BOOKKEEPING)
    assert not any(key in plain for key in DETAIL_KEYS.values())

    # a round record without a summary (a backend that gives none) reads, and gives T no details
    bare = json.loads(first.model_dump_json())
    del bare["training"]
    unsummarised = RoundResult.model_validate(bare)
    assert unsummarised.training is None
    assert design_context(experiment, 0, first.config, [unsummarised], {}).training.details == {}
