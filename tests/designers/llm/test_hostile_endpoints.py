"""A broken or hostile OpenAI-compatible server cannot hold an LLM call past its deadline, and
the call's failure names what was wrong with it rather than a generic "server error (500)"."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

from designers import sample_contexts
from designers.llm.client import CallResult, CallSettings, Target, complete
from tests.designers.openai_server import llm_designer_for
from tests.hostile_http import HostileServer

T = TypeVar("T")
MESSAGES = [{"role": "user", "content": "hi"}]
SETTINGS = CallSettings(timeout_s=1.0, deadline_s=2.0, max_retries=1, backoff_base_s=0.01,
                        backoff_max_s=0.02)  # fmt: skip
SLACK_S = 10.0
"""Generous: the deadline is 2 s, which bounds even a slow-drip server that would otherwise hold
the call forever."""
OUT_OF_TIME = "no complete answer within 1 s"
LATE = {OUT_OF_TIME, "no complete answer within the 2 s deadline"}
"""The first attempt runs out of its 1 s, the retry out of what is left of the 2 s deadline."""
LABELS = {
    "drip": LATE,
    "endless": {*LATE, "response body larger than 16777216 bytes"},
    "stall": LATE,
    "html": {"HTML page instead of JSON in the response"},
    "badjson": {"invalid JSON in the response"},
    "gzipbomb": {"response body larger than 16777216 bytes"},
    "redirect": {"redirect loop"},
    "drop": {"connection dropped"},
}


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    server = HostileServer().start()
    for provider in ("openai", "hosted_vllm"):  # LiteLLM's first call loads modules for seconds
        complete(Target(model=f"{provider}/m", api_base=server.base_url("html")), MESSAGES,
                 CallSettings(timeout_s=60.0, deadline_s=60.0, max_retries=0))  # fmt: skip
    yield server
    server.stop()


def bounded(work: Callable[[], T], seconds: float) -> tuple[T, float]:
    """`work`'s result and its time; fails the test (instead of hanging it) past `seconds`."""
    box: dict[str, T] = {}
    started = time.monotonic()
    thread = threading.Thread(target=lambda: box.setdefault("value", work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert "value" in box, f"still running after {seconds:g} s"
    return box["value"], time.monotonic() - started


@pytest.mark.parametrize("provider", ["openai", "hosted_vllm"])
@pytest.mark.parametrize("kind", sorted(LABELS))
def test_a_hostile_endpoint_fails_the_call_in_time_with_its_real_reason(
    hostile: HostileServer, kind: str, provider: str
) -> None:
    target = Target(model=f"{provider}/m", api_base=hostile.base_url(kind))
    result: CallResult
    result, seconds = bounded(lambda: complete(target, MESSAGES, SETTINGS), 60.0)
    assert result.error is not None
    assert result.failure in LABELS[kind], result.error
    assert seconds < SETTINGS.deadline_s + SLACK_S


def test_a_slow_drip_server_is_a_failed_design_step_that_says_so(hostile: HostileServer) -> None:
    """The designer's recorded failure is the plain reason, within the deadline."""
    designer = llm_designer_for(hostile, api_base=hostile.base_url("drip"), timeout_s=1.0,  # type: ignore[arg-type]
                                deadline_s=2.0, max_retries=0, max_attempts=1)  # fmt: skip
    context = sample_contexts()[0]
    proposal, seconds = bounded(lambda: designer.propose(context), 60.0)
    assert proposal.failure_reason == OUT_OF_TIME
    assert seconds < 2 * (SETTINGS.deadline_s + SLACK_S)  # analysis, and at most one summary
