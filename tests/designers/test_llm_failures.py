"""A design step that cannot design says why, and what cannot succeed is not asked again."""

from __future__ import annotations

import pytest

from designers import sample_contexts
from designers.llm.client import CallSettings, Target, complete
from designers.llm.failures import classify
from tests.designers.openai_server import FAST, Reply, ScriptedServer, llm_designer_for

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("model", "variable"),
    [("openai/gpt-5.4", "OPENAI_API_KEY"), ("gemini/gemini-3.1-pro", "GEMINI_API_KEY")],
)
def test_a_missing_key_is_one_attempt(
    model: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LiteLLM reports these as a 500 and a connection error; neither is worth a retry."""
    for name in (variable, "GOOGLE_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)
    result = complete(Target(model=model), MESSAGES, CallSettings(**FAST))
    assert result.error is not None and result.attempts == 1, result
    assert result.failure == "missing credentials"


@pytest.mark.parametrize(
    ("status", "reason"),
    [(401, "rejected credentials"), (403, "forbidden"), (404, "unknown model"),
     (400, "invalid request")],
)  # fmt: skip
def test_client_errors_end_the_call_at_once(
    status: int, reason: str, openai_server: ScriptedServer
) -> None:
    openai_server.queue(Reply(status=status, content="no"), Reply(status=200))
    target = Target(model="openai/m", api_base=openai_server.base_url)
    result = complete(target, MESSAGES, CallSettings(**FAST))
    assert result.attempts == 1 and len(openai_server.requests) == 1
    assert result.failure is not None and result.failure.startswith(reason)


def test_transient_errors_keep_their_backoff(openai_server: ScriptedServer) -> None:
    openai_server.queue(Reply(status=429), Reply(status=503), "fine")
    target = Target(model="openai/m", api_base=openai_server.base_url)
    result = complete(target, MESSAGES, CallSettings(**FAST))
    assert result.error is None and result.attempts == 3 and result.text == "fine"


def test_classification_reads_messages_as_well_as_types() -> None:
    class InternalServerError(Exception):
        status_code = 500

    assert classify(InternalServerError("Missing credentials. Please pass an api_key")).permanent
    assert not classify(InternalServerError("upstream overloaded")).permanent
    assert classify(RuntimeError("Incorrect API key provided")).reason == "rejected credentials"


def test_an_unreachable_model_is_a_recorded_design_failure(openai_server: ScriptedServer) -> None:
    """The proposal keeps the configuration, says why, and no summary is asked for (V6 has S)."""
    openai_server.default = Reply(status=401, content="bad key")
    ctx = sample_contexts()[1]
    proposal = llm_designer_for(openai_server, variant="V6").propose(ctx)
    assert proposal.design_failed and proposal.kept_previous
    assert proposal.failure_reason == "rejected credentials (401)"
    assert proposal.config == ctx.config
    assert len(openai_server.requests) == 1  # no retry, no summary request


def test_unusable_answers_are_a_design_failure_with_the_attempts(
    openai_server: ScriptedServer,
) -> None:
    openai_server.default = Reply(content="no yaml here")
    designer = llm_designer_for(openai_server, variant="V2", max_attempts=2)
    proposal = designer.propose(sample_contexts()[1])
    assert proposal.failure_reason == "no usable change set in 2 attempts"


def test_a_good_answer_is_no_failure(openai_server: ScriptedServer) -> None:
    proposal = llm_designer_for(openai_server, variant="V2").propose(sample_contexts()[1])
    assert not proposal.design_failed and proposal.failure_reason is None
