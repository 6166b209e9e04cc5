"""One round of GRPO as a verl command: the Hydra overrides for ``verl.trainer.main_ppo``.

`build_overrides` is a pure function of the experiment, its `VerlSettings`, the round's inputs
(`RoundInputs`: parquet files, the model to start from, the round's checkpoint directory, the
round's valid rate) and the `VerlTarget` (the verl line, rollout mode and attention). Every key it
writes exists in that line's ``verl/trainer/config/ppo_trainer.yaml`` (keys the file lacks are
added with Hydra's ``+``), and the CI jobs that install verl 0.6.1 (``.ci/verl``) and 0.9.1
(``.ci/verl-current``) compose the result with verl's own config and run verl's own validation
on it, so a renamed key or a rejected value fails a test rather than a GPU job.

The two lines differ in two places only: the reward file is ``custom_reward_function`` on 0.6
and ``reward.custom_reward_function`` on 0.9 (`REWARD_SECTION`; 0.9's v1 trainer does not read
the old key, so the 0.6 overrides would train it on verl's default reward); and 0.9 has no sync
rollout (its `RolloutConfig` raises on ``mode=sync``). The settings' ``sync`` -- the paper's --
is mapped to ``async`` on 0.9 rather than refused, because it names how verl drives vLLM
(in-process engines or servers), not what is sampled (the same vLLM sampling parameters), and
refusing it would leave the paper's preset unable to run on a current verl; the target records
the mapping in its ``why`` (dry run, run record). Every other key keeps its name.
Attention: verl reads ``actor_rollout_ref.model.override_config.attn_implementation`` (default
flash_attention_2; ``override_config`` is an empty dict in both lines' config, so the key takes a
``+``) for the actor and, from the same model config, the reference model -- 0.6.1 in
``workers/fsdp_workers.py`` (`_build_model_optimizer`, both roles get ``override_model_config``)
and ``workers/config/model.py``, 0.9.1 in ``workers/config/model.py`` (``HFModelConfig.hf_config``,
deep-copied for the ref in ``workers/engine_workers.py``). ``model.use_remove_padding`` is
likewise read once for both roles; it packs sequences for flash-attn's varlen kernels and is
always off with sdpa.

Continuation between rounds: each round writes to a new ``trainer.default_local_dir`` and saves
``hf_model`` with its checkpoints; the next round's ``actor_rollout_ref.model.path`` is the last
step's Hugging Face directory (`final_hf_model`). With ``trainer.resume_mode=auto`` a fresh
round directory has no checkpoint, so the round starts from that model, and a crashed round
rerun with the same overrides resumes from its own latest checkpoint. What a round leaves on
disk (checkpoints, dumps; the same layout on both lines) is read through `layout`.

Nothing here imports verl: the dry run and the orchestration work without it.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.backends.verl.batch_plan import BatchPlan, plan_round
from harness.backends.verl.hydra import HydraValue, hydra_value
from harness.backends.verl.layout import (
    DUMP_FILE,
    DUMP_KEYS,
    VALIDATION_DUMP_EXTRA,
    dump_file,
    final_hf_model,
    hf_model_dir,
    latest_step,
)
from harness.backends.verl.settings import VerlSettings
from harness.backends.verl.target import VerlTarget, default_target
from harness.backends.verl.task_feed import REWARD_MODULE, task_feed
from harness.backends.verl.versions import VerlLine

if TYPE_CHECKING:
    from harness.experiment import ExperimentConfig

__all__ = [
    "DUMP_FILE",
    "DUMP_KEYS",
    "MAIN_PPO",
    "REWARD_FUNCTION",
    "REWARD_MODULE",
    "REWARD_SECTION",
    "VALIDATION_DUMP_EXTRA",
    "RoundInputs",
    "build_overrides",
    "dump_file",
    "final_hf_model",
    "hf_model_dir",
    "hydra_value",
    "latest_step",
    "main_ppo_command",
    "shell_command",
]

MAIN_PPO = "verl.trainer.main_ppo"
"""The reward entry point verl loads by path (`harness.backends.verl.reward`)."""
REWARD_FUNCTION = "compute_score"


class RoundInputs(BaseModel):
    """What one round's training needs besides the experiment and its settings."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    round: int = Field(ge=0, description="Round index (0 = the first round).")
    train_files: Path = Field(description="The round's training parquet (`task_feed`).")
    val_files: Path = Field(
        description="The validation parquet: verl requires one, and validates on it once "
        "after the last step when validation_dir is set."
    )
    checkpoint_dir: Path = Field(
        description="trainer.default_local_dir: this round's own, new directory."
    )
    model_path: str | None = Field(
        None,
        description="Model to start from: the previous round's Hugging Face directory; "
        "None = the experiment's policy (round 0).",
    )
    run_name: str = Field("run", min_length=1, description="Names trainer.experiment_name.")
    seed: int = Field(0, description="data.seed: the training data order.")
    valid_rate: float = Field(
        0.0, ge=0.0, le=1.0, description="The reward's accuracy-weight input for this round."
    )
    train_rows: int | None = Field(
        None, ge=1, description="Rows in train_files; None = the experiment's samples_per_round."
    )
    reward_path: Path = Field(REWARD_MODULE, description="custom_reward_function.path.")
    resume_mode: Literal["auto", "disable"] | None = Field(
        None, description="None = the settings' resume_mode."
    )
    rollout_dir: Path | None = Field(
        None,
        description="trainer.rollout_data_dir: verl dumps each step's responses with the "
        "reward's terms there (the valid-rate curve is read from it); None dumps nothing.",
    )
    validation_dir: Path | None = Field(
        None,
        description="trainer.validation_data_dir: verl validates greedily once, after the last "
        "step, and dumps the answers there (`DUMP_FILE`); None: no validation in verl.",
    )


