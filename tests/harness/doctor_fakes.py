"""A machine for the doctor's tests: facts chosen by the test, every question recorded.

`FakeProbe` answers what `harness.doctor.Probe` asks from its fields; its model files are a
real Hugging Face cache layout built on disk (`build_hf_cache`), which the backends' checks
read as they read the real one, through the cache its `env` names. `H100_NODE` is the paper's
machine with the paper's package set.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.doctor import DriverFacts, Gpu, PythonFacts, TorchFacts

MIB = 1 << 20
H100 = Gpu("NVIDIA H100 80GB HBM3", 81559 * MIB, (9, 0))
A10 = Gpu("NVIDIA A10", 23028 * MIB, (8, 6))
PAPER_PACKAGES = {
    "verl": "0.6.1",
    "vllm": "0.11.0",
    "torch": "2.8.0",
    "transformers": "4.57.1",
    "numpy": "1.26.4",
    "pyarrow": "21.0.0",
    "flash-attn": "2.8.3",
    "ray": "2.49.2",
}
CURRENT_PACKAGES = {
    **PAPER_PACKAGES,
    "verl": "0.9.1",
    "vllm": "0.24.0",
    "torch": "2.11.0",
    "transformers": "5.9.0",
    "numpy": "2.2.6",
}
QWEN3_4B_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 2560,
    "num_hidden_layers": 36,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "max_position_embeddings": 40960,
    "torch_dtype": "bfloat16",
    "tie_word_embeddings": True,
}
QWEN3_4B_BYTES = 8_044_936_192
"""Qwen/Qwen3-4B's model.safetensors.index.json metadata.total_size (bf16)."""
SNAPSHOT = "1cfa9a7208912126459214e8b04321603b3df60c"


def safetensors_header(tensors: Mapping[str, tuple[str, list[int]]]) -> bytes:
    """A safetensors file's header (8-byte length + JSON), data left out: all the code reads."""
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        n = 2 * math.prod(shape)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw


def build_hf_cache(
    cache: Path,
    repo: str = "Qwen/Qwen3-4B",
    *,
    config: Mapping[str, object] = QWEN3_4B_CONFIG,
    total_size: int = QWEN3_4B_BYTES,
    shards: Mapping[str, Mapping[str, tuple[str, list[int]]]] | None = None,
    present: tuple[str, ...] | None = None,
    ref: bool = True,
    tokenizer: bool = True,
) -> Path:
    """The hub cache's layout for `repo`: ``models--org--name/refs/main`` naming a snapshot
    that holds config.json, a tokenizer, the weights index and the `present` shards (default:
    all)."""
    shards = shards or {
        "model-00001-of-00002.safetensors": {"model.embed_tokens.weight": ("BF16", [151936, 2560])},
        "model-00002-of-00002.safetensors": {"model.norm.weight": ("BF16", [2560])},
    }
    repo_dir = cache / f"models--{repo.replace('/', '--')}"
    snapshot = repo_dir / "snapshots" / SNAPSHOT
    snapshot.mkdir(parents=True)
    if ref:
        (repo_dir / "refs").mkdir()
        (repo_dir / "refs" / "main").write_text(SNAPSHOT)
    (snapshot / "config.json").write_text(json.dumps(config))
    if tokenizer:
        (snapshot / "tokenizer.json").write_text("{}")
    weight_map = {name: file for file, tensors in shards.items() for name in tensors}
    index = {"metadata": {"total_size": total_size}, "weight_map": weight_map}
    (snapshot / "model.safetensors.index.json").write_text(json.dumps(index))
    for file, tensors in shards.items():
        if present is None or file in present:
            (snapshot / file).write_bytes(safetensors_header(tensors))
    return snapshot


@dataclass
class FakeProbe:
    """The doctor's `Probe`, answering from its fields and recording each question."""

    env: dict[str, str] = field(default_factory=dict)
    driver_facts: DriverFacts = field(default_factory=DriverFacts)
    packages: dict[str, str | None] = field(default_factory=dict)
    torch: TorchFacts | None = None
    python_error: str | None = None
    flash: tuple[bool | None, str] = (True, "flash_attn 2.8.3 on 4 GPU(s) sm_90+")
    free: int = 10**13
    http_answers: dict[str, int | str] = field(default_factory=dict)
    tcp_answer: str | None = None
    bind_error: str | None = None
    asked: list[str] = field(default_factory=list)

    def driver(self) -> DriverFacts:
        self.asked.append("driver")
        return self.driver_facts

    def python(self, python: str, *, cuda: bool, packages: Sequence[str]) -> PythonFacts:
        """Its `packages` whichever were asked for: a check reads only the ones it names."""
        self.asked.append(f"python cuda={cuda}")
        if self.python_error:
            return PythonFacts(python, error=self.python_error)
        return PythonFacts(python, dict(self.packages), self.torch if cuda else None)

    def flash_attn(self, python: str) -> tuple[bool | None, str]:
        self.asked.append("flash_attn")
        return self.flash

    def free_disk(self, path: Path) -> tuple[int | None, Path]:
        self.asked.append("free_disk")
        return self.free, path

    def http(self, url: str, timeout_s: float) -> int | str:
        self.asked.append(f"http {url}")
        return self.http_answers.get(url, "connection refused")

    def tcp(self, host: str, port: int, timeout_s: float) -> str | None:
        self.asked.append(f"tcp {host}:{port}")
        return self.tcp_answer

    def bind(self, host: str) -> str | None:
        self.asked.append("bind")
        return self.bind_error


def h100_node(cache: Path, **changes: object) -> FakeProbe:
    """The paper's machine: 4 x H100 80GB, CUDA 12.8 torch, the gpu extra's packages, and
    Qwen3-4B in the Hugging Face cache at `cache` (which must exist, built or not)."""
    gpus = (H100,) * 4
    probe = FakeProbe(
        env={"HF_HUB_CACHE": str(cache)},
        driver_facts=DriverFacts(gpus=gpus, driver="570.86.15"),
        packages=dict(PAPER_PACKAGES),
        torch=TorchFacts("2.8.0+cu128", "12.8", True, gpus),
    )
    for name, value in changes.items():
        setattr(probe, name, value)
    return probe
