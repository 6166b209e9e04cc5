"""Fixtures of the designer tests: a scripted OpenAI-compatible server, and a sample context."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.designers.openai_server import ScriptedServer


@pytest.fixture(scope="session")
def _server_process() -> Iterator[ScriptedServer]:
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
