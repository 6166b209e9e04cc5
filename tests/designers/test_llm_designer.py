"""The LLM designer against a real local OpenAI-compatible server, through LiteLLM.

Retries (429 with Retry-After, 5xx), deadlines, bad answers with the error shown to the model,
kept-previous fallbacks, `<think>` handling, the self-summary (S), usage accounting, and that an
API key never reaches a transcript, a failure string or the logs.
"""

from __future__ import annotations

import json
import logging
import time

import pytest

from designers.base import DesignerNotReady
from designers.context import DesignContext, Endpoint
from designers.llm import factories
from designers.llm.client import CallSettings, Target, complete, scrub
from designers.options import DesignerOptionsError
from mapf_env import EnvConfig, project
from tasks.mapf_frozenlake import MapfFrozenLake
from tests.designers.openai_server import (
    Reply,
    ScriptedServer,
    llm_designer_for,
    scripted_good_answer,
)

MAPF = MapfFrozenLake()

CONFIG = EnvConfig.uniform()
CTX = DesignContext(round=0, total_rounds=3, config=CONFIG, initial_config=CONFIG)
SECRET = "sk-test-THIS-IS-A-FAKE-KEY-0123456789"


def test_good_answer_is_applied(openai_server: ScriptedServer) -> None:
    openai_server.queue(scripted_good_answer(), "Observed X. Changed Y. Watch Z.")
    proposal = llm_designer_for(openai_server, "gpt").propose(CTX)
    assert not proposal.kept_previous and not proposal.failures
    assert proposal.config.sizes[7].hole_ratio == 0.3
    assert proposal.summary == "Observed X. Changed Y. Watch Z."
    assert [c.purpose for c in proposal.transcript] == ["analysis", "summary"]
    assert proposal.prompt_tokens == 22 and proposal.completion_tokens == 14
    assert "shift budget" in proposal.rationale
    assert project(proposal.config).config == proposal.config


def test_prompt_sections_reach_the_server(openai_server: ScriptedServer) -> None:
    llm_designer_for(openai_server, "gpt", variant="V2").propose(CTX)
    (request,) = openai_server.requests  # V2 has no S: no summary call
    user = request.body["messages"][-1]["content"]
    assert "## Guidelines" in user and "## History" not in user
    assert request.body["model"] == "gpt"


def test_rate_limit_retry_after_is_honoured(openai_server: ScriptedServer) -> None:
    openai_server.queue(Reply(status=429, headers={"Retry-After": "0.5"}), scripted_good_answer())
    started = time.monotonic()
    proposal = llm_designer_for(openai_server, "gpt", variant="V1").propose(CTX)
    assert time.monotonic() - started >= 0.5
    assert not proposal.kept_previous
    assert any("RateLimitError" in f for f in proposal.failures)
    assert len(openai_server.requests) == 2


def test_server_errors_then_success(openai_server: ScriptedServer) -> None:
    openai_server.queue(Reply(status=500), Reply(status=503), scripted_good_answer())
    proposal = llm_designer_for(openai_server, "gpt", variant="V1").propose(CTX)
    assert not proposal.kept_previous and len(openai_server.requests) == 3
    assert sum("retried after" in f for f in proposal.failures) == 2


def test_deadline_keeps_previous_without_raising(openai_server: ScriptedServer) -> None:
    openai_server.queue(*[Reply(content=scripted_good_answer(), delay_s=2.0)] * 3)
    designer = llm_designer_for(openai_server, "gpt", variant="V1", timeout_s=0.3, deadline_s=0.8)
    started = time.monotonic()
    proposal = designer.propose(CTX)
    assert time.monotonic() - started < 2.5
    assert proposal.kept_previous and proposal.config == CONFIG
    assert any("deadline" in f for f in proposal.failures)


def test_client_error_is_not_retried(openai_server: ScriptedServer) -> None:
    openai_server.queue(Reply(status=400), Reply(status=400))
    proposal = llm_designer_for(openai_server, "gpt", variant="V1").propose(CTX)
    assert proposal.kept_previous and len(openai_server.requests) == 1


