"""The round's Hydra overrides composed with verl 0.6.1's own config and checked by verl's own
validation, the checks ``main_ppo``'s TaskRunner runs before any worker starts.

A key verl renamed or dropped fails composition (Hydra refuses to set a key the config lacks);
a value verl rejects fails `validate_config` or the dataclass configs' own checks.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
import verl
import yaml
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException, InstantiationException
from omegaconf import DictConfig, OmegaConf
from verl.trainer.config import AlgoConfig
from verl.trainer.main_ppo import create_rl_dataset
from verl.trainer.ppo.utils import need_critic
from verl.utils.config import omega_conf_to_dataclass, validate_config
from verl.workers.config import FSDPActorConfig, HFModelConfig, RolloutConfig

from harness.backends.verl import (
    REWARD_MODULE,
    RoundInputs,
    VerlSettings,
    build_overrides,
    main_ppo_command,
    plan_round,
    shell_command,
)
from harness.experiment import ExperimentConfig
from mapf_env import DATA_SOURCE, Instance, read_records

CONFIG_DIR = str(Path(verl.__file__).resolve().parent / "trainer" / "config")


def compose_verl(overrides: list[str]) -> DictConfig:
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def verl_checks(cfg: DictConfig) -> None:
    """What verl runs on the config before training: interpolation, validate_config with the
    reference worker our KL setting implies, and the dataclass configs' own checks."""
    OmegaConf.resolve(cfg)
    use_ref = bool(cfg.actor_rollout_ref.actor.use_kl_loss or cfg.algorithm.use_kl_in_reward)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # need_critic warns that GRPO needs no critic
        use_critic = need_critic(cfg)
    validate_config(cfg, use_reference_policy=use_ref, use_critic=use_critic)
    assert isinstance(omega_conf_to_dataclass(cfg.algorithm), AlgoConfig)
    assert isinstance(omega_conf_to_dataclass(cfg.actor_rollout_ref.rollout), RolloutConfig)
    assert isinstance(omega_conf_to_dataclass(cfg.actor_rollout_ref.actor), FSDPActorConfig)


@pytest.fixture
def inputs(round_files: tuple[Path, Path], model_dir: Path, tmp_path: Path) -> RoundInputs:
    train, val = round_files
    return RoundInputs(
        round=1,
        train_files=train,
        val_files=val,
        checkpoint_dir=tmp_path / "round-001" / "verl",
        model_path=str(model_dir),
        run_name="self-seed0",
        seed=3,
        valid_rate=0.3,
        rollout_dir=tmp_path / "round-001" / "rollouts",
    )


def test_paper_overrides_compose_and_pass_verls_validation(
    paper: ExperimentConfig, inputs: RoundInputs
) -> None:
    assert paper.verl is not None
    overrides = build_overrides(paper, paper.verl, inputs)
    cfg = compose_verl(overrides)
    verl_checks(cfg)
    assert need_critic(cfg) is False

    # every value reached its key, as the type verl reads
    actor, rollout = cfg.actor_rollout_ref.actor, cfg.actor_rollout_ref.rollout
    assert cfg.algorithm.adv_estimator == "grpo" and cfg.algorithm.use_kl_in_reward is False
    assert (actor.optim.lr, actor.optim.lr_scheduler_type) == (2e-6, "constant")
    assert (actor.use_kl_loss, actor.kl_loss_coef, actor.kl_loss_type) == (True, 1e-3, "low_var_kl")
    assert actor.entropy_coeff == 0.0
    assert (actor.ppo_mini_batch_size, actor.ppo_micro_batch_size_per_gpu) == (128, 4)
    assert actor.fsdp_config.param_offload is False
    assert cfg.actor_rollout_ref.ref.fsdp_config.param_offload is True
    assert list(actor.checkpoint.save_contents) == ["model", "optimizer", "extra", "hf_model"]
    assert list(actor.checkpoint.load_contents) == list(actor.checkpoint.save_contents)
    assert cfg.actor_rollout_ref.model.enable_gradient_checkpointing is True
    assert (rollout.name, rollout.mode, rollout.n) == ("vllm", "sync", 8)
    assert (rollout.tensor_model_parallel_size, rollout.gpu_memory_utilization) == (2, 0.55)
    # prompt/response lengths reach the rollout through verl's own interpolation
    assert (rollout.prompt_length, rollout.response_length) == (1536, 5120)
    assert (cfg.data.max_prompt_length, cfg.data.max_response_length) == (1536, 5120)
    assert (cfg.data.train_batch_size, cfg.data.seed) == (128, 3)
    assert cfg.data.apply_chat_template_kwargs == {"enable_thinking": True}
    assert cfg.data.train_files == str(inputs.train_files)
    assert cfg.custom_reward_function.path == str(REWARD_MODULE)
    assert cfg.custom_reward_function.reward_kwargs.valid_rate == 0.3
    trainer = cfg.trainer
    assert (trainer.n_gpus_per_node, trainer.nnodes, trainer.total_epochs) == (4, 1, 3)
    assert (trainer.save_freq, trainer.test_freq, trainer.val_before_train) == (31, -1, False)
    assert (trainer.resume_mode, trainer.default_local_dir) == ("auto", str(inputs.checkpoint_dir))
    assert list(trainer.logger) == ["console"]
    assert trainer.experiment_name == "self-seed0-round1"
    assert trainer.rollout_data_dir == str(inputs.rollout_dir)


