"""reasoning-gym's rows and reward file driven through verl 0.9's reward loop (0.9 line only).

As ``test_verl_current_reward_loop.py`` does for MAPF-FrozenLake: a `RewardLoopWorker` built from
the config the ``reasoning_gym_verl`` preset's overrides compose loads the task's reward file and
scores each response as its own request, all in flight together; every score must equal the
task's reward at the round's valid rate, every verdict the task's judgement.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf
from verl.experimental.reward_loop import RewardLoopWorker

from harness.backends.verl.task_reward import scored_keys
from harness.experiment import ExperimentConfig
from tests.harness.verl.cases import VALID_RATE, rows_batch, tiny_model_dir
from tests.harness.verl.rg_cases import PRESET, rg_cases, rg_round, rg_tokenizer
from tests.harness.verl.test_verl_current_reward_loop import score

pytest.importorskip("reasoning_gym", reason="the reasoning-gym extra is not installed")


@pytest.mark.usefixtures("fresh_reward_module")
def test_verls_reward_loop_scores_the_tasks_rows_as_the_task_does(tmp_path: Path) -> None:
    experiment = ExperimentConfig.load(PRESET)
    task = experiment.task_object
    cases = rg_cases(experiment)
    tokenizer = rg_tokenizer(experiment, cases)
    model = tiny_model_dir(tmp_path / "model", tokenizer)
    config, rows = rg_round(experiment, cases, tmp_path, model_path=str(model))
    OmegaConf.resolve(config)
    worker = RewardLoopWorker(config)
    data, _ = rows_batch(rows, [text for _, text in cases], tokenizer)
    results = score(worker, data)
    for (item, text), got in zip(cases, results, strict=True):
        judged = task.judge(item, text)
        assert got["reward_score"] == pytest.approx(task.reward(item, text, valid_rate=VALID_RATE))
        assert set(got["reward_extra_info"]) == set(scored_keys(task))
        assert got["reward_extra_info"]["valid"] == float(judged.valid), text[:40]
    assert {r["reward_extra_info"]["valid"] for r in results} == {0.0, 1.0}, "a mixed batch"