def test_bad_answers_are_shown_to_the_model_then_kept(openai_server: ScriptedServer) -> None:
    hostile = "```yaml\n!!python/object/apply:os.system ['touch /tmp/pwned']\n```"
    openai_server.queue("no yaml at all", "```yaml\n7x7: {ration: 1}\n```", hostile, "S.")
    proposal = llm_designer_for(openai_server, "gpt", variant="V5").propose(CTX)
    assert proposal.kept_previous and proposal.config == CONFIG
    assert len([f for f in proposal.failures if f.startswith("analysis")]) == 3
    retry = openai_server.requests[1].body["messages"]
    assert retry[-2] == {"role": "assistant", "content": "no yaml at all"}
    assert "could not be used" in retry[-1]["content"] and "mapping" in retry[-1]["content"]
    assert "did you mean 'ratio'" in openai_server.requests[2].body["messages"][-1]["content"]
    assert proposal.summary == "S."


def test_second_attempt_succeeds(openai_server: ScriptedServer) -> None:
    openai_server.queue("```yaml\n7x7: [\n```", scripted_good_answer())
    proposal = llm_designer_for(openai_server, "gpt", variant="V4").propose(CTX)
    assert not proposal.kept_previous
    assert [c.purpose for c in proposal.transcript] == ["analysis", "analysis retry 1"]


def test_think_is_stripped_and_kept_as_reasoning(openai_server: ScriptedServer) -> None:
    answer = "<think>maybe ```yaml\n3x3: {ratio: 1}\n```</think>" + scripted_good_answer()
    openai_server.queue(Reply(content=answer), Reply(content="Sum.", reasoning="server-side"))
    proposal = llm_designer_for(openai_server, "self").propose(CTX)
    analysis, summary = proposal.transcript
    assert "maybe" in analysis.reasoning and "<think>" not in analysis.response
    assert proposal.config.sizes[3].ratio < 0.5
    assert summary.reasoning == "server-side" and proposal.summary == "Sum."
    assert analysis.model == "hosted_vllm/scripted-model"


