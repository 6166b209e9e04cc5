"""Where the trl backend computes, and its model loaded there.

`placement` settles the device and the float format once per backend from the settings and the
machine -- ``auto`` is the GPU where CUDA is available, else the CPU; bfloat16 on a GPU that has
it, float32 on the CPU -- and the round's record keeps the answer with the versions that
compute (`Placement.as_record`). Weights are loaded in float32 and a bfloat16 or float16 run
computes under autocast (transformers' ``bf16``/``fp16`` in training), so the optimiser keeps
full-precision weights as the paper's FSDP recipe does.

`load_model` reads a model directory (or hub id): a plain model, or a LoRA adapter saved by an
earlier round, which is put back onto the policy it was trained on.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import torch

from harness.backends.trl.settings import TrlSettings
from run_records.machine import mkl_branch

__all__ = ["LoadedModel", "Placement", "load_model", "placement"]


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


@dataclass(frozen=True)
class Placement:
    """The device and float format a backend computes in."""

    device: str
    dtype: str
    mkl: str | None = None
    """MKL's branch in this process (`run_records.mkl_branch`); None without MKL."""

    @property
    def torch_dtype(self) -> torch.dtype:
        return {"float32": torch.float32, "bfloat16": torch.bfloat16,
                "float16": torch.float16}[self.dtype]  # fmt: skip

    @property
    def autocast(self) -> bool:
        return self.dtype != "float32"

    def as_record(self) -> dict[str, Any]:
        """For each round's record: what changes the numbers."""
        record: dict[str, Any] = {
            "device": self.device,
            "dtype": self.dtype,
            "torch": torch.__version__,
            "transformers": _version("transformers"),
            "trl": _version("trl"),
            "peft": _version("peft"),
        }
        if self.device == "cuda":
            record["gpu"] = torch.cuda.get_device_name(0)
        else:
            record["threads"] = torch.get_num_threads()
            record["mkl"] = self.mkl
        return record


def placement(settings: TrlSettings, threads: int | None = None) -> Placement:
    """The device and dtype `settings` resolve to here; ValueError for a GPU that is not."""
    cuda = torch.cuda.is_available()
    if settings.device == "cuda" and not cuda:
        raise ValueError("trl.device is cuda but torch sees no CUDA GPU here")
    device = "cuda" if settings.device == "cuda" or (settings.device == "auto" and cuda) else "cpu"
    dtype = settings.dtype
    if dtype == "auto":
        dtype = "bfloat16" if device == "cuda" and torch.cuda.is_bf16_supported() else "float32"
    if device == "cpu" and threads is not None:
        torch.set_num_threads(threads)
    mkl = mkl_branch() if device == "cpu" else None
    return Placement(device=device, dtype=dtype, mkl=mkl)


@dataclass
class LoadedModel:
    """A model and its tokenizer in this process, and the directory they came from."""

    source: str
    model: Any
    tokenizer: Any


def load_model(
    source: str, policy: str, place: Placement, settings: TrlSettings, *, trainable: bool
) -> LoadedModel:
    """`source` (a directory or hub id) on `place`'s device; an adapter directory is loaded
    onto `policy`. `trainable`: an adapter's weights stay trainable (for the next round)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # the harness shows progress
    options: dict[str, Any] = {"dtype": torch.float32}
    if settings.attention != "auto":
        options["attn_implementation"] = settings.attention
    adapter = (Path(source) / "adapter_config.json").is_file()
    model: Any = AutoModelForCausalLM.from_pretrained(policy if adapter else source, **options)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, source, is_trainable=trainable)
    tokenizer = AutoTokenizer.from_pretrained(source)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.to(place.device)
    return LoadedModel(source=source, model=model, tokenizer=tokenizer)
