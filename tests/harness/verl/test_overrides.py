"""The verl settings, the round's Hydra overrides and the reward entry point, without verl.

These run everywhere; ``test_verl_*.py`` beside them check the same overrides and the reward
against verl 0.6.1 itself.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from envdesign_common.field_errors import ConfigError
from harness.backends.verl import (
    DUMP_KEYS,
    REWARD_MODULE,
    RoundInputs,
    VerlSettings,
    build_overrides,
    dump_file,
    final_hf_model,
    hf_model_dir,
    hydra_value,
    latest_step,
    main_ppo_command,
    plan_round,
    shell_command,
)
from harness.backends.verl.runtime import VerlRuntime
from harness.backends.verl.settings import verl_section
from harness.backends.verl.target import VerlTarget, resolve_target
from harness.experiment import ExperimentConfig
from mapf_env import Instance, RewardConfig, reward
from tasks.mapf_frozenlake import MapfSettings
from tests.harness.verl.cases import PAPER_PRESET, golden_cases

CASES = golden_cases()


def inputs(tmp_path: Path, **changes: Any) -> RoundInputs:
    base: dict[str, Any] = {
        "round": 0,
        "train_files": tmp_path / "train.parquet",
        "val_files": tmp_path / "val.parquet",
        "checkpoint_dir": tmp_path / "round-000" / "verl",
        "run_name": "self-seed0",
    }
    return RoundInputs(**{**base, **changes})


def as_dict(overrides: list[str]) -> dict[str, str]:
    pairs = [o.split("=", 1) for o in overrides]
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), "an override key appears twice"
    return dict(pairs)  # type: ignore[arg-type]


@pytest.fixture
def paper() -> ExperimentConfig:
    return ExperimentConfig.load(PAPER_PRESET)


# --- the preset and ExperimentConfig ------------------------------------------------------


def test_paper_preset_is_the_papers_recipe(paper: ExperimentConfig) -> None:
    assert paper.backend == "verl" and paper.policy == "Qwen/Qwen3-4B"
    assert (paper.rounds, paper.samples_per_round, paper.epochs_per_round) == (3, 4000, 3)
    assert (paper.grpo.group_size, paper.grpo.learning_rate, paper.grpo.kl_coef) == (8, 2e-6, 1e-3)
    # the preset spells out the defaults, and states the policy's size for the estimates
    assert verl_section(paper).model_params == 4_022_468_096
    assert verl_section(paper).model_copy(update={"model_params": None}) == VerlSettings()


def test_preset_round_trips_and_takes_overrides(paper: ExperimentConfig, tmp_path: Path) -> None:
    copy = tmp_path / "copy.yaml"
    copy.write_text(paper.to_yaml())
    assert ExperimentConfig.load(copy) == paper
    changed = ExperimentConfig.load(PAPER_PRESET, ["verl.n_gpus_per_node=8", "verl.logger=[wandb]"])
    assert isinstance(changed.backend_settings, VerlSettings)
    assert (verl_section(changed).n_gpus_per_node, verl_section(changed).logger) == (8, ("wandb",))


def test_cpu_experiments_record_no_verl_section() -> None:
    """Run directories compare the recorded experiment on resume: CPU records are unchanged,
    and hold their own section only where it differs from its defaults."""
    cpu = ExperimentConfig()
    recorded = cpu.model_dump(mode="json")
    assert "verl" not in recorded and "cpu" not in recorded
    assert "verl" not in cpu.to_yaml() and "cpu:" not in cpu.to_yaml()
    turns = ExperimentConfig.from_mapping({"cpu": {"decide": "in_turn"}})
    assert turns.model_dump(mode="json")["cpu"]["decide"] == "in_turn"
    assert ExperimentConfig.from_mapping(turns.model_dump(mode="json")) == turns


def test_verl_backend_gets_the_recipe_when_the_section_is_missing() -> None:
    config = ExperimentConfig.from_mapping({"backend": "verl", "policy": "Qwen/Qwen3-4B"})
    assert config.backend_settings == VerlSettings()
    assert config.model_dump(mode="json")["verl"]["tensor_parallel"] == 2


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        (["verl.tensor_parallel=3"], "tensor_parallel"),
        (["verl.ppo_mini_batch_size=256"], "must not exceed train_batch_size"),
        (["verl.save_contents=[model,optimizer]"], "hf_model"),
        (["verl.logger=[slack]"], "logger"),
        (["verl.gpu_memory_utilization=1.5"], "gpu_memory_utilization"),
        (["verl.n_gpu=4"], "n_gpu"),
    ],
)
def test_bad_verl_settings_name_the_field(overrides: list[str], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        ExperimentConfig.load(PAPER_PRESET, overrides)


# --- the batch arithmetic ---------------------------------------------------------------


def test_paper_batch_plan() -> None:
    plan = plan_round(VerlSettings(), group_size=8, train_rows=4000, epochs=3)
    assert plan.samples_per_mini_batch == 1024  # the paper's 1024 samples per mini-batch
    assert (plan.steps_per_epoch, plan.total_steps, plan.dropped_per_epoch) == (31, 93, 32)
    assert plan.samples_per_gpu_per_mini_batch == 256
    assert plan.grad_accumulation == 64  # not the paper's 8: see VerlSettings' docstring
    assert plan.save_freq == 31 and plan.samples_per_step == 1024


@pytest.mark.parametrize(
    ("settings", "group", "rows", "match"),
    [
        ({}, 8, 100, "no full batch"),
        ({"n_gpus_per_node": 3, "tensor_parallel": 1}, 8, 4000, "divide evenly over 3 GPUs"),
        ({"micro_batch_size_per_gpu": 3}, 8, 4000, "multiple of micro_batch_size_per_gpu"),
    ],
)
def test_batch_plan_rejects_what_verl_would(
    settings: dict[str, Any], group: int, rows: int, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        plan_round(VerlSettings(**settings), group_size=group, train_rows=rows, epochs=1)


# --- the overrides ----------------------------------------------------------------------


def test_paper_recipe_lands_in_verls_keys(paper: ExperimentConfig, tmp_path: Path) -> None:
    assert isinstance(paper.backend_settings, VerlSettings)
    got = as_dict(build_overrides(paper, verl_section(paper), inputs(tmp_path, valid_rate=0.25)))
    expected = {
        "algorithm.adv_estimator": "grpo",
        "algorithm.use_kl_in_reward": "false",
        "data.train_batch_size": "128",
        "data.max_prompt_length": "1536",
        "data.max_response_length": "5120",
        "+data.apply_chat_template_kwargs.enable_thinking": "true",
        "actor_rollout_ref.model.path": "Qwen/Qwen3-4B",
        "actor_rollout_ref.model.enable_gradient_checkpointing": "true",
        "actor_rollout_ref.actor.optim.lr": "2e-06",
        "actor_rollout_ref.actor.optim.lr_scheduler_type": "constant",
        "actor_rollout_ref.actor.ppo_mini_batch_size": "128",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": "4",
        "actor_rollout_ref.actor.use_kl_loss": "true",
        "actor_rollout_ref.actor.kl_loss_coef": "0.001",
        "actor_rollout_ref.actor.kl_loss_type": "low_var_kl",
        "actor_rollout_ref.actor.entropy_coeff": "0.0",
        "actor_rollout_ref.actor.fsdp_config.param_offload": "false",
        "actor_rollout_ref.actor.checkpoint.save_contents": "[model,optimizer,extra,hf_model]",
        "actor_rollout_ref.ref.fsdp_config.param_offload": "true",
        "actor_rollout_ref.rollout.name": "vllm",
        "actor_rollout_ref.rollout.n": "8",
        "actor_rollout_ref.rollout.tensor_model_parallel_size": "2",
        "actor_rollout_ref.rollout.gpu_memory_utilization": "0.55",
        "critic.enable": "false",
        "custom_reward_function.path": str(REWARD_MODULE),
        "custom_reward_function.name": "compute_score",
        "+custom_reward_function.reward_kwargs.valid_rate": "0.25",
        "+custom_reward_function.reward_kwargs.w_min": "0.7",
        "trainer.project_name": "paper_qwen3_4b",
        "trainer.experiment_name": "self-seed0-round0",
        "trainer.logger": "[console]",
        "trainer.n_gpus_per_node": "4",
        "trainer.nnodes": "1",
        "trainer.total_epochs": "3",
        "trainer.save_freq": "31",
        "trainer.test_freq": "-1",
        "trainer.val_before_train": "false",
        "trainer.resume_mode": "auto",
        "trainer.default_local_dir": str(tmp_path / "round-000" / "verl"),
        "data.train_files": str(tmp_path / "train.parquet"),
    }
    assert {k: got.get(k) for k in expected} == expected


def test_every_reward_setting_is_passed(paper: ExperimentConfig, tmp_path: Path) -> None:
    reward = RewardConfig(gap_coef=0.0, length_gate="valid")
    rewarded = paper.model_copy(update={"task_settings": MapfSettings(reward=reward)})
    got = as_dict(build_overrides(rewarded, VerlSettings(), inputs(tmp_path)))
    prefix = "+custom_reward_function.reward_kwargs."
    passed = {k.removeprefix(prefix): v for k, v in got.items() if k.startswith(prefix)}
    assert set(passed) == {"valid_rate", *RewardConfig.model_fields}
    assert (passed["gap_coef"], passed["length_gate"]) == ("0.0", "valid")


def test_later_rounds_start_from_the_given_model(paper: ExperimentConfig, tmp_path: Path) -> None:
    assert isinstance(paper.backend_settings, VerlSettings)
    previous = tmp_path / "round-000" / "verl" / "global_step_93" / "actor" / "huggingface"
    got = as_dict(
        build_overrides(
            paper, verl_section(paper), inputs(tmp_path, round=1, model_path=str(previous), seed=7)
        )
    )
    assert got["actor_rollout_ref.model.path"] == str(previous)
    assert (got["trainer.experiment_name"], got["data.seed"]) == ("self-seed0-round1", "7")


def test_kl_switches(paper: ExperimentConfig, tmp_path: Path) -> None:
    no_kl = paper.model_copy(update={"grpo": paper.grpo.model_copy(update={"kl_coef": 0.0})})
    got = as_dict(build_overrides(no_kl, VerlSettings(), inputs(tmp_path)))
    assert got["actor_rollout_ref.actor.use_kl_loss"] == "false"
    assert got["algorithm.use_kl_in_reward"] == "false"
    in_reward = as_dict(
        build_overrides(paper, VerlSettings(use_kl_in_reward=True), inputs(tmp_path))
    )
    assert in_reward["actor_rollout_ref.actor.use_kl_loss"] == "false"
    assert in_reward["algorithm.use_kl_in_reward"] == "true"
    assert in_reward["algorithm.kl_ctrl.kl_coef"] == "0.001"
    assert in_reward["algorithm.kl_penalty"] == "low_var_kl"


def test_thinking_setting(paper: ExperimentConfig, tmp_path: Path) -> None:
    key = "+data.apply_chat_template_kwargs.enable_thinking"
    off = as_dict(build_overrides(paper, VerlSettings(enable_thinking=False), inputs(tmp_path)))
    unset = as_dict(build_overrides(paper, VerlSettings(enable_thinking=None), inputs(tmp_path)))
    assert off[key] == "false" and key not in unset


def test_extra_overrides_come_last_and_resume_mode_per_round(
    paper: ExperimentConfig, tmp_path: Path
) -> None:
    settings = VerlSettings(extra_overrides=("trainer.balance_batch=false",))
    got = build_overrides(paper, settings, inputs(tmp_path, resume_mode="disable"))
    assert got[-1] == "trainer.balance_batch=false"
    assert "trainer.resume_mode=disable" in got


def test_the_cpu_policy_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="policy 'mlp' is the CPU learner's"):
        build_overrides(ExperimentConfig(), VerlSettings(), inputs(tmp_path))


def target(line: str = "0.6", flash_attn: bool = True, **settings: Any) -> VerlTarget:
    version = {"0.6": "0.6.1", "0.9": "0.9.1"}[line]
    machine = VerlRuntime(verl_version=version, flash_attn=flash_attn)
    return resolve_target(VerlSettings(**settings), machine)


ATTENTION = "+actor_rollout_ref.model.override_config.attn_implementation"
PADDING = "actor_rollout_ref.model.use_remove_padding"


def test_attention_and_padding_follow_the_target(paper: ExperimentConfig, tmp_path: Path) -> None:
    plain = as_dict(build_overrides(paper, VerlSettings(), inputs(tmp_path)))
    assert (plain[ATTENTION], plain[PADDING]) == ("flash_attention_2", "true")  # the paper's
    no_flash = target(flash_attn=False)
    got = as_dict(build_overrides(paper, VerlSettings(), inputs(tmp_path), target=no_flash))
    assert (got[ATTENTION], got[PADDING]) == ("sdpa", "false")
    sdpa = as_dict(build_overrides(paper, VerlSettings(attention="sdpa"), inputs(tmp_path)))
    assert (sdpa[ATTENTION], sdpa[PADDING]) == ("sdpa", "false")
    unpacked = VerlSettings(use_remove_padding=False)
    packed = target(use_remove_padding=False)
    off = as_dict(build_overrides(paper, unpacked, inputs(tmp_path), target=packed))
    assert (off[ATTENTION], off[PADDING]) == ("flash_attention_2", "false")


def test_validation_inside_verl(paper: ExperimentConfig, tmp_path: Path) -> None:
    """Once, after the round's last step (93 = 31 steps x 3 epochs), greedy, dumped."""
    where = inputs(tmp_path, validation_dir=tmp_path / "val")
    got = as_dict(build_overrides(paper, VerlSettings(), where))
    validation = ("trainer.test_freq", "trainer.val", "actor_rollout_ref.rollout.val_kwargs")
    assert {k: v for k, v in got.items() if k.startswith(validation)} == {
        "trainer.test_freq": "93",
        "trainer.val_before_train": "false",
        "actor_rollout_ref.rollout.val_kwargs.do_sample": "false",
        "actor_rollout_ref.rollout.val_kwargs.temperature": "0.0",
        "actor_rollout_ref.rollout.val_kwargs.top_p": "1.0",
        "actor_rollout_ref.rollout.val_kwargs.top_k": "-1",
        "actor_rollout_ref.rollout.val_kwargs.n": "1",
        "trainer.validation_data_dir": str(tmp_path / "val"),
    }
    off = as_dict(build_overrides(paper, VerlSettings(), inputs(tmp_path)))
    assert off["trainer.test_freq"] == "-1" and "trainer.validation_data_dir" not in off
    assert not any("val_kwargs" in k for k in off)