# --- the overrides ---------------------------------------------------------------------------

Pairs = list[tuple[str, HydraValue]]

REWARD_SECTION: dict[VerlLine, str] = {
    "0.6": "custom_reward_function",
    "0.9": "reward.custom_reward_function",
}
"""Where each line reads the reward file (0.9 moved it under ``reward.``; its top-level key is a
legacy alias it migrates, which the harness does not use)."""


def build_overrides(
    experiment: ExperimentConfig,
    settings: VerlSettings,
    inputs: RoundInputs,
    *,
    target: VerlTarget | None = None,
) -> list[str]:
    """The Hydra overrides of one round's ``python -m verl.trainer.main_ppo``, in a fixed order.

    From the experiment: the starting policy, n, the learning rate, the KL coefficient and the
    epochs; from the settings everything else; from the inputs the files and directories; from
    `target` the verl line (its key names and rollout mode) and the attention. Without a target
    the paper's line with the settings' attention is assumed (`default_target`). A KL
    coefficient of 0 switches the KL term (and so verl's reference worker) off.
    """
    target = target or default_target(settings)
    model = inputs.model_path if inputs.model_path is not None else experiment.policy
    if model == "mlp":
        raise ValueError(
            "policy 'mlp' is the CPU learner's; for backend verl set policy to a Hugging Face "
            "model id or directory (e.g. Qwen/Qwen3-4B)"
        )
    train_rows = (
        inputs.train_rows if inputs.train_rows is not None else experiment.samples_per_round
    )
    plan = plan_round(settings, experiment.grpo.group_size, train_rows, experiment.epochs_per_round)
    pairs = [
        *_algorithm(experiment, settings),
        *_data(settings, inputs),
        *_actor(experiment, settings, model, target),
        *_rollout(experiment, settings, target),
        ("critic.enable", False),
        *_reward(experiment, inputs, target.line),
        *_trainer(experiment, settings, inputs, plan),
    ]
    return [f"{key}={hydra_value(value)}" for key, value in pairs] + list(settings.extra_overrides)


def _kl(experiment: ExperimentConfig, settings: VerlSettings) -> tuple[bool, bool]:
    """(KL in the loss, KL in the reward)."""
    on = experiment.grpo.kl_coef > 0
    return on and not settings.use_kl_in_reward, on and settings.use_kl_in_reward


def _algorithm(experiment: ExperimentConfig, s: VerlSettings) -> Pairs:
    _, in_reward = _kl(experiment, s)
    pairs: Pairs = [("algorithm.adv_estimator", "grpo"), ("algorithm.use_kl_in_reward", in_reward)]
    if in_reward:
        pairs += [
            ("algorithm.kl_penalty", s.kl_loss_type),
            ("algorithm.kl_ctrl.type", "fixed"),
            ("algorithm.kl_ctrl.kl_coef", experiment.grpo.kl_coef),
        ]
    return pairs


def _data(s: VerlSettings, inputs: RoundInputs) -> Pairs:
    pairs: Pairs = [
        ("data.train_files", inputs.train_files.absolute()),
        ("data.val_files", inputs.val_files.absolute()),
        ("data.train_batch_size", s.train_batch_size),
        ("data.max_prompt_length", s.max_prompt_length),
        ("data.max_response_length", s.max_response_length),
        ("data.truncation", "error"),
        ("data.shuffle", True),
        ("data.seed", inputs.seed),
    ]
    if s.enable_thinking is not None:
        pairs.append(("+data.apply_chat_template_kwargs.enable_thinking", s.enable_thinking))
    return pairs


