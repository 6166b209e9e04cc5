"""Fixtures of the verl backend tests; modules named ``test_verl_*`` need verl itself.

Those modules import verl at the top, so when verl is not installed (the main venv) they are not
imported at all: each is reported as one skipped module with the reason below. They run for real
in the CI jobs ``.ci/verl`` (verl 0.6.1, CPU torch, numpy < 2) and ``.ci/verl-current`` (verl
0.9.1, CPU torch, numpy >= 2), which set ``ENVDESIGN_REQUIRE_VERL=1`` so that a broken verl
install fails instead of skipping.

Most ``test_verl_*`` modules check whichever supported line is installed (the ``verl_line``
fixture says which); a module written for one line is skipped where verl of the other is
installed, with the reason: ``test_verl_current_*`` needs the 0.9 line, the modules in
`LINE_ONLY` the line named there.

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

from harness.backends.verl.versions import (
    UnsupportedVerl,
    VerlLine,
    line_of,
    version_set,
)
from harness.doctor.probes import installed_version
from harness.experiment import ExperimentConfig
from mapf_env import EnvConfig, Instance, generate, reference_answer, write_parquet
from tests.harness.verl.cases import CHAT_TEMPLATE, PAPER_PRESET, golden_cases, tiny_model_dir

VERL_MISSING = importlib.util.find_spec("verl") is None
SKIP_REASON = (
    "verl is not installed here; these tests run in the CI jobs .ci/verl "
    "(verl 0.6.1, CPU torch, numpy<2) and .ci/verl-current (verl 0.9.1, numpy>=2)"
)
CI_JOB: dict[VerlLine, str] = {"0.6": ".ci/verl", "0.9": ".ci/verl-current"}
LINE_ONLY: dict[str, VerlLine] = {
    "test_verl_reward_manager.py": "0.6",
    "test_verl_task_reward_manager.py": "0.6",
    "test_dry_run.py": "0.6",
}
"""Modules for one line only where a verl is installed: 0.6's reward manager (0.9's reward loop
lives in ``test_verl_current_*``); the dry run's expected keys, which are the paper line's
(without verl, as in the main venv, the dry run assumes that line)."""


def _installed_line() -> tuple[str | None, VerlLine | None, str]:
    """(installed verl version, its line, why it has none)."""
    version = installed_version("verl")
    if VERL_MISSING or version is None:
        return None, None, SKIP_REASON
    try:
        return version, line_of(version), ""
    except UnsupportedVerl as err:
        return version, None, str(err)


VERL_VERSION, VERL_LINE, NO_LINE = _installed_line()


def module_line(name: str) -> VerlLine | None:
    """The one line module `name` is for; None: any installed line."""
    if name.startswith("test_verl_current_"):
        return "0.9"
    return LINE_ONLY.get(name)


class _SkippedModule(pytest.Module):
    reason = SKIP_REASON

    def collect(self) -> Any:
        pytest.skip(f"{self.path.name}: {self.reason}")


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("ENVDESIGN_REQUIRE_VERL") == "1" and VERL_LINE is None:
        raise pytest.UsageError(
            "ENVDESIGN_REQUIRE_VERL=1 but no supported verl can be imported "
            f"({NO_LINE}): the verl CI jobs must run the verl tests, not skip them"
        )


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> Any:
    name = module_path.name
    needs_verl = name.startswith("test_verl_")
    wanted = module_line(name)
    if needs_verl and VERL_LINE is None:
        reason = NO_LINE
    elif VERL_LINE is not None and wanted is not None and wanted != VERL_LINE:
        reason = (
            f"needs the verl {wanted} line ({version_set(wanted).verl}), and verl "
            f"{VERL_VERSION} is installed here; it runs in {CI_JOB[wanted]}"
        )
    else:
        return None
    module = _SkippedModule.from_parent(parent, path=module_path)
    module.reason = reason
    return module


@pytest.fixture(scope="session")
def verl_line() -> VerlLine:
    """The installed verl's line (only ``test_verl_*`` modules, which need verl, ask)."""
    assert VERL_LINE is not None, NO_LINE
    return VERL_LINE


# --- the testbed's data ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def data() -> tuple[Instance, ...]:
    """The stand-in trainer's round data: sixteen solved two-agent instances (seed 1)."""
    return generate(EnvConfig.uniform(samples=16), seed=1, workers=1).instances


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
    """A Hugging Face directory with a tiny Qwen3 config and the tokenizer (`tiny_model_dir`)."""
    return tiny_model_dir(tmp_path_factory.mktemp("tiny-qwen3"), tokenizer)


@pytest.fixture
def fresh_reward_module() -> Iterator[None]:
    """verl caches the loaded reward file as sys.modules['custom_module'] for the process; each
    test loads it anew."""
    import sys

    sys.modules.pop("custom_module", None)
    yield
    sys.modules.pop("custom_module", None)
