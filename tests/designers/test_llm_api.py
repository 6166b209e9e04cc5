"""Opt-in smoke tests against the real providers (``pytest -m api``), one per alias.

Each needs its provider's key in the environment and is skipped without it. They check only
that a real model's answer goes through the whole path to a legal configuration (or a recorded
failure), not the quality of the design.
"""

from __future__ import annotations

import os

import pytest

from designers.context import DesignContext
from designers.llm import factories
from mapf_env import EnvConfig, project

KEYS = {
    "gpt": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "grok": "XAI_API_KEY",
    "kimi": "MOONSHOT_API_KEY",
    "claude": "ANTHROPIC_API_KEY",
}


@pytest.mark.api
@pytest.mark.parametrize("alias", list(KEYS))
def test_alias_smoke(alias: str) -> None:
    if not os.environ.get(KEYS[alias]):
        pytest.skip(f"{KEYS[alias]} is not set")
    config = EnvConfig.uniform()
    ctx = DesignContext(round=0, total_rounds=3, config=config, initial_config=config)
    designer = factories.from_alias(alias, variant="V2", timeout_s=120, deadline_s=300)
    proposal = designer.propose(ctx)
    assert project(proposal.config).config == proposal.config
    assert proposal.transcript and proposal.transcript[0].error is None, proposal.failures
    assert os.environ[KEYS[alias]] not in proposal.model_dump_json()
