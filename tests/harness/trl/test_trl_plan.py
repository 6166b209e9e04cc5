"""The ``single_gpu`` preset before any GPU: its dry run and `harness doctor` on two machines.

The machines are `tests/harness/doctor_fakes.FakeProbe`s (an H100 80GB, an A10 24GB, none);
the model's config.json is a real Hugging Face cache layout on disk with Qwen3-0.6B's shape, so
the estimate includes the logits, activations and KV cache the preset's lengths imply.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.doctor import TorchFacts, diagnose
from harness.dry_run import dry_run
from harness.experiment import ExperimentConfig
from harness.presets import resolve_preset
from tests.harness.doctor_fakes import A10, H100, FakeProbe, build_hf_cache

QWEN3_06B_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "hidden_size": 1024,
    "num_hidden_layers": 28,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
    "torch_dtype": "bfloat16",
    "tie_word_embeddings": True,
}
QWEN3_06B_BYTES = 2 * 596_049_920
QWEN3_06B_TENSORS = {
    "model.embed_tokens.weight": ("BF16", [151936, 1024]),
    "model.layers": ("BF16", [440_467_456]),  # the 28 layers and the norm, as one count
}
"""Safetensors headers whose shapes add up to Qwen3-0.6B's 596,049,920 parameters."""


@pytest.fixture
def single_gpu() -> ExperimentConfig:
    return ExperimentConfig.load(resolve_preset("single_gpu"))


def machine(tmp_path: Path, gpu: object | None) -> FakeProbe:
    cache = tmp_path / "hub"
    cache.mkdir(parents=True)
    build_hf_cache(
        cache,
        "Qwen/Qwen3-0.6B",
        config=QWEN3_06B_CONFIG,
        total_size=QWEN3_06B_BYTES,
        shards={"model.safetensors": QWEN3_06B_TENSORS},
    )
    torch = TorchFacts("2.11.0", "12.8", gpu is not None, (gpu,) if gpu is not None else ())  # type: ignore[arg-type]
    return FakeProbe(env={"HF_HUB_CACHE": str(cache)}, torch=torch, free=10**12)


def test_the_dry_run_prints_the_plan_memory_and_disk_without_a_gpu(
    single_gpu: ExperimentConfig, tmp_path: Path
) -> None:
    text = dry_run(single_gpu, tmp_path / "runs", concurrent=1, ray_address=None)
    assert "GRPOTrainer on Qwen/Qwen3-0.6B" in text and "0.60B parameters" in text
    assert "250 optimiser steps a round" in text and "4 prompts x n=8 answers" in text
    assert "training memory, estimated: " in text and "disk, estimated: 4.8 GB a run" in text
    assert "transformers.cli.transformers serve Qwen/Qwen3-0.6B" in text
    assert text.count("run ") >= 3 and text.endswith("\n")


def test_the_doctor_passes_an_h100_and_fails_an_a10_on_memory_in_one_line(
    single_gpu: ExperimentConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for gpu, level in ((H100, "ok"), (A10, "fail")):
        probe = machine(tmp_path / gpu.name.replace(" ", "-"), gpu)
        monkeypatch.setenv("HF_HUB_CACHE", probe.env["HF_HUB_CACHE"])
        findings = diagnose(single_gpu, probe, root=tmp_path, skip=("designers",))
        (memory,) = [f for f in findings if f.topic == "gpu memory"]
        assert memory.level == level, memory
        assert "logits" in memory.what and "generation KV cache" in memory.what
        assert "training needs about 30.3 GB (weights 2.4 GB" in memory.what
        assert {f.topic for f in findings} >= {"packages", "model", "gpus", "disk"}
    none = machine(tmp_path / "none", None)
    (cuda,) = [f for f in diagnose(single_gpu, none, root=tmp_path, skip=("designers",))
               if f.topic == "cuda"]  # fmt: skip
    assert cuda.level == "fail" and "no CUDA GPU" in cuda.what