def test_the_current_line_moves_the_reward_and_rolls_out_async(
    paper: ExperimentConfig, tmp_path: Path
) -> None:
    assert isinstance(paper.backend_settings, VerlSettings)
    old = as_dict(
        build_overrides(paper, verl_section(paper), inputs(tmp_path), target=target("0.6"))
    )
    new = as_dict(
        build_overrides(paper, verl_section(paper), inputs(tmp_path), target=target("0.9"))
    )
    moved = {k.replace("custom_reward_function", "reward.custom_reward_function", 1): v
             for k, v in old.items() if "custom_reward_function" in k}  # fmt: skip
    assert {k: new[k] for k in moved} == moved
    assert not any(k.lstrip("+").startswith("custom_reward_function") for k in new)
    assert (old["actor_rollout_ref.rollout.mode"], new["actor_rollout_ref.rollout.mode"]) == (
        "sync",
        "async",
    )
    rest = {k: v for k, v in old.items() if "custom_reward_function" not in k}
    assert {k: new[k] for k in rest if k != "actor_rollout_ref.rollout.mode"} == {
        k: v for k, v in rest.items() if k != "actor_rollout_ref.rollout.mode"
    }


def test_dump_files_are_named_by_step(tmp_path: Path) -> None:
    assert dump_file(tmp_path, 93) == tmp_path / "93.jsonl"
    assert set(DUMP_KEYS) == {"input", "output", "gts", "score", "step"}


