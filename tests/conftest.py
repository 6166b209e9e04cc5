"""Fixtures shared by the test packages: the scripted OpenAI-compatible server (LLM designers in
tests/designers, zero-shot policies in tests/harness)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if TYPE_CHECKING:
    from tests.designers.openai_server import ScriptedServer


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