def _actor(experiment: ExperimentConfig, s: VerlSettings, model: str, t: VerlTarget) -> Pairs:
    """The actor and the reference model (both read ``actor_rollout_ref.model``, so the
    attention and padding removal apply to both)."""
    in_loss, _ = _kl(experiment, s)
    actor = "actor_rollout_ref.actor"
    return [
        ("actor_rollout_ref.model.path", model),
        ("actor_rollout_ref.model.enable_gradient_checkpointing", s.gradient_checkpointing),
        ("actor_rollout_ref.model.use_remove_padding", t.remove_padding),
        ("+actor_rollout_ref.model.override_config.attn_implementation", t.attention),
        (f"{actor}.strategy", s.strategy),
        (f"{actor}.optim.lr", experiment.grpo.learning_rate),
        (f"{actor}.optim.lr_scheduler_type", s.lr_scheduler),
        (f"{actor}.ppo_mini_batch_size", s.ppo_mini_batch_size),
        (f"{actor}.ppo_micro_batch_size_per_gpu", s.micro_batch_size_per_gpu),
        (f"{actor}.use_kl_loss", in_loss),
        (f"{actor}.kl_loss_coef", experiment.grpo.kl_coef if in_loss else 0.0),
        (f"{actor}.kl_loss_type", s.kl_loss_type),
        (f"{actor}.entropy_coeff", s.entropy_coeff),
        (f"{actor}.fsdp_config.param_offload", s.actor_param_offload),
        (f"{actor}.fsdp_config.optimizer_offload", s.actor_optimizer_offload),
        (f"{actor}.checkpoint.save_contents", list(s.save_contents)),
        ("actor_rollout_ref.ref.fsdp_config.param_offload", s.ref_param_offload),
        (
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
            s.log_prob_micro_batch_size_per_gpu,
        ),
    ]


def _rollout(experiment: ExperimentConfig, s: VerlSettings, t: VerlTarget) -> Pairs:
    rollout = "actor_rollout_ref.rollout"
    return [
        (f"{rollout}.name", "vllm"),
        (f"{rollout}.mode", t.rollout_mode),
        (f"{rollout}.n", experiment.grpo.group_size),
        (f"{rollout}.tensor_model_parallel_size", s.tensor_parallel),
        (f"{rollout}.gpu_memory_utilization", s.gpu_memory_utilization),
        (f"{rollout}.temperature", s.temperature),
        (f"{rollout}.top_p", s.top_p),
        (f"{rollout}.log_prob_micro_batch_size_per_gpu", s.log_prob_micro_batch_size_per_gpu),
    ]


def _reward(experiment: ExperimentConfig, inputs: RoundInputs, line: VerlLine) -> Pairs:
    """The reward file, and its keywords (`task_feed`): MAPF-FrozenLake's reward coefficients
    (``task_settings.reward``), or another task's id and settings."""
    section = REWARD_SECTION[line]
    pairs: Pairs = [
        (f"{section}.path", inputs.reward_path.absolute()),
        (f"{section}.name", REWARD_FUNCTION),
        (f"+{section}.reward_kwargs.valid_rate", inputs.valid_rate),
    ]
    feed = task_feed(experiment.task_object, experiment.task_settings)
    for name, value in feed.reward_kwargs.items():
        pairs.append((f"+{section}.reward_kwargs.{name}", value))
    return pairs


def _trainer(
    experiment: ExperimentConfig, s: VerlSettings, inputs: RoundInputs, plan: BatchPlan
) -> Pairs:
    pairs: Pairs = [
        ("trainer.project_name", s.project_name or experiment.name),
        ("trainer.experiment_name", f"{inputs.run_name}-round{inputs.round}"),
        ("trainer.logger", list(s.logger)),
        ("trainer.n_gpus_per_node", s.n_gpus_per_node),
        ("trainer.nnodes", s.nnodes),
        ("trainer.total_epochs", experiment.epochs_per_round),
        ("trainer.save_freq", plan.save_freq),
        ("trainer.max_actor_ckpt_to_keep", s.max_actor_ckpt_to_keep),
        *_validation(inputs, plan),
        ("trainer.resume_mode", inputs.resume_mode or s.resume_mode),
        ("trainer.default_local_dir", inputs.checkpoint_dir.absolute()),
    ]
    if inputs.rollout_dir is not None:
        pairs.append(("trainer.rollout_data_dir", inputs.rollout_dir.absolute()))
    return pairs


def _validation(inputs: RoundInputs, plan: BatchPlan) -> Pairs:
    """verl's own validation: off, or once after the round's last step, greedy, dumped.

    ``test_freq`` = the round's step count: verl validates when ``step % test_freq == 0`` or at
    the last step, so only the last one (a resumed round too: verl's step count continues).
    The response length is ``data.max_response_length``, as in training and in the harness's
    own evaluation (`VerlBackend.generate_request`).
    """
    if inputs.validation_dir is None:
        return [("trainer.test_freq", -1), ("trainer.val_before_train", False)]
    greedy = "actor_rollout_ref.rollout.val_kwargs"
    return [
        ("trainer.test_freq", plan.total_steps),
        ("trainer.val_before_train", False),
        (f"{greedy}.do_sample", False),
        (f"{greedy}.temperature", 0.0),
        (f"{greedy}.top_p", 1.0),
        (f"{greedy}.top_k", -1),
        (f"{greedy}.n", 1),
        ("trainer.validation_data_dir", inputs.validation_dir.absolute()),
    ]


def main_ppo_command(overrides: Iterable[str], python: str | None = None) -> list[str]:
    """The argv of one round's training process (a fresh process per round: verl caches the
    reward module under a fixed name)."""
    return [python or sys.executable, "-m", MAIN_PPO, *overrides]


def shell_command(argv: Sequence[str]) -> str:
    """`argv` as one copy-pasteable shell line (for dry runs and logs)."""
    return shlex.join(argv)
