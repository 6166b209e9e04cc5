"""One round of GRPO as a verl command: the Hydra overrides for ``verl.trainer.main_ppo``.

`build_overrides` is a pure function of the experiment, its `VerlSettings` and the round's
inputs (`RoundInputs`: parquet files, the model to start from, the round's checkpoint
directory, the round's valid rate). Every key it writes exists in verl 0.6.1's
``verl/trainer/config/ppo_trainer.yaml`` (keys the file lacks are added with Hydra's ``+``), and
the CI job that installs verl composes the result with verl's own config and runs verl's own
validation on it, so a renamed key or a rejected value fails a test rather than a GPU job.

Continuation between rounds: each round writes to a new ``trainer.default_local_dir`` and saves
``hf_model`` with its checkpoints; the next round's ``actor_rollout_ref.model.path`` is the last
step's Hugging Face directory (`final_hf_model`). With ``trainer.resume_mode=auto`` a fresh
round directory has no checkpoint, so the round starts from that model, and a crashed round
rerun with the same overrides resumes from its own latest checkpoint.

Nothing here imports verl: the dry run and the orchestration work without it.
"""

from __future__ import annotations

import math
import re
import shlex
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.backends.verl.settings import VerlSettings

if TYPE_CHECKING:
    from harness.experiment import ExperimentConfig

__all__ = [
    "MAIN_PPO",
    "REWARD_FUNCTION",
    "REWARD_MODULE",
    "BatchPlan",
    "RoundInputs",
    "build_overrides",
    "final_hf_model",
    "hf_model_dir",
    "hydra_value",
    "latest_step",
    "main_ppo_command",
    "plan_round",
    "shell_command",
]

MAIN_PPO = "verl.trainer.main_ppo"
REWARD_MODULE = Path(__file__).resolve().with_name("reward.py")
"""The reward entry point verl loads by path (`harness.backends.verl.reward`)."""
REWARD_FUNCTION = "compute_score"


class RoundInputs(BaseModel):
    """What one round's training needs besides the experiment and its settings."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    round: int = Field(ge=0, description="Round index (0 = the first round).")
    train_files: Path = Field(description="The round's training parquet (mapf_env.export).")
    val_files: Path = Field(
        description="A validation parquet; verl requires one even though the harness "
        "evaluates with its own vLLM pass (verl's validation is switched off)."
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


@dataclass(frozen=True, slots=True)
class BatchPlan:
    """verl's batch arithmetic for one round, checked before any GPU is involved."""

    n_gpus: int
    group_size: int
    train_rows: int
    prompts_per_step: int
    steps_per_epoch: int
    epochs: int
    dropped_per_epoch: int
    """Rows the train dataloader drops each epoch (verl uses drop_last; shuffled anew)."""
    mini_batches_per_step: int
    samples_per_mini_batch: int
    samples_per_gpu_per_mini_batch: int
    grad_accumulation: int
    """Micro-batches each GPU accumulates per optimiser step."""
    save_freq: int

    @property
    def total_steps(self) -> int:
        return self.steps_per_epoch * self.epochs

    @property
    def samples_per_step(self) -> int:
        return self.prompts_per_step * self.group_size


def plan_round(settings: VerlSettings, group_size: int, train_rows: int, epochs: int) -> BatchPlan:
    """The round's steps and batch sizes; ValueError when verl would reject or floor them."""
    s = settings
    n_gpus = s.n_gpus
    steps_per_epoch = train_rows // s.train_batch_size
    if steps_per_epoch < 1:
        raise ValueError(
            f"{train_rows} training rows make no full batch of train_batch_size "
            f"{s.train_batch_size} prompts; lower verl.train_batch_size or raise the samples"
        )
    if (s.train_batch_size * group_size) % n_gpus:
        raise ValueError(
            f"train_batch_size x n = {s.train_batch_size} x {group_size} samples per step must "
            f"divide evenly over {n_gpus} GPUs"
        )
    samples_per_mini = s.ppo_mini_batch_size * group_size
    if samples_per_mini % n_gpus:
        raise ValueError(
            f"ppo_mini_batch_size x n = {samples_per_mini} samples must divide evenly over "
            f"{n_gpus} GPUs"
        )
    per_gpu = samples_per_mini // n_gpus
    if per_gpu % s.micro_batch_size_per_gpu:
        raise ValueError(
            f"each GPU's share of a mini-batch ({per_gpu} samples) must be a multiple of "
            f"micro_batch_size_per_gpu ({s.micro_batch_size_per_gpu})"
        )
    return BatchPlan(
        n_gpus=n_gpus,
        group_size=group_size,
        train_rows=train_rows,
        prompts_per_step=s.train_batch_size,
        steps_per_epoch=steps_per_epoch,
        epochs=epochs,
        dropped_per_epoch=train_rows % s.train_batch_size,
        mini_batches_per_step=math.ceil(s.train_batch_size / s.ppo_mini_batch_size),
        samples_per_mini_batch=samples_per_mini,
        samples_per_gpu_per_mini_batch=per_gpu,
        grad_accumulation=per_gpu // s.micro_batch_size_per_gpu,
        save_freq=s.save_freq if s.save_freq is not None else steps_per_epoch,
    )


