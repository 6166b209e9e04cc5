"""The round's Hydra overrides composed with the installed verl's own config and checked by its
own validation, the checks ``main_ppo`` runs before any worker starts.

The same checks run under each supported line (`.ci/verl`: 0.6.1, `.ci/verl-current`: 0.9.1),
with the overrides the backend builds for that line (`installed_target`); the few expectations
that differ between the lines are read from the ``verl_line`` fixture. A key verl renamed or
dropped fails composition (Hydra refuses to set a key the config lacks); a value verl rejects
fails `validate_config` or the dataclass configs' own checks.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from hydra.errors import ConfigCompositionException, InstantiationException
from omegaconf import DictConfig, OmegaConf
from verl.trainer.config import AlgoConfig
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
from harness.backends.verl.overrides import (
    DUMP_KEYS,
    REWARD_SECTION,
    VALIDATION_DUMP_EXTRA,
    dump_file,
)
from harness.backends.verl.runtime import VerlRuntime
from harness.backends.verl.settings import verl_section
from harness.backends.verl.target import default_target, resolve_target
from harness.backends.verl.versions import VerlLine, version_set
from harness.experiment import ExperimentConfig
from mapf_env import DATA_SOURCE, Instance, read_records
from tests.harness.verl.cases import compose_verl, installed_target

ROLLOUT_MODE: dict[VerlLine, str] = {"0.6": "sync", "0.9": "async"}
"""The paper preset's rollout on each line (0.9 has only the async one)."""
DATASET_MODULE: dict[VerlLine, str] = {
    "0.6": "verl.trainer.main_ppo",
    "0.9": "verl.trainer.ppo.utils",
}


def overrides_for(
    experiment: ExperimentConfig, settings: VerlSettings, inputs: RoundInputs
) -> list[str]:
    """The overrides the backend builds on a flash-attn machine with the installed verl."""
    return build_overrides(experiment, settings, inputs, target=installed_target(settings))


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


def reward_node(cfg: DictConfig, line: VerlLine) -> Any:
    """The section the line's trainer loads the reward file from."""
    return OmegaConf.select(cfg, REWARD_SECTION[line])


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
    paper: ExperimentConfig, inputs: RoundInputs, verl_line: VerlLine
) -> None:
    assert isinstance(paper.backend_settings, VerlSettings)
    overrides = overrides_for(paper, verl_section(paper), inputs)
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
    assert (rollout.name, rollout.mode, rollout.n) == ("vllm", ROLLOUT_MODE[verl_line], 8)
    assert (rollout.tensor_model_parallel_size, rollout.gpu_memory_utilization) == (2, 0.55)
    # prompt/response lengths reach the rollout through verl's own interpolation
    assert (rollout.prompt_length, rollout.response_length) == (1536, 5120)
    assert (cfg.data.max_prompt_length, cfg.data.max_response_length) == (1536, 5120)
    assert (cfg.data.train_batch_size, cfg.data.seed) == (128, 3)
    assert cfg.data.apply_chat_template_kwargs == {"enable_thinking": True}
    assert cfg.data.train_files == str(inputs.train_files)
    assert reward_node(cfg, verl_line).path == str(REWARD_MODULE)
    assert reward_node(cfg, verl_line).reward_kwargs.valid_rate == 0.3
    model = cfg.actor_rollout_ref.model
    assert (model.override_config.attn_implementation, model.use_remove_padding) == (
        "flash_attention_2",
        True,
    )
    trainer = cfg.trainer
    assert (trainer.n_gpus_per_node, trainer.nnodes, trainer.total_epochs) == (4, 1, 3)
    assert (trainer.save_freq, trainer.test_freq, trainer.val_before_train) == (31, -1, False)
    assert (trainer.resume_mode, trainer.default_local_dir) == ("auto", str(inputs.checkpoint_dir))
    assert list(trainer.logger) == ["console"]
    assert trainer.experiment_name == "self-seed0-round1"
    assert trainer.rollout_data_dir == str(inputs.rollout_dir)


