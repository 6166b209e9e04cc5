"""Answers for validation and benchmarks: transformers' batched ``generate``, bounded in length.

Prompts go in batches of ``eval_batch_size``, padded on the left (a decoder continues from the
prompt's end); greedy answers do not sample, sampled ones draw from a generator seeded by the
call's seed, so an evaluation is repeatable on one machine. Answers are decoded without special
tokens and scored by the loop like any backend's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from harness.backends.trl.loading import LoadedModel, Placement
from harness.backends.trl.settings import TrlSettings
from harness.backends.trl.trainer import chat_kwargs
from tasks import Task

__all__ = ["generate_answers"]


def generate_answers(
    loaded: LoadedModel,
    task: Task[Any, Any],
    items: Sequence[Any],
    settings: TrlSettings,
    place: Placement,
    *,
    samples: int,
    greedy: bool,
    seed: int,
) -> list[list[str]]:
    """`samples` sampled answers to each of the task's `items`, in order; greedy: one each."""
    if greedy and samples != 1:
        raise ValueError(f"greedy decoding gives one answer per item, not {samples}")
    model, tokenizer = loaded.model, loaded.tokenizer
    n = samples
    texts = [tokenizer.apply_chat_template(task.prompt(item), add_generation_prompt=True,
                                           tokenize=False, **chat_kwargs(settings))
             for item in items]  # fmt: skip
    tokenizer.padding_side = "left"
    answers: list[list[str]] = []
    model.eval()
    devices = [torch.cuda.current_device()] if place.device == "cuda" else []
    autocast = torch.autocast(place.device, dtype=place.torch_dtype, enabled=place.autocast)
    with torch.random.fork_rng(devices=devices), torch.inference_mode(), autocast:
        torch.manual_seed(seed)
        for start in range(0, len(texts), settings.eval_batch_size):
            chunk = texts[start : start + settings.eval_batch_size]
            batch = tokenizer(chunk, return_tensors="pt", padding=True, add_special_tokens=False)
            batch = {k: v.to(place.device) for k, v in batch.items()}
            out = model.generate(
                **batch,
                max_new_tokens=settings.max_response_length,
                do_sample=not greedy,
                temperature=settings.temperature if not greedy else None,
                top_p=settings.top_p if not greedy else None,
                num_return_sequences=n,
                pad_token_id=tokenizer.pad_token_id,
            )
            decoded = tokenizer.batch_decode(out[:, batch["input_ids"].shape[1] :],
                                             skip_special_tokens=True)  # fmt: skip
            answers += [decoded[i : i + n] for i in range(0, len(decoded), n)]
    return answers
