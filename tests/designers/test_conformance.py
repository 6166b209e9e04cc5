"""One conformance check over every registered designer (built-ins and LLM ones alike).

Every designer sees the same contexts and must return a `Proposal` whose configuration is
legal as it stands (`project` changes nothing), names itself, keeps the experiment's fixed
fields, and records its rationale. LLM designers answer through the local OpenAI-compatible
test server, reached through LiteLLM exactly as a real endpoint would be.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from designers import (
    Designer,
    Proposal,
    create_designer,
    designer_names,
    ensure_ready,
    own_initial_config,
)
from mapf_env import EnvConfig, project
from tests.designers.contexts import contexts
from tests.designers.openai_server import FAST, ScriptedServer

MODEL_FREE = ["random", "uniform", "hand", "evidence", "harder", "matched"]


def check_proposal(designer: Designer, proposal: Proposal, config: EnvConfig) -> None:
    assert isinstance(proposal, Proposal)
    assert proposal.designer == designer.name
    again = project(proposal.config)
    assert not again.changed, [str(n) for n in again.notes]
    assert again.config == proposal.config
    for field in ("n_agents", "samples", "objective"):
        assert getattr(proposal.config, field) == getattr(config, field)
    assert proposal.seconds >= 0
    assert Proposal.model_validate_json(proposal.model_dump_json()) == proposal


def test_every_registered_designer_is_covered() -> None:
    covered = set(MODEL_FREE) | {"gpt", "gemini", "grok", "kimi", "claude", "llm", "self", "base"}
    assert set(designer_names()) <= covered | {"echo"}


@pytest.mark.parametrize("name", MODEL_FREE)
def test_model_free_designers_conform(name: str) -> None:
    designer = create_designer(name)
    assert designer.name == name and designer.description
    for ctx in contexts():
        check_proposal(designer, designer.propose(ctx), ctx.config)
        start = own_initial_config(designer, ctx.config, ctx.seed)
        if start is not None:
            assert not project(start).changed


LLM_NAMES = ["gpt", "gemini", "grok", "kimi", "claude", "llm", "self", "base"]


def build_llm(
    name: str, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, tmp: Path
) -> Designer:
    """The registered designer `name`, through its real factory, talking to the test server."""
    aliases = tmp / "models.yaml"  # every alias pointed at an OpenAI-compatible model name
    aliases.write_text("".join(f"{a}: openai/{a}-test\n" for a in LLM_NAMES[:5]))
    monkeypatch.setenv("ENVDESIGN_LLM_MODELS", str(aliases))
    if name in ("self", "base"):
        return create_designer(name, endpoint=server.endpoint(), **FAST)
    spec = "llm:openai/any-model" if name == "llm" else name
    return create_designer(spec, api_base=server.base_url, **FAST)


@pytest.mark.parametrize("name", LLM_NAMES)
def test_llm_designers_conform(
    name: str, openai_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    designer = build_llm(name, openai_server, monkeypatch, tmp_path)
    ensure_ready(designer)
    for ctx in contexts():
        proposal = designer.propose(ctx)
        check_proposal(designer, proposal, ctx.config)
        assert not proposal.kept_previous and proposal.transcript
    openai_server.queue(*["no yaml at all"] * 10)  # a designer that never answers usefully
    ctx = contexts()[1]
    proposal = designer.propose(ctx)
    check_proposal(designer, proposal, ctx.config)
    assert proposal.kept_previous and proposal.config == ctx.config and proposal.failures
