"""TRL's `GRPOTrainer` for one round: its dataset, its arguments, nothing re-implemented.

The dataset is conversational, as TRL expects: ``prompt`` holds the task's chat messages
(`Task.prompt`), ``item`` the row's index into the round's items, which TRL hands to the reward
with every answer (`reward.RoundReward` holds the items themselves). The arguments map the
experiment's GRPO knobs and the ``trl:`` section one to one:

    n (group size) -> num_generations        KL coefficient -> beta (KL in the loss)
    learning rate  -> learning_rate          constant       -> lr_scheduler_type
    epochs         -> num_train_epochs       answer length  -> max_completion_length
    prompts_per_step x n answers per optimiser step, in micro-batches of micro_batch_size

Training logs every optimiser step (the curves) and saves nothing itself: the backend writes
the round's model once training ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from harness.backends.trl.loading import LoadedModel, Placement
from harness.backends.trl.reward import RoundReward
from harness.backends.trl.settings import TrlSettings
from harness.experiment import GRPOSettings
from tasks import Task

__all__ = ["chat_kwargs", "fitting_prompts", "grpo_trainer", "prompt_tokens"]


def chat_kwargs(settings: TrlSettings) -> dict[str, Any]:
    """Keywords for the chat template (Qwen3's ``enable_thinking`` where set)."""
    return {} if settings.enable_thinking is None else {"enable_thinking": settings.enable_thinking}


def prompt_tokens(tokenizer: Any, messages: list[dict[str, str]], settings: TrlSettings) -> int:
    """The prompt's length in tokens as the model sees it (chat template and all)."""
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True,
                                        return_dict=True, **chat_kwargs(settings))  # fmt: skip
    return len(ids["input_ids"])


def fitting_prompts(
    task: Task[Any, Any], items: Sequence[Any], tokenizer: Any, settings: TrlSettings
) -> tuple[list[Any], int]:
    """The items whose prompts fit `max_prompt_length`, and how many did not."""
    fitting = [
        item for item in items
        if prompt_tokens(tokenizer, task.prompt(item), settings) <= settings.max_prompt_length
    ]  # fmt: skip
    return fitting, len(items) - len(fitting)


def grpo_trainer(
    loaded: LoadedModel,
    reward: RoundReward,
    curves: TrainerCallback,
    settings: TrlSettings,
    grpo: GRPOSettings,
    *,
    place: Placement,
    epochs: int,
    seed: int,
    output_dir: Path,
) -> Any:
    """A `GRPOTrainer` for one round on the reward's items, ready to ``train()``."""
    from datasets import Dataset
    from transformers.trainer_callback import PrinterCallback
    from trl.trainer.grpo_config import GRPOConfig
    from trl.trainer.grpo_trainer import GRPOTrainer

    rows = [{"prompt": reward.task.prompt(item), "item": index}
            for index, item in enumerate(reward.items)]  # fmt: skip
    micro_batches = settings.micro_batches(grpo.group_size)
    args = GRPOConfig(
        output_dir=str(output_dir),
        seed=seed,
        data_seed=seed,
        num_generations=grpo.group_size,
        beta=grpo.kl_coef,
        learning_rate=grpo.learning_rate,
        lr_scheduler_type=settings.lr_scheduler,
        num_train_epochs=epochs,
        max_completion_length=settings.max_response_length,
        per_device_train_batch_size=settings.micro_batch_size,
        gradient_accumulation_steps=micro_batches,
        steps_per_generation=micro_batches,
        loss_type=settings.loss_type,
        scale_rewards=settings.scale_rewards,
        temperature=settings.temperature,
        top_p=settings.top_p,
        max_grad_norm=settings.max_grad_norm,
        gradient_checkpointing=settings.gradient_checkpointing,
        chat_template_kwargs=chat_kwargs(settings) or None,
        use_vllm=settings.engine == "vllm",
        vllm_mode="colocate",
        vllm_gpu_memory_utilization=settings.vllm_gpu_memory_utilization,
        use_cpu=place.device == "cpu",
        bf16=place.dtype == "bfloat16",
        fp16=place.dtype == "float16",
        logging_steps=1,
        save_strategy="no",
        report_to=list(settings.logger) or "none",
        disable_tqdm=True,
        remove_unused_columns=False,
    )
    peft_config = None
    if settings.lora.enabled and not hasattr(loaded.model, "peft_config"):
        from peft import LoraConfig

        lora = settings.lora
        targets: Any = "all-linear" if lora.targets == ("all-linear",) else list(lora.targets)
        peft_config = LoraConfig(r=lora.rank, lora_alpha=lora.alpha, lora_dropout=lora.dropout,
                                 target_modules=targets, task_type="CAUSAL_LM")  # fmt: skip
    trainer = GRPOTrainer(
        model=loaded.model,
        reward_funcs=reward,
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=loaded.tokenizer,
        peft_config=peft_config,
        callbacks=[curves],
    )
    # Without tqdm, transformers prints every step's log dict to stdout; `curves` keeps them,
    # and the harness shows its own progress.
    trainer.remove_callback(PrinterCallback)
    return trainer
