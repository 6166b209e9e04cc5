"""What a trl run will do, before it does it: the dry run's text and the doctor's findings.

Both read the same facts -- the model's size from its files (or ``trl.model_params``), the
settings, the machine's GPUs -- so the plan a dry run prints is the one `harness doctor` holds
against the machine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.backends.spec import RoundZero
from harness.backends.trl.footprint import disk_bytes, memory_plan
from harness.backends.trl.install import TRL_EXTRA, missing_packages
from harness.backends.trl.loading import Placement
from harness.backends.trl.serving import serve_argv
from harness.backends.trl.settings import TrlSettings, trl_section
from harness.backends.verl.footprint import ModelSize, model_size
from harness.byte_sizes import size
from harness.doctor.disk import unmeasured
from harness.doctor.findings import Finding, fail, ok, warn
from harness.doctor.probes import Probe
from harness.experiment import ExperimentConfig

__all__ = ["dry_run", "machine_findings", "run_disk", "sized"]


def sized(experiment: ExperimentConfig, found: ModelSize | None = None) -> ModelSize:
    """The policy's size from its files, else as ``trl.model_params`` states it."""
    found = found or model_size(experiment.policy)
    stated = trl_section(experiment).model_params
    if found.params is None and stated is not None:
        return ModelSize(found.model, stated, "as stated in trl.model_params", shape=found.shape)
    return found


def _shape(found: ModelSize) -> dict[str, int | None]:
    """Layers, hidden size, vocabulary and KV bytes per token from the model's config.json,
    where it is on disk."""
    kv = found.shape.kv_bytes_per_token() if found.shape is not None else None
    config: dict[str, Any] = {}
    if found.location is not None:
        try:
            config = json.loads((found.location / "config.json").read_text())
        except (OSError, ValueError):
            config = {}
    config = config.get("text_config", config)
    return {"layers": config.get("num_hidden_layers"), "hidden": config.get("hidden_size"),
            "vocab": config.get("vocab_size"), "kv_per_token": kv}  # fmt: skip


def run_disk(experiment: ExperimentConfig) -> int | None:
    found = sized(experiment)
    if found.params is None:
        return None
    return disk_bytes(found.params, trl_section(experiment), experiment.rounds)


