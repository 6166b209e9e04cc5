"""What a verl comparison leaves on disk, from the model's size as it is on disk already.

A run of Qwen3-4B fills tens of gigabytes per round, and a comparison runs designers x seeds of
them, so the dry run and ``harness doctor`` give the whole comparison's budget before anything
runs. The arithmetic follows verl's FSDP checkpoint manager (0.6.1 and 0.9.1 alike,
``verl/utils/checkpoint/fsdp_checkpoint_manager.py``): the actor is held in fp32
(``fsdp_config.model_dtype: fp32``), so per parameter a checkpoint holds

* the sharded model, 4 bytes (``model_world_size_*_rank_*.pt``);
* Adam's two moments, 8 bytes (``optim_*.pt``);
* the Hugging Face copy, 4 bytes: verl builds an empty bf16 model but saves it with the fp32
  full state dict, and ``save_pretrained`` writes the tensors as given (``actor/huggingface/``);
* "extra" (lr scheduler and RNG states, per rank) and the dataloader state: kilobytes.

What is kept matches the retention the backend applies once a round's training is saved
(`retention`, which says why nothing later needs the rest):
``latest_checkpointed_iteration.txt`` and the last step's ``actor/huggingface/`` stay, the rest
of the round's checkpoints goes, unless ``keep_training_state`` keeps verl's checkpoints as
they are. While a round trains, verl holds up to ``max_actor_ckpt_to_keep`` checkpoints of it;
0.9 keeps the previous one until a new save completes (one more with a limit of 1). A rerun
attempt after a crash starts verl's count afresh and can hold one checkpoint more than that.

The parameter count is read, never guessed: from a local model directory or the Hugging Face
cache (``HF_HUB_CACHE``, ``HF_HOME``; nothing is downloaded), summing the safetensors headers
where the weights are there and else the index's ``metadata.total_size`` at the config's
dtype. Where neither is on disk the size is unknown and the caller must be given it.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.backends.verl.settings import VerlSettings, verl_section
from harness.backends.verl.versions import VerlLine
from harness.byte_sizes import size

if TYPE_CHECKING:
    from harness.experiment import ExperimentConfig

__all__ = [
    "CheckpointFootprint",
    "DiskBudget",
    "ModelShape",
    "ModelSize",
    "cached_snapshot",
    "checkpoint_footprint",
    "describe_disk",
    "disk_budget",
    "hf_hub_cache",
    "hub_offline",
    "model_size",
]

FP32, BF16 = 4, 2
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "F32": 4, "F16": 2, "BF16": 2,
               "F64": 8, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1,
               "F8_E4M3": 1, "F8_E5M2": 1}  # fmt: skip
EXTRA_BYTES_PER_RANK = 1 << 20
"""Scheduler and RNG state per rank, the dataloader state and small JSON files: a generous MiB."""
DATASET_BYTES_PER_ROW = 512
"""A round's parquet row (prompt and solved instance): measured about 280 bytes, rounded up."""
BYTES_PER_TOKEN = 4
"""Text of a rollout dump per token of prompt or response (JSON, ~4 characters a token): a
ceiling, as most responses stop before the maximum length."""
TRUE_VALUES = {"1", "ON", "YES", "TRUE"}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json")
"""One of them must be there for verl and vLLM to load the tokenizer without the hub."""


# --- the model on disk ----------------------------------------------------------------------


def hf_hub_cache(env: Mapping[str, str] | None = None) -> Path:
    """The hub cache Hugging Face libraries read, by their own precedence (huggingface_hub's
    ``constants``): HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME."""
    env = os.environ if env is None else env
    home = env.get("HF_HOME") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "huggingface",
    )
    hub = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE") or os.path.join(home, "hub")
    return Path(os.path.expandvars(os.path.expanduser(hub)))


def hub_offline(env: Mapping[str, str] | None = None) -> bool:
    """HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) set true: no library will reach the hub."""
    env = os.environ if env is None else env
    value = env.get("HF_HUB_OFFLINE") or env.get("TRANSFORMERS_OFFLINE") or ""
    return value.upper() in TRUE_VALUES


