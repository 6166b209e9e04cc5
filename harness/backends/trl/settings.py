"""Every knob of the ``trl`` backend that `ExperimentConfig` does not already hold, in one record.

The experiment keeps what every backend shares under the paper's names -- the policy, the
group size n, the learning rate, the KL coefficient and the epochs per round
(`ExperimentConfig.grpo`, `.epochs_per_round`); this record holds what TRL's `GRPOTrainer`,
the generation and the serving need besides: device and dtype, LoRA, lengths, the batch
arithmetic, the generation engine, checkpoints. Nothing here imports TRL or torch.

Batches count as verl's do, so one recipe reads alike on both GPU backends: an optimiser step
takes ``prompts_per_step`` prompts, each answered n times (TRL's ``generation_batch_size`` is
their product), in micro-batches of ``micro_batch_size`` answers (TRL's
``per_device_train_batch_size``; ``gradient_accumulation_steps`` follows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from harness.experiment import ExperimentConfig

__all__ = ["Engine", "LoraSettings", "TrlSettings", "trl_section"]

Engine = Literal["transformers", "vllm"]
"""Who generates: transformers' ``generate`` (anywhere), or vLLM (a CUDA GPU with vLLM)."""

TrlLogger = Literal["tensorboard", "wandb", "trackio", "mlflow"]
"""transformers' ``report_to`` integrations the backend passes on (curves are always kept)."""


