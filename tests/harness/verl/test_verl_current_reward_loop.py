"""The reward entry point driven through verl 0.9's reward loop (the 0.9 line only).

verl 0.9's trainer scores each rollout inside its agent loop: a `RewardLoopWorker` (a Ray actor,
built from the whole trainer config) loads the reward file from ``reward.custom_reward_function``
and its naive reward manager calls ``compute_score`` in a thread pool, many responses at once.
Here the worker is built from the config our overrides compose, exactly as the trainer's
`RewardLoopManager` builds it (less Ray), and called the way the agent loop calls it: one
response per request, all requests in flight together. Every score and every term must equal
mapf_env's reward for the same response, valid rate and reward settings.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from omegaconf import DictConfig, OmegaConf
from verl import DataProto
from verl.experimental.reward_loop import RewardLoopWorker
from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager

from harness.experiment import ExperimentConfig
from mapf_env import Instance, reward
from tests.harness.verl.cases import REWARD, VALID_RATE, reward_batch, round_config


def resolved_config(
    paper: ExperimentConfig,
    round_files: tuple[Path, Path],
    model_dir: Path,
    tmp_path: Path,
    *extra: str,
) -> DictConfig:
    """The trainer's config as its task runner holds it (composed, then resolved); the worker
    loads its tokenizer from the round's start model."""
    cfg = round_config(paper, round_files, tmp_path, *extra, model_path=str(model_dir))
    OmegaConf.resolve(cfg)
    return cfg


def score(worker: RewardLoopWorker, data: DataProto) -> list[dict[str, Any]]:
    """Each response as its own request (as `AgentLoopWorker._compute_score` sends it), with the
    agent loop's own non-tensor fields, all awaited together on the worker's event loop."""

    async def all_at_once() -> list[dict[str, Any]]:
        requests = []
        for i in range(len(data)):
            item = data[i : i + 1]
            item.non_tensor_batch["__num_turns__"] = np.array([2])
            item.non_tensor_batch["tool_extra_fields"] = np.array([{}], dtype=object)
            requests.append(worker.compute_score(item))
        return list(await asyncio.gather(*requests))

    return worker.loop.run_until_complete(all_at_once())


@pytest.mark.usefixtures("fresh_reward_module")
def test_scores_through_verls_reward_loop_equal_the_testbeds_reward(
    paper: ExperimentConfig,
    round_files: tuple[Path, Path],
    model_dir: Path,
    scored_cases: list[tuple[str, Instance, str]],
    tokenizer: Any,
    tmp_path: Path,
) -> None:
    worker = RewardLoopWorker(resolved_config(paper, round_files, model_dir, tmp_path))
    assert isinstance(worker.reward_manager, NaiveRewardManager)
    assert not worker.reward_manager.is_async_reward_score  # run in the worker's thread pool
    data, _ = reward_batch(scored_cases, tokenizer, tmp_path)
    results = score(worker, data)

    expected = [reward(inst, text, REWARD, VALID_RATE).as_dict() for _, inst, text in scored_cases]
    for (name, _, _), got, want in zip(scored_cases, results, expected, strict=True):
        assert got["reward_score"] == pytest.approx(want["score"]), name
        assert got["reward_extra_info"] == want, name
    kinds = {e["valid"] for e in expected}, {e["optimal"] for e in expected}
    assert kinds == ({0.0, 1.0}, {0.0, 1.0}), "the batch must mix valid, optimal and invalid"
    assert any(e["fail_parse"] for e in expected), "and an unparsable answer"


@pytest.mark.usefixtures("fresh_reward_module")
def test_a_typo_in_the_reward_settings_stops_the_run(
    paper: ExperimentConfig,
    round_files: tuple[Path, Path],
    model_dir: Path,
    scored_cases: list[tuple[str, Instance, str]],
    tokenizer: Any,
    tmp_path: Path,
) -> None:
    typo = "+reward.custom_reward_function.reward_kwargs.gap_coeff=1.0"
    worker = RewardLoopWorker(resolved_config(paper, round_files, model_dir, tmp_path, typo))
    data, _ = reward_batch(scored_cases[:2], tokenizer, tmp_path)
    with pytest.raises(ValueError, match="gap_coeff"):
        score(worker, data)