def cached_snapshot(model: str, env: Mapping[str, str] | None = None) -> Path | None:
    """The snapshot of `model` that loading it offline would use (``refs/main``), if any."""
    repo = hf_hub_cache(env) / f"models--{model.replace('/', '--')}"
    ref = repo / "refs" / "main"
    if not ref.is_file():
        return None
    snapshot = repo / "snapshots" / ref.read_text(encoding="utf-8").strip()
    return snapshot if snapshot.is_dir() else None


@dataclass(frozen=True, slots=True)
class ModelShape:
    """What the KV cache's size depends on (config.json)."""

    layers: int
    kv_heads: int
    head_dim: int
    max_positions: int | None

    def kv_bytes_per_token(self, tensor_parallel: int = 1) -> int:
        """bf16 keys and values of one token on one GPU (KV heads split over TP, at least one)."""
        heads = max(1, math.ceil(self.kv_heads / tensor_parallel))
        return 2 * self.layers * heads * self.head_dim * BF16


@dataclass(frozen=True, slots=True)
class ModelSize:
    """A model's parameter count and shape as far as the files on disk tell them."""

    model: str
    params: int | None
    source: str
    """Where `params` came from, or why it is unknown."""
    location: Path | None = None
    shape: ModelShape | None = None
    complete: bool = False
    """config.json and every weight file are on disk."""
    missing: tuple[str, ...] = ()
    """Weight files the index names that are not on disk."""
    tokenizer: bool = False
    """A tokenizer file is there too: with `complete`, the model loads without the hub."""

    def describe(self) -> str:
        if self.params is None:
            return f"{self.model}: parameter count unknown ({self.source})"
        return f"{self.model}: {self.params / 1e9:.2f}B parameters ({self.source})"


def model_size(
    model: str, *, env: Mapping[str, str] | None = None, params: int | None = None
) -> ModelSize:
    """`model` (a directory or a hub id) as found on disk; `params` given overrides the count."""
    local = Path(model).expanduser()
    where = local if local.is_dir() else cached_snapshot(model, env)
    if where is None:
        found = ModelSize(
            model, None, f"no local copy: not a directory, not in the cache {hf_hub_cache(env)}"
        )
    else:
        found = _read_model_dir(model, where)
    return found if params is None else replace(found, params=params, source="as given")


def stated_size(size: ModelSize, settings: VerlSettings | None) -> ModelSize:
    """`size`, or with the parameter count the settings state (`verl.model_params`) where
    nothing on disk tells it: a laptop previewing a cluster's run has no copy of the model."""
    stated = settings.model_params if settings is not None else None
    if size.params is not None or stated is None:
        return size
    return replace(size, params=stated, source="as stated in verl.model_params")


