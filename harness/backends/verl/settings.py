"""Every knob of the GPU recipe that `ExperimentConfig` does not already hold, in one record.

The experiment keeps what both backends share -- the policy, the group size n, the learning rate,
the KL coefficient and the epochs per round (`ExperimentConfig.grpo`, `.epochs_per_round`); this
record holds what only verl needs: hardware, batch arithmetic, lengths, memory settings,
checkpoints, loggers. Defaults are the paper's recipe (verl 0.6.1 on 4 x H100 80GB, PAPER.md,
"Training recipe"); `harness.backends.verl.overrides` turns them into Hydra overrides for
``python -m verl.trainer.main_ppo``. Nothing here imports verl.

Batch sizes follow verl's conventions: ``train_batch_size`` and ``ppo_mini_batch_size`` count
prompts (each is sampled n times), micro-batches count samples per GPU. The paper's 1024 samples
per mini-batch is therefore ``ppo_mini_batch_size = 128`` with n = 8; on 4 GPUs with 4 samples per
micro-batch that is 1024 / 4 / 4 = 64 micro-batches (gradient-accumulation steps) per GPU per
mini-batch -- not the 8 the paper also names, which cannot hold together with the other three
numbers under verl's arithmetic. ``train_batch_size`` is not published; 128 (one optimiser step
per training step, fully on-policy) is this project's choice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from harness.experiment import ExperimentConfig

VerlLogger = Literal[
    "console", "file", "tensorboard", "wandb", "mlflow", "swanlab", "clearml", "trackio"
]
"""`trainer.logger` backends both verl 0.6.1 and 0.9.1 accept (`verl.utils.tracking.Tracking`)."""

KlType = Literal["kl", "abs", "mse", "low_var_kl", "full"]
"""KL estimators of `actor.kl_loss_type` / `algorithm.kl_penalty` in verl 0.6.1."""

SaveContent = Literal["model", "optimizer", "extra", "hf_model"]


class VerlSettings(BaseModel):
    """The verl backend's settings (the `verl:` section of an experiment config)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    # --- hardware --------------------------------------------------------------------------
    n_gpus_per_node: int = Field(4, ge=1, description="trainer.n_gpus_per_node.")
    nnodes: int = Field(1, ge=1, description="trainer.nnodes.")
    tensor_parallel: int = Field(
        2,
        ge=1,
        description="vLLM rollout tensor parallel size (rollout.tensor_model_parallel_size).",
    )
    gpu_memory_utilization: float = Field(
        0.55, gt=0.0, le=1.0, description="Share of GPU memory vLLM may take during rollouts."
    )
    rollout_mode: Literal["sync", "async"] = Field(
        "sync",
        description="verl's vLLM rollout: in-process SPMD (sync) or server (async). verl >= 0.7 "
        "has only async: on its line sync is mapped to async, and the run's target says so.",
    )

    # --- data ------------------------------------------------------------------------------
    max_prompt_length: int = Field(1536, ge=1, description="data.max_prompt_length (tokens).")
    max_response_length: int = Field(
        5120, ge=1, description="data.max_response_length (tokens, reasoning included)."
    )
    train_batch_size: int = Field(
        128, ge=1, description="Prompts per training step (data.train_batch_size)."
    )
    enable_thinking: bool | None = Field(
        True,
        description="Qwen3 thinking mode, passed to the chat template as "
        "+data.apply_chat_template_kwargs.enable_thinking; None passes nothing.",
    )

    # --- actor -----------------------------------------------------------------------------
    strategy: Literal["fsdp", "fsdp2"] = Field("fsdp", description="Actor/ref sharding.")
    ppo_mini_batch_size: int = Field(
        128, ge=1, description="Prompts per optimiser step (x n samples: 1024 with n = 8)."
    )
    micro_batch_size_per_gpu: int = Field(
        4, ge=1, description="Samples per GPU per forward/backward (actor)."
    )
    log_prob_micro_batch_size_per_gpu: int = Field(
        4, ge=1, description="Samples per GPU per forward when computing old/ref log-probs."
    )
    lr_scheduler: Literal["constant", "cosine"] = Field(
        "constant", description="actor.optim.lr_scheduler_type (the paper: constant)."
    )
    kl_loss_type: KlType = Field(
        "low_var_kl", description="KL estimator of the actor's KL loss (actor.kl_loss_type)."
    )
    use_kl_in_reward: bool = Field(
        False, description="algorithm.use_kl_in_reward (the paper: KL in the loss only)."
    )
    entropy_coeff: float = Field(0.0, ge=0.0, description="actor.entropy_coeff (the paper: 0).")
    gradient_checkpointing: bool = Field(
        True, description="actor_rollout_ref.model.enable_gradient_checkpointing."
    )
    use_remove_padding: bool = Field(
        True,
        description="Pack sequences without padding (model.use_remove_padding); needs "
        "flash-attn, so it is switched off wherever the attention resolves to sdpa.",
    )
    attention: Literal["auto", "flash_attention_2", "sdpa"] = Field(
        "auto",
        description="Attention of the actor and reference models: auto = flash_attention_2 "
        "where flash-attn imports and the GPU supports it, else sdpa (without padding removal).",
    )
    actor_param_offload: bool = Field(False, description="Actor FSDP parameter offload.")
    actor_optimizer_offload: bool = Field(False, description="Actor FSDP optimizer offload.")
    ref_param_offload: bool = Field(
        True, description="Reference policy FSDP parameter offload (the paper: on)."
    )

    # --- sampling during training ----------------------------------------------------------
    temperature: float = Field(1.0, gt=0.0, description="Rollout sampling temperature.")
    top_p: float = Field(1.0, gt=0.0, le=1.0, description="Rollout nucleus sampling.")

    # --- evaluation and serving (vLLM, outside training) -----------------------------------
    eval_gpu_memory_utilization: float = Field(
        0.85, gt=0.0, le=1.0, description="vLLM's share of GPU memory for offline evaluation."
    )
    serve_gpu_memory_utilization: float = Field(
        0.85, gt=0.0, le=1.0, description="vLLM's share of GPU memory when serving a designer."
    )
    serve_max_model_len: int | None = Field(
        None, ge=1, description="vllm serve --max-model-len; None = the model's own."
    )
    reasoning_parser: str | None = Field(
        "qwen3",
        description="vllm serve --reasoning-parser: the designer gets the answer apart from "
        "the reasoning; None for models without one.",
    )

    # --- trainer, checkpoints, logs --------------------------------------------------------
    project_name: str | None = Field(
        None, description="trainer.project_name; None = the experiment's name."
    )
    logger: tuple[VerlLogger, ...] = Field(("console",), min_length=1)
    save_freq: int | None = Field(
        None,
        ge=1,
        description="Checkpoint every this many steps; None = once per epoch. verl always "
        "saves the last step when save_freq > 0.",
    )
    max_actor_ckpt_to_keep: int | None = Field(
        1, ge=1, description="Older checkpoints of a round are deleted; None keeps all."
    )
    save_contents: tuple[SaveContent, ...] = Field(
        ("model", "optimizer", "extra", "hf_model"),
        description="What a checkpoint holds; hf_model is the next round's starting point.",
    )
    resume_mode: Literal["auto", "disable"] = Field(
        "auto",
        description="auto: a crashed round resumes from its own latest checkpoint; a fresh "
        "round directory has none, so it starts from the given model.",
    )
    model_params: int | None = Field(
        None,
        ge=1,
        description="The policy's parameter count, for the dry run's and `harness doctor`'s "
        "disk and memory estimates where no local copy of the model tells it (files on disk "
        "win: they are the model that will run).",
    )
    keep_training_state: bool = Field(
        False,
        description="Keep a finished round's FSDP shards, optimizer and extra state (about 48 "
        "GB for a 4B model); by default only its Hugging Face weights are kept once the round's "
        "model is saved -- all that the next round, the evaluation and `self` read.",
    )
    validate_in_verl: bool = Field(
        True,
        description="Take the round's validation answers from verl's own validation after "
        "the last step (trainer.validation_data_dir) instead of a separate vLLM load; "
        "False: a separate vLLM pass.",
    )
    keep_rollouts: bool = Field(
        False,
        description="Keep verl's per-step rollout dumps (every response's text and reward "
        "terms, tens of MB per step); they are read for the valid-rate curve, then deleted.",
    )
    extra_overrides: tuple[str, ...] = Field(
        (), description="Raw Hydra overrides appended last (an escape hatch; checked by verl)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> VerlSettings:
        n_gpus = self.n_gpus_per_node * self.nnodes
        if n_gpus % self.tensor_parallel:
            raise ValueError(
                f"tensor_parallel ({self.tensor_parallel}) must divide the GPU count "
                f"({n_gpus} = n_gpus_per_node x nnodes)"
            )
        if self.ppo_mini_batch_size > self.train_batch_size:
            raise ValueError(
                f"ppo_mini_batch_size ({self.ppo_mini_batch_size}) must not exceed "
                f"train_batch_size ({self.train_batch_size}); both count prompts"
            )
        if "hf_model" not in self.save_contents:
            raise ValueError(
                "save_contents must include hf_model: the next round starts from the Hugging "
                "Face model a round saves"
            )
        if "model" not in self.save_contents:
            raise ValueError("save_contents must include model: resume needs the sharded model")
        return self

    @property
    def n_gpus(self) -> int:
        return self.n_gpus_per_node * self.nnodes


def verl_section(experiment: ExperimentConfig) -> VerlSettings:
    """The experiment's ``verl:`` section; the paper's recipe (the defaults) where it has none,
    as for an experiment of another backend whose GPU budget is asked about."""
    section = experiment.backend_settings
    return section if isinstance(section, VerlSettings) else VerlSettings()