def test_relative_paths_become_absolute(paper: ExperimentConfig) -> None:
    got = as_dict(build_overrides(paper, VerlSettings(), inputs(Path("runs/x"))))
    assert Path(got["data.train_files"]).is_absolute()
    assert Path(got["trainer.default_local_dir"]).is_absolute()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (None, "null"),
        (3, "3"),
        (2e-6, "2e-06"),
        (0.55, "0.55"),
        ("Qwen/Qwen3-4B", "Qwen/Qwen3-4B"),
        ("/runs/a_b/train-1.parquet", "/runs/a_b/train-1.parquet"),
        ("100", "'100'"),
        ("true", "'true'"),
        ("~/models/x", "'~/models/x'"),
        ("a b,c=d", "'a b,c=d'"),
        ("it's", "'it\\'s'"),
        ("C:\\dir\\", "'C:\\dir\\\\'"),
        (["console", "wandb"], "[console,wandb]"),
        (Path("/x y"), "'/x y'"),
    ],
)
def test_hydra_values(value: Any, text: str) -> None:
    assert hydra_value(value) == text


@pytest.mark.parametrize("value", ["${oc.env:HOME}", "a\nb", math.nan, math.inf])
def test_hydra_values_that_cannot_pass(value: Any) -> None:
    with pytest.raises(ValueError):
        hydra_value(value)