def _read_model_dir(model: str, where: Path) -> ModelSize:
    config = _json(where / "config.json")
    shape = _shape(config) if config is not None else None
    index = _json(where / "model.safetensors.index.json")
    if index is not None:
        files = sorted(set(map(str, (index.get("weight_map") or {}).values())))
    else:
        files = ["model.safetensors"] if (where / "model.safetensors").exists() else []
    missing = tuple(f for f in files if not (where / f).is_file())
    complete = config is not None and bool(files) and not missing
    found = ModelSize(model, None, "", where, shape, complete, missing,
                      any((where / name).is_file() for name in TOKENIZER_FILES))  # fmt: skip
    counts = [_header_params(where / f) for f in files] if files and not missing else []
    if counts and None not in counts:
        count = sum(c for c in counts if c is not None)
        return replace(found, params=count, source=f"safetensors headers in {where}")
    total = (index or {}).get("metadata", {}).get("total_size")
    dtype = str((config or {}).get("torch_dtype") or (config or {}).get("dtype") or "")
    if isinstance(total, int) and dtype in DTYPE_BYTES:
        source = f"index total_size at {dtype}, in {where}"
        return replace(found, params=total // DTYPE_BYTES[dtype], source=source)
    why = "no weights index or safetensors file" if not files else "index without total_size"
    return replace(found, source=f"{why} in {where}")


def _json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _header_params(path: Path) -> int | None:
    """Elements of every tensor a safetensors file declares (only its JSON header is read);
    None for a file that is not one (truncated, or a Git LFS pointer)."""
    try:
        with path.open("rb") as f:
            (length,) = struct.unpack("<Q", f.read(8))
            if length > 1 << 28:  # not a header: the file is something else
                return None
            header: dict[str, Any] = json.loads(f.read(length))
        tensors = [t for k, t in header.items() if k != "__metadata__"]
        return sum(math.prod(int(n) for n in t["shape"]) for t in tensors)
    except (OSError, struct.error, ValueError, AttributeError, KeyError, TypeError):
        return None


def _shape(config: Mapping[str, Any]) -> ModelShape | None:
    text = config.get("text_config")
    c = text if isinstance(text, Mapping) else config
    try:
        heads = int(c["num_attention_heads"])
        head_dim = int(c.get("head_dim") or int(c["hidden_size"]) // heads)
        positions = c.get("max_position_embeddings")
        return ModelShape(int(c["num_hidden_layers"]), int(c.get("num_key_value_heads") or heads),
                          head_dim, int(positions) if positions else None)  # fmt: skip
    except (KeyError, TypeError, ValueError):
        return None


# --- one checkpoint -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckpointFootprint:
    """Bytes of one verl FSDP checkpoint of the actor (``global_step_N/actor/``)."""

    params: int
    model: int
    optimizer: int
    extra: int
    hf_model: int

    @property
    def training_state(self) -> int:
        """What retention deletes: shards, optimizer and extra state."""
        return self.model + self.optimizer + self.extra

    @property
    def total(self) -> int:
        return self.training_state + self.hf_model


def checkpoint_footprint(params: int, settings: VerlSettings) -> CheckpointFootprint:
    """One checkpoint with the settings' ``save_contents`` (model and hf_model always)."""
    saves = set(settings.save_contents)
    return CheckpointFootprint(
        params=params,
        model=FP32 * params,
        optimizer=2 * FP32 * params if "optimizer" in saves else 0,
        extra=EXTRA_BYTES_PER_RANK * settings.n_gpus if "extra" in saves else 0,
        hf_model=FP32 * params,
    )


# --- the whole comparison -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiskBudget:
    """Peak and final bytes of a comparison under its output root (the base model's own copy
    lives in the Hugging Face cache and is not counted)."""

    footprint: CheckpointFootprint
    runs: int
    concurrent: int
    rounds: int
    line: VerlLine
    checkpoints_in_flight: int
    """Checkpoints of the training round on disk at once (verl's rotation)."""
    checkpoints_kept: int
    """Whole checkpoints left per round when the training state is kept (else 0)."""
    kept_per_round: int
    datasets_per_round: int
    rollouts_per_step: int
    rollouts_kept_per_round: int
    run_peak: int
    run_final: int
    peak: int
    final: int

    def describe(self, prefix: str = "") -> str:
        """A few lines for the dry run and ``harness doctor``."""
        f, n = self.footprint, self.checkpoints_in_flight
        at_once = "one run at a time" if self.concurrent == 1 else f"{self.concurrent} at once"
        rollouts = (f"its rollout dumps ({size(self.rollouts_kept_per_round)}, keep_rollouts)"
                    if self.rollouts_kept_per_round else
                    f"one step's rollout dump (up to {size(self.rollouts_per_step)})")  # fmt: skip
        kept = f"its Hugging Face copy ({size(f.hf_model)})"
        if self.checkpoints_kept:
            kept = f"{self.checkpoints_kept} whole checkpoint(s) (keep_training_state)"
        lines = [
            f"disk budget of {self.runs} run(s) x {self.rounds} round(s) (verl {self.line}): "
            f"peak {size(self.peak)} ({at_once}), final {size(self.final)}",
            f"  a checkpoint {size(f.total)}: fp32 shards {size(f.model)} + Adam "
            f"{size(f.optimizer)} + extra {size(f.extra)} + Hugging Face copy (fp32) "
            f"{size(f.hf_model)}",
            f"  a round in training holds up to {n} checkpoint(s) and {rollouts}",
            f"  each round keeps {kept} and its datasets ({size(self.datasets_per_round)}): "
            f"{size(self.run_final)} per run at the end",
        ]
        return "\n".join(prefix + line for line in lines) + "\n"


def disk_budget(
    experiment: ExperimentConfig,
    footprint: CheckpointFootprint,
    *,
    runs: int | None = None,
    concurrent: int = 1,
    line: VerlLine = "0.6",
) -> DiskBudget:
    """The comparison's budget: `runs` (default: designers x seeds), `concurrent` of them at
    once; `ValueError` where the recipe's batches do not work out (`plan_round`)."""
    from harness.backends.verl.batch_plan import plan_round
    from harness.evaluate import experiment_suite

    s = verl_section(experiment)
    runs = len(experiment.designers) * len(experiment.seeds) if runs is None else runs
    concurrent = max(1, min(concurrent, runs))
    rows = experiment.samples_per_round
    plan = plan_round(s, experiment.grpo.group_size, rows, experiment.epochs_per_round)
    saves = -(-plan.total_steps // plan.save_freq)  # verl also saves the last step
    held = saves if s.max_actor_ckpt_to_keep is None else min(s.max_actor_ckpt_to_keep, saves)
    in_flight = held + (1 if line == "0.9" and s.max_actor_ckpt_to_keep == 1 and saves > 1 else 0)
    suite = experiment_suite(experiment.task_object, experiment.validation, experiment.limit)
    datasets = (rows + len(suite.items)) * DATASET_BYTES_PER_ROW
    per_step = plan.samples_per_step * (s.max_prompt_length + s.max_response_length)
    per_step *= BYTES_PER_TOKEN
    rollouts_kept = per_step * plan.total_steps if s.keep_rollouts else 0
    whole = held if s.keep_training_state else 0
    kept = (whole * footprint.total if whole else footprint.hf_model) + datasets + rollouts_kept
    round_peak = in_flight * footprint.total + datasets + (rollouts_kept or per_step)
    run_peak = (experiment.rounds - 1) * kept + round_peak
    run_final = experiment.rounds * kept
    return DiskBudget(
        footprint=footprint, runs=runs, concurrent=concurrent, rounds=experiment.rounds,
        line=line, checkpoints_in_flight=in_flight, checkpoints_kept=whole,
        kept_per_round=kept, datasets_per_round=datasets, rollouts_per_step=per_step,
        rollouts_kept_per_round=rollouts_kept, run_peak=run_peak, run_final=run_final,
        peak=(runs - concurrent) * run_final + concurrent * run_peak, final=runs * run_final,
    )  # fmt: skip


def describe_disk(
    experiment: ExperimentConfig,
    *,
    runs: int | None = None,
    concurrent: int = 1,
    line: VerlLine = "0.6",
    params: int | None = None,
    env: Mapping[str, str] | None = None,
    prefix: str = "",
) -> str:
    """The disk budget's lines, or why it cannot be given (the model's size unknown here)."""
    size = stated_size(
        model_size(experiment.policy, env=env, params=params), verl_section(experiment)
    )
    if size.params is None:
        return (
            f"{prefix}disk budget: unknown, {size.describe()}; put the model on disk "
            f"(hf download {experiment.policy}) or give its parameter count "
            f"(verl.model_params, or harness doctor --params N)\n"
        )
    footprint = checkpoint_footprint(size.params, verl_section(experiment))
    try:
        budget = disk_budget(experiment, footprint, runs=runs, concurrent=concurrent, line=line)
    except ValueError as err:
        return f"{prefix}disk budget: not computed, the batches do not work out: {err}\n"
    return f"{prefix}{size.describe()}\n" + budget.describe(prefix)