def test_key_never_leaks(
    openai_server: ScriptedServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ENVDESIGN_TEST_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    endpoint = openai_server.endpoint(api_key_env="ENVDESIGN_TEST_API_KEY")
    openai_server.queue(
        Reply(status=500), Reply(status=401), Reply(content="broken"), "no", "no", "S."
    )
    designer = llm_designer_for(openai_server, "self", endpoint=endpoint)
    first = designer.propose(CTX)
    second = designer.propose(CTX)
    assert openai_server.requests[0].headers["Authorization"] == f"Bearer {SECRET}"
    out = capfd.readouterr()
    dumped = first.model_dump_json() + second.model_dump_json() + caplog.text + out.out + out.err
    assert SECRET not in dumped
    assert first.kept_previous and second.kept_previous


def test_scrub_masks_secret_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_TOKEN", "abcdef123456")
    text = scrub("a abcdef123456 Bearer xyz sk-proj-0123456789ab api_key=hunter22 ?key=AIza1")
    assert "abcdef123456" not in text and "xyz" not in text and "hunter22" not in text
    assert "sk-proj" not in text and "AIza1" not in text


def test_connection_refused_is_retried_then_reported() -> None:
    settings = CallSettings(timeout_s=0.5, deadline_s=1.0, max_retries=2, backoff_base_s=0.01)
    result = complete(Target("openai/x", api_base="http://127.0.0.1:9/v1"), [], settings)
    assert result.error is not None and result.attempts == 3


def test_self_without_endpoint_reads_the_backends_and_fails_clearly_without_it() -> None:
    designer = factories.self_checkpoint()
    assert designer.backend_endpoints == ("policy",)
    assert factories.base_model().backend_endpoints == ("base",)
    designer.check_ready()  # whether the backend serves one is the harness's check
    with pytest.raises(DesignerNotReady, match="policy_endpoint"):
        designer.propose(CTX)
    with pytest.raises(DesignerNotReady, match="base_endpoint"):
        factories.base_model().propose(CTX)
    given = factories.self_checkpoint(endpoint=Endpoint(base_url="http://x/v1", model="m"))
    assert given.backend_endpoints == ()


def test_self_uses_context_endpoint(openai_server: ScriptedServer) -> None:
    ctx = CTX.model_copy(update={"policy_endpoint": openai_server.endpoint("policy-ckpt")})
    designer = factories.self_checkpoint(variant="V1", **_fast())
    proposal = designer.propose(ctx)
    assert proposal.designer == "self" and not proposal.kept_previous
    assert openai_server.requests[0].body["model"] == "policy-ckpt"


def test_factories_and_aliases(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = {"gpt": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY", "grok": "XAI_API_KEY",
            "kimi": "MOONSHOT_API_KEY", "claude": "ANTHROPIC_API_KEY"}  # fmt: skip
    for name, variable in keys.items():
        designer = factories.from_alias(name)
        assert designer.name == name and designer.initial_config(CONFIG, 0, MAPF) is None
        for unset in (variable, "GOOGLE_API_KEY"):
            monkeypatch.delenv(unset, raising=False)
        with pytest.raises(DesignerNotReady, match=rf"^{name} \(.*needs .*{variable}"):
            designer.check_ready()
        monkeypatch.setenv(variable, "test-key-value")
        designer.check_ready()
    assert factories.from_alias("gpt").target(None).model == "openai/gpt-5.4"
    assert factories.llm(arg="openai/gpt-4o").name == "llm:openai/gpt-4o"
    path = __import__("pathlib").Path(str(tmp_path)) / "models.yaml"
    path.write_text("gpt: {model: openai/gpt-9}\n")
    monkeypatch.setenv("ENVDESIGN_LLM_MODELS", str(path))
    assert factories.from_alias("gpt").target(None).model == "openai/gpt-9"
    with pytest.raises(DesignerOptionsError, match="colour: not a field"):
        factories.from_alias("gpt", colour="red")
    with pytest.raises(ValueError, match="V9"):
        factories.from_alias("gpt", variant="V9")


def test_transcript_is_json_serialisable(openai_server: ScriptedServer) -> None:
    proposal = llm_designer_for(openai_server, "gpt").propose(CTX)
    assert json.loads(proposal.model_dump_json())["transcript"][0]["purpose"] == "analysis"


def test_huge_answer_over_http_is_rejected_then_retried(openai_server: ScriptedServer) -> None:
    openai_server.queue("x" * 10_000_000, scripted_good_answer())
    proposal = llm_designer_for(openai_server, "gpt", variant="V1").propose(CTX)
    assert not proposal.kept_previous and "characters" in proposal.failures[0]
    echoed = openai_server.requests[1].body["messages"][-2]["content"]
    assert len(echoed) <= 4_000


def test_cost_known_and_unknown(openai_server: ScriptedServer) -> None:
    unknown = llm_designer_for(openai_server, "no-such-model", variant="V1").propose(CTX)
    assert unknown.cost_usd is None
    known = llm_designer_for(openai_server, "gpt-4o", variant="V1").propose(CTX)
    assert known.cost_usd is not None and known.cost_usd > 0


def _fast() -> dict[str, float]:
    return {"timeout_s": 5.0, "deadline_s": 10.0, "backoff_base_s": 0.01, "backoff_max_s": 0.05}


def test_missing_litellm_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "litellm", None)  # makes `import litellm` fail
    with pytest.raises(DesignerNotReady, match=r"envdesign-bench\[api\]"):
        factories.from_alias("gpt").check_ready()
    proposal = factories.from_alias("gpt", max_retries=0).propose(CTX)
    assert proposal.kept_previous and "envdesign-bench[api]" in proposal.failures[0]