def test_command_lines(tmp_path: Path) -> None:
    argv = main_ppo_command(["a=1", "b='x y'"], python="python3")
    assert argv == ["python3", "-m", "verl.trainer.main_ppo", "a=1", "b='x y'"]
    assert shell_command(argv) == "python3 -m verl.trainer.main_ppo a=1 'b='\"'\"'x y'\"'\"''"


# --- what a round leaves behind ---------------------------------------------------------


def test_final_model_of_a_finished_round(tmp_path: Path) -> None:
    plan = plan_round(VerlSettings(), group_size=8, train_rows=256, epochs=2)  # 4 steps
    ckpt = tmp_path / "verl"
    assert latest_step(ckpt) is None
    with pytest.raises(FileNotFoundError, match="did not finish"):
        final_hf_model(ckpt, plan)
    ckpt.mkdir()
    (ckpt / "latest_checkpointed_iteration.txt").write_text("4")
    with pytest.raises(FileNotFoundError, match="hf_model"):
        final_hf_model(ckpt, plan)
    hf = hf_model_dir(ckpt, 4)
    hf.mkdir(parents=True)
    (hf / "config.json").write_text("{}")
    assert final_hf_model(ckpt, plan) == hf == ckpt / "global_step_4" / "actor" / "huggingface"
    (ckpt / "latest_checkpointed_iteration.txt").write_text("x")
    with pytest.raises(ValueError, match="not a step number"):
        latest_step(ckpt)


