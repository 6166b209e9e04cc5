"""GPUs, CUDA and GPU memory against a verl recipe: pure functions of the probed facts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from harness.backends.verl.footprint import ModelSize
from harness.backends.verl.gpu_memory import gib, memory_needs
from harness.backends.verl.settings import VerlSettings
from harness.doctor.findings import Finding, fail, ok, warn
from harness.doctor.probes import DriverFacts, Gpu, TorchFacts

__all__ = [
    "cuda_findings",
    "gpu_count_findings",
    "gpus_needed",
    "memory_findings",
    "visible_gpus",
]

GPU_EXTRA_FIX = 'pip install -e ".[gpu]" on a Linux x86_64 machine (its torch pin is a CUDA build)'


def gpus_needed(settings: VerlSettings, *, submits_jobs: bool) -> tuple[int, str]:
    """GPUs this node needs and why: the trainer's (``n_gpus_per_node``), or with training
    submitted to a Ray cluster only what evaluation and serving use here (tensor parallel)."""
    if submits_jobs:
        return settings.tensor_parallel, (
            f"tensor_parallel {settings.tensor_parallel} for evaluation and serving here; "
            "training runs on the Ray cluster, whose GPUs are not checked from here"
        )
    why = f"n_gpus_per_node {settings.n_gpus_per_node} on this node"
    if settings.nnodes > 1:
        why += f"; the other {settings.nnodes - 1} node(s) are not checked from here"
    return settings.n_gpus_per_node, why


def cuda_findings(driver: DriverFacts, torch: TorchFacts | None, python: str) -> list[Finding]:
    """The NVIDIA driver, and whether the python's torch can use CUDA."""
    if torch is not None and torch.error:
        return [fail("cuda", f"torch in {python} failed: {torch.error}", GPU_EXTRA_FIX)]
    if driver.error and not (torch and torch.available):
        return [
            fail(
                "cuda",
                f"no NVIDIA GPU driver here ({driver.error})",
                "run on a machine with NVIDIA GPUs and their driver",
            )
        ]
    if torch is None:
        return [ok("cuda", f"NVIDIA driver {driver.driver} (torch not installed: see packages)")]
    if torch.cuda is None:
        return [fail("cuda", f"torch {torch.version} in {python} is a CPU build", GPU_EXTRA_FIX)]
    if not torch.available:
        return [
            fail(
                "cuda",
                f"torch {torch.version} (CUDA {torch.cuda}) sees no usable GPU (driver "
                f"{driver.driver or 'unknown'})",
                f"a driver that supports CUDA {torch.cuda} (nvidia-smi shows the highest it "
                "supports), and CUDA_VISIBLE_DEVICES naming existing GPUs",
            )
        ]
    return [
        ok(
            "cuda",
            f"CUDA {torch.cuda} with torch {torch.version}, driver {driver.driver or 'unknown'}",
        )
    ]


def visible_gpus(driver: DriverFacts, torch: TorchFacts | None) -> tuple[Gpu, ...]:
    """The GPUs a run gets: torch's (CUDA_VISIBLE_DEVICES applied) where it sees any, else
    nvidia-smi's."""
    return torch.gpus if torch is not None and torch.available else driver.gpus


def gpu_count_findings(gpus: Sequence[Gpu], needed: int, why: str) -> list[Finding]:
    if len(gpus) < needed:
        return [
            fail(
                "gpus",
                f"{len(gpus)} GPU(s) visible; the recipe needs {needed} ({why})",
                f"run on a node with {needed} GPUs, or set verl.n_gpus_per_node (with "
                "verl.tensor_parallel dividing it) to what this node has",
            )
        ]
    names = ", ".join(dict.fromkeys(f"{g.name} ({gib(g.memory)})" for g in gpus[:needed]))
    return [ok("gpus", f"{needed} of {len(gpus)} GPU(s) used: {names} ({why})")]


def memory_findings(
    gpus: Sequence[Gpu],
    size: ModelSize,
    settings: VerlSettings,
    *,
    needed: int,
    serving: bool,
    local_only: bool,
) -> list[Finding]:
    """Each phase's estimated need against the smallest GPU the run uses."""
    used = gpus[:needed]
    if not used:
        return []  # nothing to compare with: gpu_count_findings fails already
    if size.params is None:
        return [
            warn(
                "gpu memory",
                f"not estimated: {size.describe()}",
                "put the model on disk or give its parameter count (--params)",
            )
        ]
    memory = min(g.memory for g in used)
    out = []
    where: Literal["all", "local"] = "local" if local_only else "all"
    for need in memory_needs(size.params, size.shape, settings, serving=serving, where=where):
        room = need.available(memory)
        text = (
            f"{need.phase}: needs at least {gib(need.need)} of {gib(room)} "
            f"({need.share:.2f} x {gib(memory)}): {need.parts} (an estimate)"
        )
        if need.need <= room:
            out.append(ok("gpu memory", text))
        elif need.strict:
            out.append(fail("gpu memory", text, need.fix))
        else:
            out.append(warn("gpu memory", text, need.fix))
    if size.shape is None:
        out.append(
            warn(
                "gpu memory",
                f"KV cache not counted: no usable config.json for {size.model}",
                "put the model's config.json on disk",
            )
        )
    return out
