"""A rough lower bound of the GPU memory each phase of a verl round needs, per GPU.

`harness doctor` holds these against the machine's GPUs (`doctor_gpu.memory_findings`).

These are estimates from the model's size and the recipe, not measurements: activations,
the CUDA context (about half a GiB a process), NCCL buffers and vLLM's CUDA graphs come on
top, so memory that passes here can still run out, but memory that fails here cannot work.
What verl 0.6.1 holds where (``verl/workers/fsdp_workers.py``):

* a vLLM engine (training rollouts, the offline evaluation, ``vllm serve``) takes its share of
  the GPU's total memory (``gpu_memory_utilization``); within it go the bf16 weights split over
  tensor parallelism and a KV cache that must hold at least one sequence of the maximum model
  length, or vLLM refuses to start;
* during rollouts the actor's FSDP shards stay on the GPU beside vLLM -- fp32 parameters
  (4 bytes a parameter over the GPUs) unless ``actor_param_offload``, Adam's moments (8) unless
  ``actor_optimizer_offload``; the reference model is CPU-offloaded by verl under FSDP1 and,
  under FSDP2, unless ``ref_param_offload``, holds bf16 shards (2);
* a training step, with vLLM asleep, needs parameters, gradients and Adam (16 bytes a
  parameter over the GPUs): verl's offloading moves them back to the GPU for the update.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harness.backends.verl.footprint import ModelShape
from harness.backends.verl.settings import VerlSettings

__all__ = ["GIB", "MemoryNeed", "gib", "memory_needs"]

GIB = 1 << 30
BF16, FP32 = 2, 4


def gib(n_bytes: float) -> str:
    """GPU memory in GiB, the unit nvidia-smi and torch report it in (MiB / 1024)."""
    return f"{n_bytes / GIB:.1f} GiB"


@dataclass(frozen=True, slots=True)
class MemoryNeed:
    """One phase's estimated need against the share of a GPU it gets."""

    phase: str
    need: int
    share: float
    """The share of the GPU's total memory the phase may use."""
    parts: str
    """How `need` is made up, for the report."""
    strict: bool
    """A shortfall is certain to fail (vLLM's check), not only likely."""
    fix: str

    def available(self, memory: int) -> int:
        return round(self.share * memory)


def _engine(
    phase: str,
    params: int,
    shape: ModelShape | None,
    tensor_parallel: int,
    share: float,
    tokens: int | None,
    fix: str,
) -> MemoryNeed:
    weights = BF16 * params // tensor_parallel
    kv = shape.kv_bytes_per_token(tensor_parallel) * tokens if shape and tokens else 0
    seq = f" + KV cache of one {tokens}-token sequence {gib(kv)}" if kv else ""
    parts = f"bf16 weights {gib(weights)} (tensor parallel {tensor_parallel}){seq}"
    return MemoryNeed(phase, weights + kv, share, parts, True, fix)


def memory_needs(
    params: int,
    shape: ModelShape | None,
    settings: VerlSettings,
    *,
    serving: bool,
    where: Literal["all", "local"] = "all",
) -> list[MemoryNeed]:
    """Every phase's need per GPU; ``where="local"`` keeps the phases this machine runs when
    training is submitted to a Ray cluster (evaluation and serving)."""
    s, n = settings, settings.n_gpus
    length = s.max_prompt_length + s.max_response_length
    served = s.serve_max_model_len or (shape.max_positions if shape else None)
    needs: list[MemoryNeed] = []
    if where == "all":
        needs.append(
            _engine(
                "rollouts (vLLM in verl)",
                params,
                shape,
                s.tensor_parallel,
                s.gpu_memory_utilization,
                length,
                "raise verl.gpu_memory_utilization or verl.tensor_parallel, or lower "
                "verl.max_response_length",
            )
        )
        needs += [_beside_vllm(params, s, n), _training_step(params, s, n)]
    needs.append(
        _engine(
            "evaluation (vLLM offline)",
            params,
            shape,
            s.tensor_parallel,
            s.eval_gpu_memory_utilization,
            length,
            "raise verl.eval_gpu_memory_utilization or verl.tensor_parallel",
        )
    )
    if serving:
        needs.append(
            _engine(
                "serving (vllm serve)",
                params,
                shape,
                s.tensor_parallel,
                s.serve_gpu_memory_utilization,
                served,
                "set verl.serve_max_model_len (e.g. 16384) or raise "
                "verl.serve_gpu_memory_utilization",
            )
        )
    return needs


def _beside_vllm(params: int, s: VerlSettings, n: int) -> MemoryNeed:
    parts, total = [], 0
    for what, per_param, offloaded in (
        ("fp32 parameters", FP32, s.actor_param_offload),
        ("Adam moments", 2 * FP32, s.actor_optimizer_offload),
        ("bf16 reference", BF16, s.strategy == "fsdp" or s.ref_param_offload),
    ):
        if not offloaded:
            share = per_param * params // n
            parts.append(f"{what} {gib(share)}")
            total += share
    return MemoryNeed(
        "actor shards beside vLLM during rollouts",
        total,
        1.0 - s.gpu_memory_utilization,
        f"{' + '.join(parts) or 'nothing (all offloaded)'} over {n} GPU(s)",
        False,
        "lower verl.gpu_memory_utilization or set verl.actor_optimizer_offload: true",
    )


def _training_step(params: int, s: VerlSettings, n: int) -> MemoryNeed:
    share = 4 * FP32 * params // n
    return MemoryNeed(
        "training step (vLLM asleep)",
        share,
        1.0,
        f"fp32 parameters, gradients and Adam {gib(share)} over {n} GPU(s)",
        True,
        "use more GPUs (verl.n_gpus_per_node, verl.nnodes) or a smaller model",
    )
