"""A real HTTP server on 127.0.0.1 that misbehaves the way broken OpenAI-compatible servers do.

Each behaviour lives under its own prefix, so ``server.base_url("drip")`` is an endpoint whose
chat completions send one byte a second forever, ``base_url("html")`` one that answers an HTML
page with status 200, and so on (`BEHAVIOURS`). The server runs an asyncio loop in a daemon
thread; handlers that never end are cancelled when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import threading
from collections.abc import Awaitable, Callable

from aiohttp import web

BEHAVIOURS = (
    "drip", "endless", "html", "badjson", "ratelimited", "gzipbomb", "redirect", "drop", "stall",
)  # fmt: skip
"""Every hostile behaviour, as the prefix of its endpoint."""
BOMB_BYTES = 64 * 1024 * 1024
"""What the gzip bomb inflates to: far past any answer's size limit, a few dozen KiB on the wire."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HostileServer:
    """Start with `start()`, stop with `stop()`; `hits[kind]` counts requests per behaviour."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.hits: dict[str, int] = dict.fromkeys(BEHAVIOURS, 0)
        self._bomb = gzip.compress(b"0" * BOMB_BYTES, compresslevel=9)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    def base_url(self, kind: str) -> str:
        return f"http://127.0.0.1:{self.port}/{kind}/v1"

    def start(self) -> HostileServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        if self._runner is not None:
            future = asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop)
            with contextlib.suppress(TimeoutError):
                future.result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _serve(self) -> None:
        app = web.Application()
        handlers: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]] = {
            "drip": self._drip, "endless": self._endless, "html": self._html,
            "badjson": self._badjson, "ratelimited": self._ratelimited,
            "gzipbomb": self._gzipbomb, "redirect": self._redirect, "drop": self._drop,
            "stall": self._stall,
        }  # fmt: skip
        for kind, handler in handlers.items():
            app.router.add_route("*", f"/{kind}/{{tail:.*}}", self._counted(kind, handler))
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    def _counted(
        self, kind: str, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def counted(request: web.Request) -> web.StreamResponse:
            self.hits[kind] += 1
            await request.read()
            try:
                return await handler(request)
            except ConnectionError:  # the client gave up: what these endpoints are for
                return web.Response()

        return counted

    async def _drip(self, request: web.Request) -> web.StreamResponse:
        """Status 200 and a JSON content type, then one byte a second, forever."""
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        while True:
            await response.write(b" ")
            await asyncio.sleep(1.0)

    async def _endless(self, request: web.Request) -> web.StreamResponse:
        """Status 200, then 64 KiB chunks as fast as the client reads them, forever."""
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        chunk = b" " * 65536
        while True:
            await response.write(chunk)

    async def _stall(self, request: web.Request) -> web.StreamResponse:
        """Status 200 and the start of a body, then nothing, forever."""
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        await response.write(b'{"id": "x", "choices": [')
        await asyncio.sleep(3600)
        return response

    async def _html(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text="<html><body>It works!</body></html>", content_type="text/html")

    async def _badjson(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text='{"choices": [{"message": ', content_type="application/json")

    async def _ratelimited(self, request: web.Request) -> web.StreamResponse:
        body = '{"error": {"message": "slow down", "type": "rate_limit"}}'
        return web.Response(status=429, text=body, content_type="application/json",
                            headers={"Retry-After": "0"})  # fmt: skip

    async def _gzipbomb(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=self._bomb, headers={"Content-Type": "application/json",
                                                      "Content-Encoding": "gzip"})  # fmt: skip

    async def _redirect(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(location=str(request.rel_url))

    async def _drop(self, request: web.Request) -> web.StreamResponse:
        """Close the connection without answering."""
        if request.transport is not None:
            request.transport.abort()
        await asyncio.sleep(0.1)
        return web.Response()