# --- the reward entry point, loaded by path as verl loads it -----------------------------


def load_reward_module() -> Any:
    spec = importlib.util.spec_from_file_location("envdesign_reward_under_test", REWARD_MODULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("name", "instance", "response"), CASES, ids=[c[0] for c in CASES])
def test_compute_score_is_the_testbeds_reward(name: str, instance: Instance, response: str) -> None:
    compute_score = load_reward_module().compute_score
    ground_truth = instance.model_dump_json()
    for rate in (0.0, 0.6):
        got = compute_score("mapf_frozenlake", response, ground_truth, {"size": 3}, valid_rate=rate)
        assert got == reward(instance, response, valid_rate=rate).as_dict()
    cfg = RewardConfig(gap_coef=0.0, w_min=0.5)
    got = compute_score("x", response, ground_truth, None, valid_rate=0.3, **cfg.model_dump())
    assert got == reward(instance, response, cfg, 0.3).as_dict()


def test_compute_score_rejects_bad_input() -> None:
    compute_score = load_reward_module().compute_score
    _, instance, response = CASES[0]
    with pytest.raises(ValueError, match="does not take"):
        compute_score("x", response, instance.model_dump_json(), {}, gap_coeff=1.0)
    with pytest.raises(ValueError, match="not an instance JSON"):
        compute_score("x", response, '{"grid": 3}', {})
    with pytest.raises(ValueError, match="not the instance JSON string"):
        compute_score("x", response, None, {})


def test_reward_module_imports_only_the_testbed() -> None:
    source = REWARD_MODULE.read_text(encoding="utf-8")
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert all(
        line.startswith(("from __future__", "from functools", "from typing", "from mapf_env"))
        for line in imports
    ), imports


def test_settings_are_frozen() -> None:
    with pytest.raises(ValidationError):
        VerlSettings().n_gpus_per_node = 2  # type: ignore[misc]
