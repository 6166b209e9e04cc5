"""An `llm:` designer against a real server: `transformers serve` serving SmolLM2-135M-Instruct.

The API designers' path (LiteLLM, the paper's prompts, extraction, retries, the transcript) has
otherwise met only the scripted server of `tests/designers/openai_server.py`. Here the server is
the one the trl backend starts for `self` and `base` (`harness.backends.trl.serving`), and the
model is real, if too small to design well: its answer must come back, be recorded whole, and
become either a change set or a design step flagged with its reason. A server killed while it
answers is the other half: the step fails with a reason, the designer does not raise.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from designers import create_designer, sample_contexts
from harness.backends.servers import ModelServer
from harness.backends.trl.loading import Placement
from harness.backends.trl.serving import model_server
from harness.backends.trl.settings import TrlSettings

pytestmark = pytest.mark.trl

CPU = Placement(device="cpu", dtype="float32")


@pytest.fixture(scope="module")
def served(smollm2: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelServer]:
    logs = tmp_path_factory.mktemp("serve")
    server = model_server(str(smollm2), str(smollm2), "base", TrlSettings(), CPU, logs, logs)
    server.start(timeout_s=300)
    try:
        yield server
    finally:
        server.stop()


def designer(server: ModelServer, **options: object) -> object:
    endpoint = server.endpoint
    return create_designer(
        f"llm:hosted_vllm/{endpoint.model}", api_base=endpoint.base_url, max_attempts=1,
        max_retries=0, timeout_s=300, deadline_s=600, **options,
    )  # fmt: skip


def test_an_llm_designer_gets_a_real_answer_and_makes_a_design_or_a_flagged_step(
    served: ModelServer,
) -> None:
    context = sample_contexts()[0]
    proposal = designer(served, max_tokens=64).propose(context)  # type: ignore[attr-defined]
    analysis = proposal.transcript[0]
    assert analysis.purpose == "analysis" and analysis.error is None
    assert analysis.response.strip() and analysis.completion_tokens > 0
    assert analysis.prompt_tokens > 500  # the paper's context modules, as sent
    assert analysis.model == f"hosted_vllm/{served.endpoint.model}"
    if proposal.kept_previous:
        assert proposal.failure_reason and proposal.failures
    else:
        assert proposal.changes and proposal.config != context.config


def test_a_server_killed_mid_answer_is_a_failed_step_with_its_reason(
    smollm2: Path, tmp_path: Path
) -> None:
    server = model_server(str(smollm2), str(smollm2), "base", TrlSettings(), CPU, tmp_path,
                          tmp_path)  # fmt: skip
    server.start(timeout_s=300)
    try:
        assert server.process is not None
        pid = server.process.pid
        killer = threading.Timer(3.0, lambda: os.killpg(pid, signal.SIGKILL))
        killer.start()
        started = time.monotonic()
        proposal = designer(server, max_tokens=2000).propose(  # type: ignore[attr-defined]
            sample_contexts()[0]
        )
        killer.join()
    finally:
        server.stop()
    assert time.monotonic() - started < 120
    assert proposal.kept_previous and proposal.failure_reason
    assert proposal.transcript[0].error, proposal.transcript[0]