def test_the_backends_own_command_composes(paper: ExperimentConfig, tmp_path: Path) -> None:
    """The overrides VerlBackend launches main_ppo with (the file logger added, the round's
    files in the run directory) pass verl's validation."""
    from harness.backends.verl.backend import VerlBackend

    backend = VerlBackend(paper, tmp_path / "paper" / "self" / "seed-0")
    inputs = backend.round_inputs(0, paper.samples_per_round, seed=7)
    launch, job = backend.train_launch(inputs, tmp_path / "metrics.jsonl")
    assert job is None and launch.env["RAY_ADDRESS"] == "local"
    overrides = list(launch.argv[3:])
    assert launch.argv[1:3] == ("-m", "verl.trainer.main_ppo")
    cfg = compose_verl(overrides)
    verl_checks(cfg)
    assert list(cfg.trainer.logger) == ["console", "file"]
    assert cfg.custom_reward_function.path == str(inputs.reward_path)
    assert cfg.trainer.rollout_data_dir == str(inputs.rollout_dir)


@pytest.mark.parametrize(
    ("settings", "grpo"),
    [
        ({"use_kl_in_reward": True}, {}),
        ({}, {"kl_coef": 0.0}),
        ({"enable_thinking": None, "strategy": "fsdp2", "rollout_mode": "async"}, {}),
        (
            {
                "logger": ["console", "file", "tensorboard"],
                "save_freq": 5,
                "lr_scheduler": "cosine",
            },
            {},
        ),
        ({"n_gpus_per_node": 8, "nnodes": 2, "tensor_parallel": 4, "train_batch_size": 256}, {}),
        ({"max_actor_ckpt_to_keep": None, "resume_mode": "disable"}, {"group_size": 4}),
    ],
)
def test_every_setting_passes_verls_validation(
    paper: ExperimentConfig, inputs: RoundInputs, settings: dict[str, Any], grpo: dict[str, Any]
) -> None:
    experiment = paper.model_copy(update={"grpo": paper.grpo.model_copy(update=grpo)})
    verl_settings = VerlSettings(**settings)
    cfg = compose_verl(build_overrides(experiment, verl_settings, inputs))
    verl_checks(cfg)
    kl_on = experiment.grpo.kl_coef > 0
    assert cfg.algorithm.use_kl_in_reward is (kl_on and verl_settings.use_kl_in_reward)
    assert cfg.actor_rollout_ref.actor.use_kl_loss is (kl_on and not verl_settings.use_kl_in_reward)
    assert cfg.actor_rollout_ref.rollout.n == experiment.grpo.group_size


def test_model_config_reads_the_start_model(paper: ExperimentConfig, inputs: RoundInputs) -> None:
    """HFModelConfig (what the workers build from actor_rollout_ref.model) on a local model
    directory like the one a previous round saved."""
    cfg = compose_verl(build_overrides(paper, VerlSettings(), inputs))
    model = omega_conf_to_dataclass(cfg.actor_rollout_ref.model, dataclass_type=HFModelConfig)
    assert model.architectures == ["Qwen3ForCausalLM"]
    assert model.enable_gradient_checkpointing is True and model.use_remove_padding is True


@pytest.mark.parametrize("thinking", [True, False])
def test_verls_dataset_reads_the_exported_round(
    paper: ExperimentConfig, inputs: RoundInputs, tokenizer: Any, thinking: bool
) -> None:
    """RLHFDataset on the testbed's parquet with our data.* settings: prompts fit, the chat
    template sees enable_thinking, and the reward columns arrive as exported."""
    cfg = compose_verl(build_overrides(paper, VerlSettings(enable_thinking=thinking), inputs))
    dataset = create_rl_dataset(cfg.data.train_files, cfg.data, tokenizer, None, is_train=True)
    rows = read_records(inputs.train_files)
    assert len(dataset) == len(rows)
    for i in (0, len(rows) - 1):
        item = dataset[i]
        assert item["input_ids"].shape[-1] == cfg.data.max_prompt_length  # padded, not cut
        assert item["data_source"] == DATA_SOURCE
        truth = item["reward_model"]["ground_truth"]
        assert truth == rows[i]["reward_model"]["ground_truth"]
        assert Instance.model_validate_json(truth).id == rows[i]["extra_info"]["id"]
        text = tokenizer.decode(item["raw_prompt_ids"])
        assert text.endswith("<think>\n\n</think>\n\n") is (not thinking)


