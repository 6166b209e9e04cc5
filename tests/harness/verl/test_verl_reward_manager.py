"""The reward entry point driven through verl 0.6.1's own reward manager (the 0.6 line only:
verl 0.9's trainer scores through its reward loop, ``test_verl_current_reward_loop.py``).

The reward manager is built exactly as ``verl.trainer.main_ppo`` builds it -- `load_reward_manager`
on the Hydra config our overrides compose -- and called on a hand-built `DataProto` holding
responses of every kind for instances exported by the testbed; every score must equal what
mapf_env's reward gives directly for the same response, valid rate and reward settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from omegaconf import DictConfig
from verl.trainer.ppo.reward import compute_reward, load_reward_manager
from verl.workers.reward_manager.naive import NaiveRewardManager

from harness.experiment import ExperimentConfig
from mapf_env import Instance, reward
from tests.harness.verl.cases import REWARD, VALID_RATE, reward_batch, round_config


@pytest.fixture
def config(paper: ExperimentConfig, round_files: tuple[Path, Path], tmp_path: Path) -> DictConfig:
    return round_config(paper, round_files, tmp_path)


@pytest.mark.usefixtures("fresh_reward_module")
def test_scores_through_verls_reward_manager_equal_the_testbeds_reward(
    config: DictConfig,
    scored_cases: list[tuple[str, Instance, str]],
    tokenizer: Any,
    tmp_path: Path,
) -> None:
    manager = load_reward_manager(config, tokenizer, num_examine=0)
    assert isinstance(manager, NaiveRewardManager)
    data, lengths = reward_batch(scored_cases, tokenizer, tmp_path)
    out = manager(data, return_dict=True)
    assert isinstance(out, dict)
    scores, extra = out["reward_tensor"], out["reward_extra_info"]

    expected = [reward(inst, text, REWARD, VALID_RATE).as_dict() for _, inst, text in scored_cases]
    for i, (name, _, _) in enumerate(scored_cases):
        # verl decodes the response tokens and puts the score on the last one
        assert scores[i, lengths[i] - 1].item() == pytest.approx(expected[i]["score"]), name
        assert scores[i].count_nonzero().item() <= 1, name
        for key, value in expected[i].items():
            assert extra[key][i] == value, (name, key)
    assert set(extra) == set(expected[0])

    kinds = {e["valid"] for e in expected}, {e["optimal"] for e in expected}
    assert kinds == ({0.0, 1.0}, {0.0, 1.0}), "the batch must mix valid, optimal and invalid"
    assert any(e["fail_parse"] for e in expected), "and an unparsable answer"
    assert any(e["valid"] and not e["optimal"] for e in expected), "and a suboptimal one"


@pytest.mark.usefixtures("fresh_reward_module")
def test_the_trainers_compute_reward_path(
    config: DictConfig,
    scored_cases: list[tuple[str, Instance, str]],
    tokenizer: Any,
    tmp_path: Path,
) -> None:
    """`compute_reward` is what RayPPOTrainer.fit calls each step (it falls back to a bare
    tensor, dropping the extra info, if the dict call raises: it must not)."""
    manager = load_reward_manager(config, tokenizer, num_examine=1)
    data, _ = reward_batch(scored_cases[:6], tokenizer, tmp_path)
    tensor, extra = compute_reward(data, manager)
    assert tensor.shape == data.batch["responses"].shape
    assert set(extra) >= {"score", "valid", "optimal", "accuracy_weight"}
    assert extra["accuracy_weight"][0] == pytest.approx(0.6 + (0.95 - 0.6) * VALID_RATE)


@pytest.mark.usefixtures("fresh_reward_module")
def test_a_typo_in_the_reward_settings_stops_the_run(
    paper: ExperimentConfig,
    round_files: tuple[Path, Path],
    scored_cases: list[tuple[str, Instance, str]],
    tokenizer: Any,
    tmp_path: Path,
) -> None:
    typo = "+custom_reward_function.reward_kwargs.gap_coeff=1.0"
    config = round_config(paper, round_files, tmp_path, typo)
    manager = load_reward_manager(config, tokenizer, num_examine=0)
    data, _ = reward_batch(scored_cases[:2], tokenizer, tmp_path)
    with pytest.raises(ValueError, match="gap_coeff"):
        manager(data, return_dict=True)