def test_the_backends_own_command_composes(
    paper: ExperimentConfig, tmp_path: Path, verl_line: VerlLine
) -> None:
    """The overrides VerlBackend launches main_ppo with (the file logger added, the round's
    files in the run directory, the target it resolves itself by probing this interpreter,
    which has verl and no flash-attn) pass verl's validation."""
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
    assert reward_node(cfg, verl_line).path == str(inputs.reward_path)
    assert backend.target.line == verl_line and backend.target.attention == "sdpa"
    model = cfg.actor_rollout_ref.model
    assert (model.override_config.attn_implementation, model.use_remove_padding) == ("sdpa", False)
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
    cfg = compose_verl(overrides_for(experiment, verl_settings, inputs))
    verl_checks(cfg)
    kl_on = experiment.grpo.kl_coef > 0
    assert cfg.algorithm.use_kl_in_reward is (kl_on and verl_settings.use_kl_in_reward)
    assert cfg.actor_rollout_ref.actor.use_kl_loss is (kl_on and not verl_settings.use_kl_in_reward)
    assert cfg.actor_rollout_ref.rollout.n == experiment.grpo.group_size


@pytest.mark.parametrize(
    ("settings", "flash_attn", "attention", "packed"),
    [
        ({}, True, "flash_attention_2", True),
        ({}, False, "sdpa", False),  # auto without a usable flash-attn
        ({"attention": "sdpa"}, True, "sdpa", False),
        ({"use_remove_padding": False}, True, "flash_attention_2", False),
    ],
)
def test_model_config_reads_the_start_model_and_attention(
    paper: ExperimentConfig,
    inputs: RoundInputs,
    settings: dict[str, Any],
    flash_attn: bool,
    attention: str,
    packed: bool,
) -> None:
    """HFModelConfig -- what verl's actor and reference workers build their models from, on
    both lines -- on a local model directory like the one a previous round saved: it loads the
    Hugging Face config with the attention the target chose, and packs sequences only with
    flash-attn."""
    verl_settings = VerlSettings(**settings)
    target = installed_target(verl_settings, flash_attn=flash_attn)
    cfg = compose_verl(build_overrides(paper, verl_settings, inputs, target=target))
    verl_checks(cfg)
    model = omega_conf_to_dataclass(cfg.actor_rollout_ref.model, dataclass_type=HFModelConfig)
    assert model.architectures == ["Qwen3ForCausalLM"]
    assert model.enable_gradient_checkpointing is True
    assert model.hf_config._attn_implementation == attention
    assert model.use_remove_padding is packed
    assert cfg.actor_rollout_ref.actor.use_remove_padding is packed  # verl's own interpolation


def prompt_tokens(line: VerlLine, item: dict[str, Any], cfg: DictConfig, tokenizer: Any) -> Any:
    """The prompt's token ids as the line's rollout receives them: 0.6's dataset applies the
    chat template itself; 0.9's hands the messages to the agent loop, whose Continuous Token
    builder applies it with ``data.apply_chat_template_kwargs``."""
    if line == "0.6":
        assert item["input_ids"].shape[-1] == cfg.data.max_prompt_length  # padded, not cut
        return item["raw_prompt_ids"]
    from verl.utils.tokenizer.continuous_token_wiring import create_continuous_token_builder

    builder = create_continuous_token_builder(
        tokenizer, chat_template_kwargs=dict(cfg.data.apply_chat_template_kwargs)
    )
    return builder.build_initial_tokens(list(item["raw_prompt"]))


@pytest.mark.parametrize("thinking", [True, False])
def test_verls_dataset_reads_the_exported_round(
    paper: ExperimentConfig,
    inputs: RoundInputs,
    tokenizer: Any,
    thinking: bool,
    verl_line: VerlLine,
) -> None:
    """RLHFDataset on the testbed's parquet with our data.* settings: prompts fit (0.9 would
    cut a longer one from the left with only a warning), the chat template sees
    enable_thinking, and the reward columns arrive as exported."""
    cfg = compose_verl(overrides_for(paper, VerlSettings(enable_thinking=thinking), inputs))
    create_rl_dataset = importlib.import_module(DATASET_MODULE[verl_line]).create_rl_dataset
    dataset = create_rl_dataset(cfg.data.train_files, cfg.data, tokenizer, None, is_train=True)
    rows = read_records(inputs.train_files)
    assert len(dataset) == len(rows)
    for i in (0, len(rows) - 1):
        item = dataset[i]
        assert item["data_source"] == DATA_SOURCE
        truth = item["reward_model"]["ground_truth"]
        assert truth == rows[i]["reward_model"]["ground_truth"]
        assert Instance.model_validate_json(truth).id == rows[i]["extra_info"]["id"]
        ids = prompt_tokens(verl_line, item, cfg, tokenizer)
        assert len(ids) <= cfg.data.max_prompt_length
        text = tokenizer.decode(ids)
        assert text.endswith("<think>\n\n</think>\n\n") is (not thinking)