# --- Hydra values ---------------------------------------------------------------------------

_BARE = re.compile(r"[A-Za-z_/][A-Za-z0-9_./+-]*")
_KEYWORDS = {"true", "false", "null", "inf", "+inf", "-inf", "nan"}
_TRAILING_BACKSLASHES = re.compile(r"(\\*)('|$)")

HydraScalar = str | int | float | bool | Path | None
HydraValue = HydraScalar | Sequence[HydraScalar]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _string(text: str) -> str:
    if "${" in text:
        raise ValueError(
            f"{text!r} contains '${{', which OmegaConf would read as an interpolation; "
            "rename the path"
        )
    if any(ord(ch) < 32 for ch in text):
        raise ValueError(f"{text!r} contains a control character; Hydra cannot pass it")
    if _BARE.fullmatch(text) and text.lower() not in _KEYWORDS and not _is_number(text):
        return text
    # Hydra quoted strings: a quote is escaped as \', and backslashes are special only right
    # before a quote or at the end, where each must be doubled.
    escaped = _TRAILING_BACKSLASHES.sub(
        lambda m: m.group(1) * 2 + ("\\'" if m.group(2) else ""), text
    )
    return f"'{escaped}'"


def hydra_value(value: HydraValue) -> str:
    """`value` in Hydra's override grammar; strings are quoted only where they must be."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        return repr(value)
    if isinstance(value, Path):
        return _string(str(value))
    if isinstance(value, str):
        return _string(value)
    return "[" + ",".join(hydra_value(item) for item in value) + "]"


# --- the overrides --------------------------------------------------------------------------


def build_overrides(
    experiment: ExperimentConfig,
    settings: VerlSettings,
    inputs: RoundInputs,
) -> list[str]:
    """The Hydra overrides of one round's ``python -m verl.trainer.main_ppo``, in a fixed order.

    From the experiment: the starting policy, n, the learning rate, the KL coefficient and the
    epochs; from the settings everything else; from the inputs the files and directories. A KL
    coefficient of 0 switches the KL term (and so verl's reference worker) off.
    """
    s = settings
    grpo = experiment.grpo
    model = inputs.model_path if inputs.model_path is not None else experiment.policy
    if model == "mlp":
        raise ValueError(
            "policy 'mlp' is the CPU learner's; for backend verl set policy to a Hugging Face "
            "model id or directory (e.g. Qwen/Qwen3-4B)"
        )
    train_rows = (
        inputs.train_rows if inputs.train_rows is not None else experiment.samples_per_round
    )
    plan = plan_round(s, grpo.group_size, train_rows, experiment.epochs_per_round)
    kl_on = grpo.kl_coef > 0
    kl_in_loss = kl_on and not s.use_kl_in_reward
    kl_in_reward = kl_on and s.use_kl_in_reward

    pairs: list[tuple[str, HydraValue]] = [
        ("algorithm.adv_estimator", "grpo"),
        ("algorithm.use_kl_in_reward", kl_in_reward),
    ]
    if kl_in_reward:
        pairs += [
            ("algorithm.kl_penalty", s.kl_loss_type),
            ("algorithm.kl_ctrl.type", "fixed"),
            ("algorithm.kl_ctrl.kl_coef", grpo.kl_coef),
        ]
    pairs += [
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
    pairs += [
        ("actor_rollout_ref.model.path", model),
        ("actor_rollout_ref.model.enable_gradient_checkpointing", s.gradient_checkpointing),
        ("actor_rollout_ref.model.use_remove_padding", s.use_remove_padding),
        ("actor_rollout_ref.actor.strategy", s.strategy),
        ("actor_rollout_ref.actor.optim.lr", grpo.learning_rate),
        ("actor_rollout_ref.actor.optim.lr_scheduler_type", s.lr_scheduler),
        ("actor_rollout_ref.actor.ppo_mini_batch_size", s.ppo_mini_batch_size),
        ("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", s.micro_batch_size_per_gpu),
        ("actor_rollout_ref.actor.use_kl_loss", kl_in_loss),
        ("actor_rollout_ref.actor.kl_loss_coef", grpo.kl_coef if kl_in_loss else 0.0),
        ("actor_rollout_ref.actor.kl_loss_type", s.kl_loss_type),
        ("actor_rollout_ref.actor.entropy_coeff", s.entropy_coeff),
        ("actor_rollout_ref.actor.fsdp_config.param_offload", s.actor_param_offload),
        ("actor_rollout_ref.actor.fsdp_config.optimizer_offload", s.actor_optimizer_offload),
        ("actor_rollout_ref.actor.checkpoint.save_contents", list(s.save_contents)),
        ("actor_rollout_ref.ref.fsdp_config.param_offload", s.ref_param_offload),
        (
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
            s.log_prob_micro_batch_size_per_gpu,
        ),
        ("actor_rollout_ref.rollout.name", "vllm"),
        ("actor_rollout_ref.rollout.mode", s.rollout_mode),
        ("actor_rollout_ref.rollout.n", grpo.group_size),
        ("actor_rollout_ref.rollout.tensor_model_parallel_size", s.tensor_parallel),
        ("actor_rollout_ref.rollout.gpu_memory_utilization", s.gpu_memory_utilization),
        ("actor_rollout_ref.rollout.temperature", s.temperature),
        ("actor_rollout_ref.rollout.top_p", s.top_p),
        (
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
            s.log_prob_micro_batch_size_per_gpu,
        ),
        ("critic.enable", False),
        ("custom_reward_function.path", inputs.reward_path.absolute()),
        ("custom_reward_function.name", REWARD_FUNCTION),
        ("+custom_reward_function.reward_kwargs.valid_rate", inputs.valid_rate),
    ]
    for name, value in s.reward.model_dump().items():
        pairs.append((f"+custom_reward_function.reward_kwargs.{name}", value))
    pairs += [
        ("trainer.project_name", s.project_name or experiment.name),
        ("trainer.experiment_name", f"{inputs.run_name}-round{inputs.round}"),
        ("trainer.logger", list(s.logger)),
        ("trainer.n_gpus_per_node", s.n_gpus_per_node),
        ("trainer.nnodes", s.nnodes),
        ("trainer.total_epochs", experiment.epochs_per_round),
        ("trainer.save_freq", plan.save_freq),
        ("trainer.max_actor_ckpt_to_keep", s.max_actor_ckpt_to_keep),
        ("trainer.test_freq", -1),
        ("trainer.val_before_train", False),
        ("trainer.resume_mode", inputs.resume_mode or s.resume_mode),
        ("trainer.default_local_dir", inputs.checkpoint_dir.absolute()),
    ]
    if inputs.rollout_dir is not None:
        pairs.append(("trainer.rollout_data_dir", inputs.rollout_dir.absolute()))
    return [f"{key}={hydra_value(value)}" for key, value in pairs] + list(s.extra_overrides)


def main_ppo_command(overrides: Iterable[str], python: str | None = None) -> list[str]:
    """The argv of one round's training process (a fresh process per round: verl caches the
    reward module under a fixed name)."""
    return [python or sys.executable, "-m", MAIN_PPO, *overrides]


def shell_command(argv: Sequence[str]) -> str:
    """`argv` as one copy-pasteable shell line (for dry runs and logs)."""
    return shlex.join(argv)


# --- what a round leaves on disk (verl 0.6.1's checkpoint layout) ---------------------------


def hf_model_dir(checkpoint_dir: Path, step: int) -> Path:
    """Where verl saves the Hugging Face model of `step` (save_contents includes hf_model)."""
    return checkpoint_dir / f"global_step_{step}" / "actor" / "huggingface"


def latest_step(checkpoint_dir: Path) -> int | None:
    """The last step verl finished saving (its ``latest_checkpointed_iteration.txt``)."""
    tracker = checkpoint_dir / "latest_checkpointed_iteration.txt"
    if not tracker.is_file():
        return None
    text = tracker.read_text(encoding="utf-8").strip()
    if not text.isdigit():
        raise ValueError(f"{tracker} holds {text!r}, not a step number")
    return int(text)


def final_hf_model(checkpoint_dir: Path, plan: BatchPlan) -> Path:
    """The Hugging Face directory of a finished round: the next round's starting model."""
    step = latest_step(checkpoint_dir)
    if step != plan.total_steps:
        raise FileNotFoundError(
            f"{checkpoint_dir} has no checkpoint of the round's last step {plan.total_steps} "
            f"(latest saved: {step}); the round did not finish"
        )
    path = hf_model_dir(checkpoint_dir, step)
    if not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"{path} holds no Hugging Face model; does save_contents include hf_model?"
        )
    return path
