"""Asking a model for many answers at once: a thread pool over the LLM client's `complete`.

The client already retries each request (rate limits with Retry-After, 5xx, timeouts) until its
deadline and never raises; here requests run `concurrency` at a time, each answer is written to
the cache by the thread that received it (so nothing paid for is lost when the caller stops),
and a request that still failed is counted: past `max_failures` the remaining requests are
cancelled and `TooManyFailures` is raised. On that stop, requests in flight still finish (each
within its deadline) and are cached. On Ctrl-C or SIGTERM nobody waits for them: the workers
are daemon threads, so the process exits at once even while a server is still sending.
"""

from __future__ import annotations

import json
import queue
import threading
from collections import deque
from collections.abc import Callable, Sequence
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
        failure=(result.failure or "request failed") if result.error is not None else None,
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
    pending = deque(requests)
    lock = threading.Lock()
    arrived: queue.Queue[tuple[Request, CachedAnswer]] = queue.Queue()

    def work() -> None:
        while not stop.is_set():
            with lock:
                if not pending:
                    return
                request = pending.popleft()
            answer = to_cached(request.key, ask(request))
            cache.append(answer)
            arrived.put((request, answer))

    workers = [threading.Thread(target=work, name="policy-eval", daemon=True)
               for _ in range(min(concurrency, len(requests)))]  # fmt: skip
    for worker in workers:
        worker.start()
    failures, received, interrupted = 0, 0, False
    try:
        while received < len(requests):
            try:
                request, answer = arrived.get(timeout=0.2)  # a timeout lets signals in
            except queue.Empty:
                if any(w.is_alive() for w in workers) or not arrived.empty():
                    continue
                raise RuntimeError("a request worker ended without answering") from None
            received += 1
            on_answer(request, answer)
            if answer.error is not None:
                failures += 1
                if failures > max_failures:
                    raise TooManyFailures(
                        f"stopped: {failures} requests failed after their retries, more than "
                        f"--max-failures {max_failures} (last: {answer.failure or answer.error})"
                    )
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        stop.set()  # requests not yet started are skipped
        if not interrupted:  # those in flight finish (each within its deadline) and are kept
            for worker in workers:
                worker.join()