class LoraSettings(BaseModel):
    """LoRA adapters through PEFT instead of training every weight."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    enabled: bool = Field(False, description="Train LoRA adapters (PEFT) instead of all weights.")
    rank: int = Field(16, ge=1, le=1024, description="LoRA rank r.")
    alpha: int = Field(32, ge=1, description="LoRA alpha (the update is scaled by alpha / r).")
    dropout: float = Field(0.0, ge=0.0, lt=1.0, description="Dropout on the LoRA path.")
    targets: tuple[str, ...] = Field(
        ("all-linear",),
        min_length=1,
        description="Modules that get adapters: names (q_proj, v_proj, ...) or PEFT's "
        "'all-linear'.",
    )
    save: Literal["merged", "adapter"] = Field(
        "merged",
        description="What a round keeps: merged weights (a plain model, what vLLM and "
        "`transformers serve` load fastest) or the adapter alone (small; loaded onto the "
        "policy).",
    )


class TrlSettings(BaseModel):
    """The trl backend's settings (the `trl:` section of an experiment config)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    # --- where and in what format ----------------------------------------------------------
    device: Literal["auto", "cpu", "cuda"] = Field(
        "auto", description="auto: the GPU where CUDA is available, else the CPU."
    )
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field(
        "auto",
        description="Compute: the weights (and the optimiser's state) stay float32; bfloat16 "
        "or float16 runs training under mixed precision and generation under autocast, and "
        "serves the checkpoint in that dtype. auto = bfloat16 on a GPU that has it, float32 on "
        "the CPU (bfloat16 training on a CPU is slow and lossy).",
    )
    attention: Literal["auto", "sdpa", "eager", "flash_attention_2"] = Field(
        "auto", description="attn_implementation; auto = transformers' choice (sdpa)."
    )
    lora: LoraSettings = Field(default_factory=LoraSettings)
    gradient_checkpointing: bool = Field(
        False, description="Recompute activations in backward: less memory, about 30% slower."
    )

    # --- lengths ---------------------------------------------------------------------------
    max_prompt_length: int = Field(
        1536,
        ge=16,
        description="Prompts longer than this (tokens, chat template included) are left out "
        "of training, as verl's filter_overlong_prompts does; the round's notes count them.",
    )
    max_response_length: int = Field(
        5120, ge=1, description="Answer length bound in tokens (training, evaluation, serving)."
    )
    enable_thinking: bool | None = Field(
        None,
        description="Passed to the chat template as enable_thinking (Qwen3's thinking mode); "
        "None passes nothing.",
    )

    # --- the GRPO step ---------------------------------------------------------------------
    prompts_per_step: int = Field(
        16, ge=1, description="Prompts per optimiser step (each answered n times)."
    )
    micro_batch_size: int = Field(
        8, ge=1, description="Answers per forward/backward pass (per_device_train_batch_size)."
    )
    lr_scheduler: Literal["constant", "cosine", "linear"] = Field(
        "constant", description="lr_scheduler_type (the paper: constant)."
    )
    loss_type: Literal["grpo", "dapo", "dr_grpo", "bnpo"] = Field(
        "grpo", description="TRL's loss_type; grpo normalises per sequence as the paper's verl."
    )
    scale_rewards: Literal["group", "batch", "none"] = Field(
        "group", description="Advantage scaling by the reward's std (GRPO: per group)."
    )
    temperature: float = Field(1.0, gt=0.0, description="Sampling temperature.")
    top_p: float = Field(1.0, gt=0.0, le=1.0, description="Nucleus sampling.")
    max_grad_norm: float = Field(1.0, gt=0.0, description="Gradient clipping.")

    # --- generation ------------------------------------------------------------------------
    engine: Engine = Field(
        "transformers",
        description="Who generates answers in training: transformers, or vLLM colocated on "
        "the training GPU (needs vLLM and CUDA).",
    )
    vllm_gpu_memory_utilization: float = Field(
        0.3, gt=0.0, le=1.0, description="vLLM's share of the GPU when colocated."
    )
    eval_batch_size: int = Field(
        16, ge=1, description="Prompts per batched generate call for validation and benchmarks."
    )

    # --- serving for self and base -----------------------------------------------------------
    serve_engine: Engine = Field(
        "transformers",
        description="Who serves a checkpoint to the self/base designers: `transformers serve` "
        "(ships with transformers) or `vllm serve` (where vLLM is installed).",
    )
    serve_timeout_s: float = Field(
        600.0, gt=0.0, description="Seconds a server may take to load before it counts failed."
    )

    # --- length, checkpoints, logs ---------------------------------------------------------
    length_unit: Literal["tokens", "characters"] = Field(
        "tokens",
        description="How a reward that pays for length measures an answer: the tokenizer's "
        "count, or the task's own measure of the text (MAPF-FrozenLake's characters / "
        "task_settings.reward.chars_per_token, the verl backend's measure: verl passes no "
        "count), so both backends pay alike for the same text.",
    )
    keep_all_rounds: bool = Field(
        False,
        description="Keep every round's model; by default a finished round deletes the one "
        "before it (resume and `self` need only the latest) and says what it freed.",
    )
    logger: tuple[TrlLogger, ...] = Field(
        (), description="transformers report_to integrations (the curves are kept anyway)."
    )
    model_params: int | None = Field(
        None,
        ge=1,
        description="The policy's parameter count, for the dry run's memory and disk estimates "
        "where no local copy of the model tells it.",
    )

    @model_validator(mode="after")
    def _engines_fit(self) -> TrlSettings:
        if self.device == "cpu" and "vllm" in (self.engine, self.serve_engine):
            raise ValueError("vLLM needs a CUDA GPU: device cpu takes engine and serve_engine "
                             "transformers")  # fmt: skip
        if self.lora.enabled and self.engine == "vllm" and self.lora.save == "adapter":
            raise ValueError("lora.save adapter with engine vllm: vLLM loads merged weights; "
                             "set lora.save: merged")  # fmt: skip
        return self

    def micro_batches(self, group_size: int) -> int:
        """Gradient-accumulation steps per optimiser step; ValueError where they do not divide."""
        answers = self.prompts_per_step * group_size
        if answers % self.micro_batch_size:
            raise ValueError(
                f"trl.micro_batch_size ({self.micro_batch_size}) must divide the answers per "
                f"step (prompts_per_step {self.prompts_per_step} x group size {group_size} = "
                f"{answers})"
            )
        return answers // self.micro_batch_size


def trl_section(experiment: ExperimentConfig) -> TrlSettings:
    """The experiment's ``trl:`` section; the defaults where it has none."""
    section = experiment.backend_settings
    return section if isinstance(section, TrlSettings) else TrlSettings()