def test_round_arithmetic_matches_verls_dataloader(
    paper: ExperimentConfig,
    inputs: RoundInputs,
    tokenizer: Any,
    generated: tuple[Instance, ...],
    verl_line: VerlLine,
) -> None:
    """Steps per epoch as verl counts them (drop_last batches of train_batch_size prompts)."""
    settings = VerlSettings(train_batch_size=4, ppo_mini_batch_size=2, n_gpus_per_node=2)
    plan = plan_round(settings, paper.grpo.group_size, len(generated), paper.epochs_per_round)
    rows = inputs.model_copy(update={"train_rows": len(generated)})
    cfg = compose_verl(overrides_for(paper, settings, rows))
    verl_checks(cfg)
    create_rl_dataset = importlib.import_module(DATASET_MODULE[verl_line]).create_rl_dataset
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
        verl_checks(compose_verl(overrides_for(paper, settings, inputs)))


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
        verl_checks(compose_verl(overrides_for(paper, settings, inputs)))


def has_key(node: Any, dotted: str) -> bool:
    for part in dotted.split("."):
        if not isinstance(node, DictConfig) or part not in list(
            node.keys()
        ):  # "in" is False for ??? values
            return False
        node = node._get_node(part)
    return True


def test_every_key_is_where_verl_reads_it(
    paper: ExperimentConfig, inputs: RoundInputs, verl_line: VerlLine
) -> None:
    """Keys without '+' must already be in ppo_trainer.yaml (Hydra refuses them otherwise). Keys
    with '+' must not be, and must sit in one of the three mappings verl reads as free-form
    keyword arguments; Hydra would create a misspelt parent silently (the dataset, reward and
    model-config tests show all three arrive)."""
    base = compose_verl([])
    section = REWARD_SECTION[verl_line]
    read_as_kwargs = {
        "data.apply_chat_template_kwargs",
        f"{section}.reward_kwargs",
        "actor_rollout_ref.model.override_config",
    }
    assert has_key(base, "data.apply_chat_template_kwargs")
    assert has_key(base, section) and has_key(base, "actor_rollout_ref.model.override_config")
    for override in overrides_for(paper, VerlSettings(), inputs):
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
    cfg = compose_verl(overrides_for(paper, VerlSettings(), inputs.model_copy(update=changes)))
    assert cfg.data.train_files == str(odd)
    assert cfg.actor_rollout_ref.model.path == name  # relative: as given, never a number
    assert cfg.trainer.experiment_name == f"{name}-round1"