def _steps(experiment: ExperimentConfig, s: TrlSettings) -> str:
    per_epoch = -(-experiment.samples_per_round // s.prompts_per_step)
    n = experiment.grpo.group_size
    return (
        f"{per_epoch * experiment.epochs_per_round} optimiser steps a round ({per_epoch} x "
        f"{experiment.epochs_per_round} epoch(s)), each {s.prompts_per_step} prompts x n={n} "
        f"answers in {s.micro_batches(n)} micro-batch(es) of {s.micro_batch_size}"
    )


def dry_run(
    experiment: ExperimentConfig, runs: list[RoundZero], *, concurrent: int, ray_address: str | None
) -> str:
    """The plan of every run: model, device, steps, memory and disk estimates, the servers."""
    s = trl_section(experiment)
    found = sized(experiment)
    grpo = experiment.grpo
    lora = s.lora
    lines = [
        f"trl: GRPOTrainer on {experiment.policy} ({found.describe()})",
        f"  device {s.device}, weights float32, compute {s.dtype} (trl.dtype), attention "
        f"{s.attention}, gradient checkpointing "
        f"{'on' if s.gradient_checkpointing else 'off'}, generation {s.engine}",
        "  LoRA "
        + (
            f"r={lora.rank} alpha={lora.alpha} on {', '.join(lora.targets)}, saves {lora.save}"
            if lora.enabled
            else "off: every weight trains"
        ),
        f"  GRPO: n={grpo.group_size}, beta (KL in the loss) {grpo.kl_coef:g}, learning rate "
        f"{grpo.learning_rate:g} {s.lr_scheduler}, loss {s.loss_type}, prompts up to "
        f"{s.max_prompt_length} tokens, answers up to {s.max_response_length}",
        f"  {_steps(experiment, s)}",
    ]
    if found.params is not None:
        shape = _shape(found)
        plan = memory_plan(found.params, s, kl_coef=grpo.kl_coef, group_size=grpo.group_size,
                           **shape)  # fmt: skip
        lines.append(f"  training memory, estimated: {plan.describe()}{_unsized(shape)}")
        disk = disk_bytes(found.params, s, experiment.rounds)
        lines.append(f"  disk, estimated: {size(disk)} a run, {size(disk * concurrent)} for "
                     f"{concurrent} at once; {len(runs)} run(s) in all")  # fmt: skip
    else:
        lines.append("  memory and disk: unknown until the model is on disk or trl.model_params "
                     "states its size")  # fmt: skip
    for run in runs:
        lines.append(f"run {run.designer} seed {run.seed}: {run.run_path}")
        lines.append(f"  round 0 config: {run.config_file} ({run.start})")
        lines.append(f"  models: {run.run_path / 'trl' / 'round-NNN' / 'model'} (checksummed)")
        for which in run.wanted:
            model = "trl/round-<n>/model" if which == "policy" else experiment.policy
            argv = serve_argv(model, model, 0, s, _planned(s))
            lines.append(f"  design step: serves the {which} model: {' '.join(argv[1:])}")
    return "\n".join(lines) + "\n"


def _unsized(shape: dict[str, int | None]) -> str:
    """What the estimate leaves out where the model's config.json is not on disk."""
    if shape["layers"] is not None:
        return ""
    return "; logits, activations and the KV cache are left out until config.json is on disk"


def _planned(s: TrlSettings) -> Placement:
    """The placement the settings ask for, without probing this machine (a dry run may be
    previewing a GPU machine's run on a laptop)."""
    device = "cpu" if s.device == "cpu" else "cuda"
    dtype = s.dtype if s.dtype != "auto" else ("bfloat16" if device == "cuda" else "float32")
    return Placement(device=device, dtype=dtype)


def machine_findings(experiment: ExperimentConfig, probe: Probe, **options: Any) -> list[Finding]:
    """Packages, the device and its memory against the plan, the model, the disk."""
    s = trl_section(experiment)
    root: Path = options["root"]
    out: list[Finding] = []
    missing = missing_packages(engine_vllm="vllm" in (s.engine, s.serve_engine))
    out.append(fail("packages", f"backend trl needs {', '.join(dict.fromkeys(missing))}",
                    TRL_EXTRA) if missing else ok("packages", "trl, transformers, peft, "
                    "datasets, accelerate and transformers serve are installed"))  # fmt: skip
    found = sized(experiment, model_size(experiment.policy, env=probe.env))
    out.append(ok("model", found.describe()) if found.params is not None else warn(
        "model", found.describe(), "put the model on disk, or state trl.model_params"))  # fmt: skip
    out += _device(experiment, s, probe, found)
    free, where = probe.free_disk(root)
    runs = len(experiment.designers) * len(experiment.seeds)
    if free is None:
        out.append(unmeasured(where))
    elif found.params is None:
        out.append(warn("disk", f"{size(free)} free at {where}; what {runs} run(s) keep of "
                        "models is unknown until the model's size is",
                        "put the model on disk, or state trl.model_params"))  # fmt: skip
    else:
        need = disk_bytes(found.params, s, experiment.rounds)
        line = f"{size(free)} free at {where}; a run keeps about {size(need)} of models"
        out.append(ok("disk", line) if free >= need else fail(
            "disk", line, "free disk, or use LoRA with trl.lora.save: adapter"))  # fmt: skip
    return out


def _device(
    experiment: ExperimentConfig, s: TrlSettings, probe: Probe, found: ModelSize
) -> list[Finding]:
    import sys

    facts = probe.python(sys.executable, cuda=s.device != "cpu", packages=("torch",))
    torch = facts.torch
    gpus = torch.gpus if torch is not None and torch.available else ()
    if s.device == "cpu" or (s.device == "auto" and not gpus):
        return [ok("gpus", "trl trains on this machine's CPU (device "
                   f"{s.device}): fine for small models, slow for large ones")]  # fmt: skip
    if not gpus:
        return [fail("cuda", "trl.device is cuda but torch sees no CUDA GPU here",
                     "run on a machine with an NVIDIA GPU and a CUDA build of torch")]  # fmt: skip
    gpu = gpus[0]
    out = [ok("gpus", f"GPU 0: {gpu.name}, {size(gpu.memory)}")]
    if found.params is None:
        return out
    shape = _shape(found)
    plan = memory_plan(found.params, s, kl_coef=experiment.grpo.kl_coef,
                       group_size=experiment.grpo.group_size, gpu_memory=gpu.memory,
                       **shape)  # fmt: skip
    line = f"training needs about {plan.describe()} of {size(gpu.memory)}{_unsized(shape)}"
    out.append(ok("gpu memory", line) if plan.total <= gpu.memory else fail(
        "gpu memory", line, "lower trl.micro_batch_size or max_response_length, turn on "
        "gradient_checkpointing, or use LoRA (trl.lora.enabled)"))  # fmt: skip
    return out
