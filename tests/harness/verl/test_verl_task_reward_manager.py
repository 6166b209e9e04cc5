"""reasoning-gym's rows and reward file driven through verl 0.6.1's own reward manager.

As ``test_verl_reward_manager.py`` does for MAPF-FrozenLake: the reward manager is built as
``verl.trainer.main_ppo`` builds it, from the Hydra config the ``reasoning_gym_verl`` preset's
overrides compose, and called on a `DataProto` of the task's own parquet rows (`task_rows`)
with responses of every kind; each score must equal the task's reward of the same response at
the round's valid rate, each verdict the task's judgement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from verl.trainer.ppo.reward import load_reward_manager
from verl.workers.reward_manager.naive import NaiveRewardManager

from harness.backends.verl.task_reward import scored_keys
from harness.experiment import ExperimentConfig
from tests.harness.verl.cases import VALID_RATE, rows_batch
from tests.harness.verl.rg_cases import PRESET, Case, rg_cases, rg_round, rg_tokenizer

pytest.importorskip("reasoning_gym", reason="the reasoning-gym extra is not installed")


@pytest.fixture(scope="module")
def experiment() -> ExperimentConfig:
    return ExperimentConfig.load(PRESET)


@pytest.mark.usefixtures("fresh_reward_module")
def test_verls_reward_manager_scores_the_tasks_rows_as_the_task_does(
    experiment: ExperimentConfig, tmp_path: Path
) -> None:
    task = experiment.task_object
    cases: list[Case] = rg_cases(experiment)
    tokenizer: Any = rg_tokenizer(experiment, cases)
    config, rows = rg_round(experiment, cases, tmp_path)
    manager = load_reward_manager(config, tokenizer, num_examine=0)
    assert isinstance(manager, NaiveRewardManager)
    data, lengths = rows_batch(rows, [text for _, text in cases], tokenizer)
    out = manager(data, return_dict=True)
    assert isinstance(out, dict)
    scores, extra = out["reward_tensor"], out["reward_extra_info"]
    assert set(extra) == set(scored_keys(task))
    for i, (item, text) in enumerate(cases):
        judged = task.judge(item, text)
        expected = task.reward(item, text, valid_rate=VALID_RATE)
        assert scores[i, lengths[i] - 1].item() == pytest.approx(expected), (i, text[:40])
        assert extra["valid"][i] == float(judged.valid) and extra["task_score"][i] == judged.score
    assert {extra["valid"][i] for i in range(len(cases))} == {0.0, 1.0}, "a mixed batch"
