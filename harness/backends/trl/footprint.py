"""How much GPU memory and disk one trl run needs, from the model's size and the settings.

Memory on the training device, in bytes, as `GRPOTrainer` holds it on one device:

* weights in float32 (4 bytes a parameter; bf16/fp16 compute runs under autocast);
* full training: gradients (4) and Adam's two moments (8); with LoRA only the adapter's, taken
  as 1% of the parameters, and no reference model (PEFT disables the adapter for it);
* the reference model for the KL term (float32, 4), unless the KL coefficient is 0 or LoRA;
* the logits of one micro-batch in float32 (micro batch x (prompt + answer) x vocabulary x 4),
  which is what overflows first with a 150k-token vocabulary and long answers;
* activations: micro batch x sequence x layers x hidden x 2 bytes x 16 per layer, or x 2 with
  gradient checkpointing -- a rough rule, stated as one;
* generation with transformers: the KV cache of a whole step's answers (prompts per step x n x
  sequence x the model's bf16 keys and values per token), which TRL generates at once;
* vLLM colocated instead: its share of the GPU (``vllm_gpu_memory_utilization``).

Disk: the models a run keeps at once (two rounds' full models, or adapters of 1%), plus a merged
copy for serving an adapter. Both are estimates for planning, printed as such.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.backends.trl.settings import TrlSettings
from harness.byte_sizes import size

__all__ = ["MemoryPlan", "disk_bytes", "memory_plan"]

FP32 = 4
ADAPTER_SHARE = 0.01


@dataclass(frozen=True)
class MemoryPlan:
    """The estimate's parts, in bytes."""

    parts: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        return sum(n for _, n in self.parts)

    def describe(self) -> str:
        inner = ", ".join(f"{what} {size(n)}" for what, n in self.parts if n)
        return f"{size(self.total)} ({inner})"


def memory_plan(
    params: int,
    settings: TrlSettings,
    *,
    kl_coef: float,
    layers: int | None = None,
    hidden: int | None = None,
    vocab: int | None = None,
    kv_per_token: int | None = None,
    group_size: int = 8,
    gpu_memory: int | None = None,
) -> MemoryPlan:
    """The training device's memory for a model of `params` parameters (shape where known)."""
    lora = settings.lora.enabled
    trained = int(params * ADAPTER_SHARE) if lora else params
    seq = settings.max_prompt_length + settings.max_response_length
    micro = settings.micro_batch_size
    parts = [
        ("weights", FP32 * params),
        ("gradients and Adam", 3 * FP32 * trained),
        ("reference", 0 if lora or kl_coef == 0 else FP32 * params),
        ("logits", micro * seq * vocab * FP32 if vocab else 0),
    ]
    if layers and hidden:
        per_layer = 2 if settings.gradient_checkpointing else 16
        parts.append(("activations", micro * seq * layers * hidden * 2 * per_layer))
    if settings.engine == "vllm" and gpu_memory:
        parts.append(("vLLM", int(settings.vllm_gpu_memory_utilization * gpu_memory)))
    elif settings.engine == "transformers" and kv_per_token:
        answers = settings.prompts_per_step * group_size
        parts.append(("generation KV cache", answers * seq * kv_per_token))
    return MemoryPlan(tuple(parts))


def disk_bytes(params: int, settings: TrlSettings, rounds: int) -> int:
    """What one run of `rounds` rounds keeps on disk at its peak: two rounds' models (the one
    a round starts from and the one it makes; every round's with ``keep_all_rounds``) in
    float32, and a merged copy where adapters are served."""
    adapter = settings.lora.enabled and settings.lora.save == "adapter"
    model = int(FP32 * params * (ADAPTER_SHARE if adapter else 1.0))
    merged = FP32 * params if adapter else 0
    kept = rounds if settings.keep_all_rounds else min(2, rounds)
    return kept * model + merged
