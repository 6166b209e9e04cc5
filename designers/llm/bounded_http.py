"""HTTP for one model request with a wall-clock deadline and a size limit on what comes back.

httpx's (and so LiteLLM's) `timeout` bounds each read, not the whole answer: a server that
sends one byte a second, or a body that never ends, keeps a request alive forever, and a
gzip body may inflate to gigabytes. `BoundedTransport` reads the body itself: it checks the
deadline at every chunk, inflates gzip and deflate with a ceiling, and stops once the body
passes `max_bytes`. What it stopped for is kept in `breach`, because the clients above it
(the OpenAI SDK, LiteLLM) turn every read error into a generic "Connection error.".
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterator
from typing import Any

import httpx

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Largest answer body read (after inflating): far above any chat answer, far below harm."""
_DECODERS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def within(seconds: float) -> str:
    """The reason a request that ran out of its own time failed with."""
    return f"no complete answer within {_seconds(seconds)} s"


def within_deadline(seconds: float) -> str:
    """The reason a request cut short by the deadline of all attempts failed with."""
    return f"no complete answer within the {_seconds(seconds)} s deadline"


def _seconds(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


class Breach(httpx.ReadError):
    """The body broke a bound; the message says which."""


class BoundedTransport(httpx.HTTPTransport):
    """An HTTP transport whose responses end by `deadline` (monotonic) and stay under a size;
    `late` is the reason given for a body still arriving at the deadline."""

    def __init__(self, deadline: float, late: str, max_bytes: int = MAX_RESPONSE_BYTES):
        super().__init__()
        self.deadline, self.late, self.max_bytes = deadline, late, max_bytes
        self.breach: str | None = None
        """Why the body was cut short (`late`, or too large); None while it was not."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        encoding = response.headers.get("content-encoding", "").strip().lower()
        headers = [(k, v) for k, v in response.headers.raw if k.lower() != b"content-encoding"]
        stream = _Bounded(self, response.stream, _DECODERS.get(encoding))  # type: ignore[arg-type]
        return httpx.Response(response.status_code, headers=headers, stream=stream,
                              extensions=response.extensions)  # fmt: skip

    def fail(self, reason: str) -> Breach:
        self.breach = reason
        return Breach(reason)


class _Bounded(httpx.SyncByteStream):
    def __init__(self, owner: BoundedTransport, raw: httpx.SyncByteStream, wbits: int | None):
        self.owner, self.raw = owner, raw
        self.inflate = zlib.decompressobj(wbits) if wbits is not None else None

    def __iter__(self) -> Iterator[bytes]:
        size, owner = 0, self.owner
        for chunk in self.raw:
            if time.monotonic() > owner.deadline:
                raise owner.fail(owner.late)
            data = chunk
            if self.inflate is not None:
                data = self.inflate.decompress(chunk, owner.max_bytes - size + 1)
            size += len(data)
            if size > owner.max_bytes:
                raise owner.fail(f"response body larger than {owner.max_bytes} bytes")
            yield data

    def close(self) -> None:
        self.raw.close()


def bounded_client(
    provider: str, api_base: str, api_key: str, transport: BoundedTransport, timeout: float
) -> Any:
    """A client LiteLLM accepts (``client=``) that sends through `transport`; None when the
    provider is reached some other way (the caller's wall-clock bound still holds)."""
    http = httpx.Client(transport=transport, timeout=timeout, follow_redirects=True)
    if provider == "openai":
        import openai

        return openai.OpenAI(api_key=api_key, base_url=api_base, http_client=http, max_retries=0)
    if provider == "hosted_vllm":
        from litellm.llms.custom_httpx.http_handler import HTTPHandler

        return HTTPHandler(client=http)
    http.close()
    return None