def test_round_arithmetic_matches_verls_dataloader(
    paper: ExperimentConfig, inputs: RoundInputs, tokenizer: Any, generated: tuple[Instance, ...]
) -> None:
    """Steps per epoch as verl counts them (drop_last batches of train_batch_size prompts)."""
    settings = VerlSettings(train_batch_size=4, ppo_mini_batch_size=2, n_gpus_per_node=2)
    plan = plan_round(settings, paper.grpo.group_size, len(generated), paper.epochs_per_round)
    rows = inputs.model_copy(update={"train_rows": len(generated)})
    cfg = compose_verl(build_overrides(paper, settings, rows))
    verl_checks(cfg)
    dataset = create_rl_dataset(cfg.data.train_files, cfg.data, tokenizer, None)
    from torchdata.stateful_dataloader import StatefulDataLoader

    loader = StatefulDataLoader(dataset, batch_size=cfg.data.train_batch_size, drop_last=True)
    assert len(loader) == plan.steps_per_epoch == 4
    assert cfg.trainer.save_freq == plan.save_freq


@pytest.mark.parametrize(
    "override",
    [
        "actor_rollout_ref.actor.ppo_micro_batch=4",  # a key verl does not have
        "trainer.n_gpus=4",
    ],
)
def test_a_key_verl_lacks_fails(
    paper: ExperimentConfig, inputs: RoundInputs, override: str
) -> None:
    settings = VerlSettings(extra_overrides=(override,))
    with pytest.raises(ConfigCompositionException):
        verl_checks(compose_verl(build_overrides(paper, settings, inputs)))


@pytest.mark.parametrize(
    ("override", "match"),
    [
        ("actor_rollout_ref.actor.loss_agg_mode=mean", "loss_agg_mode"),
        ("actor_rollout_ref.actor.ppo_micro_batch_size=4", "ppo_micro_batch_size"),
        ("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=null", "log_prob_micro"),
        ("data.train_batch_size=64", "must be >= actor.ppo_mini_batch_size"),
        ("trainer.n_gpus_per_node=3", "divisible by minimal possible batch size"),
    ],
)
def test_a_value_verl_rejects_fails(
    paper: ExperimentConfig, inputs: RoundInputs, override: str, match: str
) -> None:
    settings = VerlSettings(extra_overrides=(override,))
    with pytest.raises((AssertionError, ValueError, InstantiationException), match=match):
        verl_checks(compose_verl(build_overrides(paper, settings, inputs)))


def has_key(node: Any, dotted: str) -> bool:
    for part in dotted.split("."):
        if not isinstance(node, DictConfig) or part not in list(
            node.keys()
        ):  # "in" is False for ??? values
            return False
        node = node._get_node(part)
    return True


def test_every_key_is_where_verl_reads_it(paper: ExperimentConfig, inputs: RoundInputs) -> None:
    """Keys without '+' must already be in ppo_trainer.yaml (Hydra refuses them otherwise). Keys
    with '+' must not be, and must sit in one of the two mappings verl reads as free-form
    keyword arguments; Hydra would create a misspelt parent silently (the dataset and reward
    tests above show both mappings arrive)."""
    base = compose_verl([])
    read_as_kwargs = {"data.apply_chat_template_kwargs", "custom_reward_function.reward_kwargs"}
    assert has_key(base, "data.apply_chat_template_kwargs")
    assert has_key(base, "custom_reward_function")
    for override in build_overrides(paper, VerlSettings(), inputs):
        key = override.split("=", 1)[0]
        if key.startswith("+"):
            assert not has_key(base, key[1:]), key
            assert key[1:].rpartition(".")[0] in read_as_kwargs, key
        else:
            assert has_key(base, key), key


@pytest.mark.parametrize(
    "name",
    [
        "plain",
        "with space",
        "comma,equals=",
        "quote's",
        "back\\slash\\",
        "100",
        "~tilde",
        "4bit",
        "True",
        "1e5",
    ],
)
def test_odd_paths_reach_verl_unchanged(
    paper: ExperimentConfig, inputs: RoundInputs, tmp_path: Path, name: str
) -> None:
    odd = tmp_path / name / "train.parquet"
    changes = {"train_files": odd, "model_path": name, "run_name": name}
    cfg = compose_verl(build_overrides(paper, VerlSettings(), inputs.model_copy(update=changes)))
    assert cfg.data.train_files == str(odd)
    assert cfg.actor_rollout_ref.model.path == name  # relative: as given, never a number
    assert cfg.trainer.experiment_name == f"{name}-round1"


def test_the_command_line_itself(
    paper: ExperimentConfig, inputs: RoundInputs, tmp_path: Path
) -> None:
    """The exact argv, through a shell as a dry run prints it, parsed by main_ppo's own Hydra
    entry point (``--cfg job`` prints the composed config and trains nothing)."""
    odd = inputs.model_copy(update={"train_files": tmp_path / "a b's" / "train.parquet"})
    overrides = build_overrides(paper, VerlSettings(), odd)
    argv = [*main_ppo_command(overrides, python=sys.executable), "--cfg", "job"]
    done = subprocess.run(
        ["bash", "-c", shell_command(argv)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = yaml.safe_load(done.stdout)
    expected = OmegaConf.to_container(compose_verl(overrides))
    assert printed == expected
    assert printed["data"]["train_files"] == str(odd.train_files)
