"""The reward entry point driven through verl 0.6.1's own reward manager.

The reward manager is built exactly as ``verl.trainer.main_ppo`` builds it -- `load_reward_manager`
on the Hydra config our overrides compose -- and called on a hand-built `DataProto` holding
responses of every kind for instances exported by the testbed; every score must equal what
mapf_env's reward gives directly for the same response, valid rate and reward settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import verl
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig
from verl import DataProto
from verl.trainer.ppo.reward import compute_reward, load_reward_manager
from verl.workers.reward_manager.naive import NaiveRewardManager

from harness.backends.verl import RoundInputs, VerlSettings, build_overrides
from harness.experiment import ExperimentConfig
from mapf_env import Instance, RewardConfig, read_records, reward, write_parquet

CONFIG_DIR = str(Path(verl.__file__).resolve().parent / "trainer" / "config")
VALID_RATE = 0.4
REWARD = RewardConfig(gap_coef=0.5, budget_tokens=64, w_min=0.6)


def composed(overrides: list[str]) -> DictConfig:
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def round_config(
    paper: ExperimentConfig, round_files: tuple[Path, Path], tmp_path: Path, *extra: str
) -> DictConfig:
    train, val = round_files
    inputs = RoundInputs(
        round=1,
        train_files=train,
        val_files=val,
        checkpoint_dir=tmp_path / "ckpt",
        valid_rate=VALID_RATE,
    )
    settings = VerlSettings(reward=REWARD, extra_overrides=extra)
    return composed(build_overrides(paper, settings, inputs))


@pytest.fixture
def config(paper: ExperimentConfig, round_files: tuple[Path, Path], tmp_path: Path) -> DictConfig:
    return round_config(paper, round_files, tmp_path)


def batch(
    cases: list[tuple[str, Instance, str]], tokenizer: Any, tmp_path: Path
) -> tuple[DataProto, list[int]]:
    """What the trainer hands the reward manager after a rollout: left-padded prompts,
    right-padded responses ending in EOS, one attention mask, and the parquet's non-tensor
    columns. Rows come from a parquet the testbed wrote, read back as verl's dataset reads it."""
    path = tmp_path / "batch.parquet"
    write_parquet([inst for _, inst, _ in cases], path)
    rows = read_records(path)
    prompts = [
        tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=True)
        for row in rows
    ]
    responses = [[*tokenizer.encode(text), tokenizer.eos_token_id] for _, _, text in cases]
    p_len, r_len = max(map(len, prompts)), max(map(len, responses))
    pad = tokenizer.pad_token_id
    prompt_ids = torch.tensor([[pad] * (p_len - len(p)) + p for p in prompts])
    response_ids = torch.tensor([r + [pad] * (r_len - len(r)) for r in responses])
    mask = torch.tensor(
        [
            [0] * (p_len - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (r_len - len(r))
            for p, r in zip(prompts, responses, strict=True)
        ]
    )
    data = DataProto.from_dict(
        tensors={
            "prompts": prompt_ids,
            "responses": response_ids,
            "input_ids": torch.cat([prompt_ids, response_ids], dim=1),
            "attention_mask": mask,
        },
        non_tensors={
            key: np.array([row[key] for row in rows], dtype=object)
            for key in ("data_source", "reward_model", "extra_info")
        },
    )
    return data, [len(r) for r in responses]


@pytest.mark.usefixtures("fresh_reward_module")
def test_scores_through_verls_reward_manager_equal_the_testbeds_reward(
    config: DictConfig,
    scored_cases: list[tuple[str, Instance, str]],
    tokenizer: Any,
    tmp_path: Path,
) -> None:
    manager = load_reward_manager(config, tokenizer, num_examine=0)
    assert isinstance(manager, NaiveRewardManager)
    data, lengths = batch(scored_cases, tokenizer, tmp_path)
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
    data, _ = batch(scored_cases[:6], tokenizer, tmp_path)
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
    data, _ = batch(scored_cases[:2], tokenizer, tmp_path)
    with pytest.raises(ValueError, match="gap_coeff"):
        manager(data, return_dict=True)
