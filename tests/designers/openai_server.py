"""A real OpenAI-compatible HTTP server for tests, with scripted answers.

The LLM designers reach it through LiteLLM exactly as they reach vLLM (``hosted_vllm/<model>``
or ``openai/<model>`` with ``api_base``), so the whole path -- HTTP, headers, JSON, timeouts,
status codes -- is exercised without a provider. Each test queues the responses it wants
(`Reply`), or sets a `responder` that answers from the request itself (for concurrent
clients, whose requests arrive in any order; `echo` sees the request's headers too, for an
endpoint that echoes what it was sent), and reads back the requests the server received
(`server.requests`).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from designers.context import Endpoint
from designers.llm.client import Target
from designers.llm.designer import LLMDesigner, LLMOptions

GOOD_CHANGES = {"7x7": {"ratio": 0.2, "hole_ratio": 0.3}, "10x10": {"wait_ratio": 0.4}}


def scripted_good_answer() -> str:
    """An answer with a short rationale and a valid fenced YAML change block."""
    return (
        "7x7 lags on conflicts while 3x3 is solved; shift budget to the frontier.\n\n"
        "```yaml\n7x7:\n  ratio: 0.2\n  hole_ratio: 0.3\n10x10:\n  wait_ratio: 0.4\n```\n"
    )


@dataclass
class Reply:
    """One scripted response: a chat answer, or an HTTP error, optionally delayed."""

    content: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    reasoning: str | None = None
    error_message: str | None = None
    """The error's message for a status other than 200 (default: ``scripted <status>``)."""
    prompt_tokens: int = 11
    completion_tokens: int = 7


@dataclass
class Received:
    """A request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ScriptedServer:
    """The server: start/stop in a background thread; `queue` answers; `requests` recorded."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Received] = []
        self.default = Reply(content=scripted_good_answer())
        self.responder: Callable[[dict[str, Any]], Reply | str | None] | None = None
        """Answers a request body before the queue is consulted; None falls through to it."""
        self.echo: Callable[[Received], Reply | str | None] | None = None
        """Answers from the whole request (headers included) before `responder` is asked."""
        self.model_ids = ["scripted-model"]
        """What ``GET /v1/models`` lists (a stand-in ``vllm serve`` lists its served name)."""
        self.port = _free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def endpoint(self, model: str = "scripted-model", api_key_env: str | None = None) -> Endpoint:
        return Endpoint(base_url=self.base_url, model=model, api_key_env=api_key_env)

    def queue(self, *replies: Reply | str) -> None:
        self.replies.extend(Reply(content=r) if isinstance(r, str) else r for r in replies)

    def reset(self) -> None:
        self.replies.clear()
        self.requests.clear()
        self.responder = None
        self.echo = None
        self.default = Reply(content=scripted_good_answer())

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/health", self._health)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def _models(self, request: web.Request) -> web.Response:
        data = [{"id": model, "object": "model"} for model in self.model_ids]
        return web.json_response({"object": "list", "data": data})

    async def _health(self, request: web.Request) -> web.Response:
        return web.Response(status=200)

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        received = Received(request.path, dict(request.headers), body)
        self.requests.append(received)
        reply = self._reply(received)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            message = reply.error_message or f"scripted {reply.status}"
            error = {"error": {"message": message, "type": "server_error"}}
            return web.json_response(error, status=reply.status, headers=reply.headers)
        return web.json_response(_completion(body, reply), headers=reply.headers)

    def _reply(self, received: Received) -> Reply:
        answer = self.echo(received) if self.echo is not None else None
        if answer is None and self.responder is not None:
            answer = self.responder(received.body)
        if answer is not None:
            return Reply(content=answer) if isinstance(answer, str) else answer
        return self.replies.popleft() if self.replies else self.default


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    return {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


FAST = {
    "timeout_s": 5.0,
    "deadline_s": 10.0,
    "max_retries": 3,
    "backoff_base_s": 0.01,
    "backoff_max_s": 0.05,
}
"""Call options that keep tests fast: millisecond backoff, short timeouts."""


def llm_designer_for(server: ScriptedServer, name: str = "gpt", **options: Any) -> LLMDesigner:
    """A designer pointed at the scripted server.

    ``name`` "self"/"base" give the endpoint-backed designers (endpoint = this server); any
    other name gives a hosted-model designer whose model is ``openai/<name>`` at this server.
    """
    from designers.llm import factories

    opts = {**FAST, **options}
    if name in ("self", "base"):
        factory = factories.self_checkpoint if name == "self" else factories.base_model
        return factory(endpoint=opts.pop("endpoint", server.endpoint()), **opts)
    api_base = opts.pop("api_base", server.base_url)
    api_key_env = opts.pop("api_key_env", None)
    target = Target(model=f"openai/{name}", api_base=api_base, api_key_env=api_key_env)
    description = f"{name} played by the scripted test server"
    return LLMDesigner(name, description, LLMOptions.build(**opts), target=target)
