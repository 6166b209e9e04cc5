"""Asking a model for many answers at once: a thread pool over the LLM client's `complete`.

The client already retries each request (rate limits with Retry-After, 5xx, timeouts) until its
deadline and never raises; here requests run `concurrency` at a time, each answer is written to
the cache by the thread that received it (so nothing paid for is lost when the caller stops),
and a request that still failed is counted: past `max_failures` the remaining requests are
cancelled and `TooManyFailures` is raised. On any stop, requests in flight still finish and are
cached; only on Ctrl-C the caller does not wait for them (the process does, as it exits).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from designers.llm.client import CallResult
from designers.llm.models import call_record
from harness.policy_eval.cache import AnswerCache, AnswerKey, CachedAnswer
from harness.policy_eval.errors import TooManyFailures


@dataclass(frozen=True)
class Request:
    """One answer to ask for: where it goes (suite, item, sample) and what is sent."""

    suite: int
    item: int
    sample: int
    key: AnswerKey
    messages: list[dict[str, str]]


Asker = Callable[[Request], CallResult]
"""Sends one request (retrying as it sees fit) and never raises: errors go in the result."""


def to_cached(key: AnswerKey, result: CallResult) -> CachedAnswer:
    """The cache line of one answer: the request's key, then the call as every record keeps it."""
    return CachedAnswer(
        suite=key.suite,
        suite_sha256=key.suite_sha256,
        id=key.id,
        sample=key.sample,
        model=key.model,
        endpoint=key.endpoint,
        sampling=json.loads(key.sampling),
        prompt_version=key.prompt_version,
        **call_record(result, whole_text=True),
    )


def ask_all(
    requests: Sequence[Request],
    ask: Asker,
    cache: AnswerCache,
    *,
    concurrency: int,
    max_failures: int,
    on_answer: Callable[[Request, CachedAnswer], None],
) -> None:
    """Ask every request; `on_answer` runs in the calling thread as each answer arrives."""
    stop = threading.Event()

    def work(request: Request) -> CachedAnswer | None:
        if stop.is_set():
            return None
        answer = to_cached(request.key, ask(request))
        cache.append(answer)
        return answer

    failures, interrupted = 0, False
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="policy-eval")
    try:
        futures: dict[Future[CachedAnswer | None], Request] = {
            pool.submit(work, r): r for r in requests
        }
        for future in as_completed(futures):
            answer = future.result()
            if answer is None:
                continue
            on_answer(futures[future], answer)
            if answer.error is not None:
                failures += 1
                if failures > max_failures:
                    raise TooManyFailures(
                        f"stopped: {failures} requests failed after their retries, more than "
                        f"--max-failures {max_failures} (last: {answer.error})"
                    )
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        stop.set()  # requests not yet started are skipped; those in flight finish and are kept
        pool.shutdown(wait=not interrupted, cancel_futures=True)  # Ctrl-C: return at once