def test_the_command_line_itself(
    paper: ExperimentConfig, inputs: RoundInputs, tmp_path: Path
) -> None:
    """The exact argv, through a shell as a dry run prints it, parsed by main_ppo's own Hydra
    entry point (``--cfg job`` prints the composed config and trains nothing)."""
    odd = inputs.model_copy(update={"train_files": tmp_path / "a b's" / "train.parquet"})
    overrides = overrides_for(paper, VerlSettings(), odd)
    argv = [*main_ppo_command(overrides, python=sys.executable), "--cfg", "job"]
    done = subprocess.run(
        ["bash", "-c", shell_command(argv)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = yaml.safe_load(done.stdout)
    expected = OmegaConf.to_container(compose_verl(overrides))
    assert printed == expected
    assert printed["data"]["train_files"] == str(odd.train_files)


def test_validation_inside_verl_is_greedy_and_once_at_the_end(
    paper: ExperimentConfig, inputs: RoundInputs, tmp_path: Path
) -> None:
    """With a validation directory verl validates at its last step only (test_freq = the
    round's steps), greedily, one answer per instance at the training response length, and
    dumps the answers there."""
    settings = VerlSettings(train_batch_size=4, ppo_mini_batch_size=2, n_gpus_per_node=2)
    plan = plan_round(settings, paper.grpo.group_size, 16, paper.epochs_per_round)
    where = inputs.model_copy(update={"validation_dir": tmp_path / "val", "train_rows": 16})
    cfg = compose_verl(overrides_for(paper, settings, where))
    verl_checks(cfg)
    trainer = cfg.trainer
    assert (trainer.test_freq, trainer.val_before_train) == (plan.total_steps, False)
    assert trainer.validation_data_dir == str(tmp_path / "val")
    sampling = omega_conf_to_dataclass(cfg.actor_rollout_ref.rollout).val_kwargs
    greedy = (sampling.do_sample, sampling.temperature, sampling.top_p, sampling.top_k, sampling.n)
    assert greedy == (False, 0.0, 1.0, -1, 1)
    assert cfg.actor_rollout_ref.rollout.response_length == settings.max_response_length
    off = compose_verl(overrides_for(paper, settings, inputs))
    assert (off.trainer.test_freq, off.trainer.validation_data_dir) == (-1, None)


def test_the_other_lines_overrides_fail_here(
    paper: ExperimentConfig, inputs: RoundInputs, verl_line: VerlLine
) -> None:
    """Why the overrides follow the installed line: the 0.6 line's sync rollout is refused by
    verl 0.9, whose trainer also ignores the 0.6 reward key (it would train on verl's default
    reward); verl 0.6 has no ``reward`` section for the 0.9 key."""
    assert isinstance(paper.backend_settings, VerlSettings)
    if verl_line == "0.9":
        overrides = build_overrides(
            paper, verl_section(paper), inputs, target=default_target(verl_section(paper))
        )
        cfg = compose_verl(overrides)
        assert cfg.reward.custom_reward_function.path is None
        with pytest.raises((ValueError, InstantiationException), match="sync"):
            verl_checks(cfg)
    else:
        runtime = VerlRuntime(verl_version=version_set("0.9").verl, flash_attn=True)
        current = resolve_target(verl_section(paper), runtime)
        with pytest.raises(ConfigCompositionException):
            compose_verl(build_overrides(paper, verl_section(paper), inputs, target=current))


def write_dump(line: VerlLine, step: int, columns: dict[str, list[Any]], where: Path) -> None:
    """A dump written by the installed verl's own writer, as its trainer calls it."""
    base = {"inputs": columns["input"], "outputs": columns["output"], "gts": columns["gts"]}
    base["scores"] = columns["score"]
    extra = {k: v for k, v in columns.items() if k not in {"input", "output", "gts", "score"}}
    if line == "0.6":
        from verl.trainer.ppo.ray_trainer import RayPPOTrainer

        trainer = SimpleNamespace(global_steps=step)
        RayPPOTrainer._dump_generations(
            trainer, **base, reward_extra_infos_dict=extra, dump_path=str(where)
        )
        return
    from verl.trainer.ppo.v1.trainer_base import PPOTrainer

    trainer = SimpleNamespace(global_steps=step, _write_generations=PPOTrainer._write_generations)
    PPOTrainer._init_dump_executor(trainer)  # the background writer thread
    PPOTrainer._dump_generations(
        trainer, **base, reward_extra_infos_dict=extra, dump_path=str(where)
    )
    PPOTrainer._shutdown_dump_executor(trainer)  # what the trainer does before it exits


def test_verls_dump_is_where_and_as_the_layout_says(
    verl_line: VerlLine, tmp_path: Path, scored_cases: list[tuple[str, Instance, str]]
) -> None:
    """verl's own writer, fed the way its validation feeds it (the reward's extra information
    plus ``reward``), writes `dump_file` with `DUMP_KEYS`, `VALIDATION_DUMP_EXTRA` and every key
    of the reward's result."""
    from harness.backends.verl.reward import compute_score

    cases = scored_cases[:5]
    results = [compute_score("mapf", text, inst.model_dump_json()) for _, inst, text in cases]
    columns: dict[str, list[Any]] = {
        "input": [f"prompt {i}" for i in range(len(cases))],
        "output": [text for _, _, text in cases],
        "gts": [inst.model_dump_json() for _, inst, _ in cases],
        "score": [r["score"] for r in results],
        "reward": [r["score"] for r in results],
    }
    columns |= {key: [r[key] for r in results] for key in results[0]}
    if verl_line == "0.9":
        columns["uid"] = [f"u{i}_0_0" for i in range(len(cases))]
    write_dump(verl_line, 7, columns, tmp_path)
    lines = dump_file(tmp_path, 7).read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == len(cases)
    expected_keys = {*DUMP_KEYS, *VALIDATION_DUMP_EXTRA, *results[0]}
    assert set(rows[0]) == expected_keys | ({"uid"} if verl_line == "0.9" else set())
    for row, (_, inst, text), result in zip(rows, cases, results, strict=True):
        assert (row["output"], row["step"], row["score"]) == (text, 7, result["score"])
        assert Instance.model_validate_json(row["gts"]) == inst
        assert {k: row[k] for k in result} == result
