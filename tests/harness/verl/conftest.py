"""Fixtures of the verl backend tests; modules named ``test_verl_*`` need verl itself.

Those modules import verl at the top, so when verl is not installed (the main venv) they are not
imported at all: each is reported as one skipped module with the reason below. They run for real
in the CI job ``.ci/verl`` (verl 0.6.1 on CPU torch, numpy < 2), which sets
``ENVDESIGN_REQUIRE_VERL=1`` so that a broken verl install fails instead of skipping.

Nothing here downloads anything: the tokenizer is trained on the testbed's own prompts and the
"model" directory holds only a tiny Qwen3 config and that tokenizer.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.experiment import ExperimentConfig
from mapf_env import EnvConfig, Instance, generate, reference_answer, write_parquet
from tests.harness.verl.cases import CHAT_TEMPLATE, PAPER_PRESET, golden_cases

VERL_MISSING = importlib.util.find_spec("verl") is None
SKIP_REASON = (
    "verl is not installed here; these tests run in the CI job .ci/verl "
    "(verl 0.6.1, CPU torch, numpy<2)"
)


class _SkippedModule(pytest.Module):
    def collect(self) -> Any:
        pytest.skip(f"{self.path.name}: {SKIP_REASON}")


def pytest_configure(config: pytest.Config) -> None:
    if VERL_MISSING and os.environ.get("ENVDESIGN_REQUIRE_VERL") == "1":
        raise pytest.UsageError(
            "ENVDESIGN_REQUIRE_VERL=1 but verl cannot be imported: the verl CI job must run "
            "the verl tests, not skip them"
        )


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> Any:
    if VERL_MISSING and module_path.name.startswith("test_verl_"):
        return _SkippedModule.from_parent(parent, path=module_path)
    return None


# --- the testbed's data ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def generated() -> tuple[Instance, ...]:
    """Sixteen solved two-agent instances, two per size 3..10."""
    return generate(EnvConfig.uniform(samples=16), seed=0, workers=1).instances


@pytest.fixture(scope="session")
def scored_cases(generated: tuple[Instance, ...]) -> list[tuple[str, Instance, str]]:
    """Responses of every kind: the golden ones (valid, optimal, suboptimal, each failure,
    unparsable) and, for generated instances, reference answers, the same after a reasoning
    block, a truncated plan and plain prose."""
    cases = golden_cases()
    for inst in generated[::3]:
        answer = reference_answer(inst)
        cases += [
            (f"{inst.id}-reference", inst, answer),
            (f"{inst.id}-think", inst, f"<think>\nWait for agent 2? No.\n</think>\n{answer}"),
            (f"{inst.id}-truncated", inst, answer.rsplit(" ", 1)[0]),
            (f"{inst.id}-prose", inst, "I cannot solve this puzzle, sorry."),
        ]
    return cases


@pytest.fixture(scope="session")
def paper() -> ExperimentConfig:
    return ExperimentConfig.load(PAPER_PRESET)


@pytest.fixture(scope="session")
def round_files(
    tmp_path_factory: pytest.TempPathFactory, generated: tuple[Instance, ...]
) -> tuple[Path, Path]:
    """A train and a validation parquet exactly as the testbed exports them."""
    root = tmp_path_factory.mktemp("round")
    train, val = root / "train.parquet", root / "val.parquet"
    write_parquet(generated, train, split="train")
    write_parquet(generated[:4], val, split="validation")
    return train, val


# --- a tokenizer and a model directory, built locally --------------------------------------


@pytest.fixture(scope="session")
def tokenizer(scored_cases: list[tuple[str, Instance, str]]) -> Any:
    """A byte-level BPE trained on the testbed's prompts and answers (decoding is exact for any
    text), wrapped as a transformers fast tokenizer with a chat template."""
    from benchmarks.gpu_smoke import train_tokenizer
    from mapf_env import render_prompt

    corpus = []
    for _, inst, text in scored_cases:
        corpus += [m["content"] for m in render_prompt(inst)] + [text]
    return train_tokenizer(corpus, 600, CHAT_TEMPLATE)


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory, tokenizer: Any) -> Path:
    """A Hugging Face directory with a tiny Qwen3 config and the tokenizer (no weights: only
    verl's config checks read it)."""
    from transformers import Qwen3Config

    path = tmp_path_factory.mktemp("tiny-qwen3")
    Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        architectures=["Qwen3ForCausalLM"],
    ).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture
def fresh_reward_module() -> Iterator[None]:
    """verl caches the loaded reward file as sys.modules['custom_module'] for the process; each
    test loads it anew."""
    import sys

    sys.modules.pop("custom_module", None)
    yield
    sys.modules.pop("custom_module", None)
