"""A model served by ``vllm serve`` on 127.0.0.1 for the `self` and `base` designers.

The server is started for one design step and stopped after it (`VerlBackend.release`, called
by the loop's `serving` block), so its GPU memory is free before the next round trains. Ready
means ``GET /health`` answers 200 and ``GET /v1/models`` lists the served name; a server that
exits or does not get ready within the timeout is stopped and reported with its log's tail.
Designers reach it through LiteLLM's ``hosted_vllm/`` provider (`designers.Endpoint`); Qwen3's
reasoning goes to ``reasoning_content`` (``--reasoning-parser qwen3``), the answer to
``content``.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from designers import Endpoint
from harness.backends.verl import process
from harness.backends.verl.process import Launch, LaunchFailed
from harness.backends.verl.runtime import VerlCommands
from harness.backends.verl.settings import VerlSettings

HOST = "127.0.0.1"


def free_port() -> int:
    """A port free on 127.0.0.1 right now (the server binds it a moment later)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def serve_argv(
    commands: VerlCommands, settings: VerlSettings, model: str, name: str, port: int | str
) -> tuple[str, ...]:
    """``vllm serve`` with vLLM 0.11.0's flags."""
    argv = [
        commands.python, *commands.server, model,
        "--host", HOST,
        "--port", str(port),
        "--served-model-name", name,
        "--tensor-parallel-size", str(settings.tensor_parallel),
        "--gpu-memory-utilization", str(settings.serve_gpu_memory_utilization),
    ]  # fmt: skip
    if settings.reasoning_parser:
        argv += ["--reasoning-parser", settings.reasoning_parser]
    if settings.serve_max_model_len is not None:
        argv += ["--max-model-len", str(settings.serve_max_model_len)]
    return tuple(argv)


def _get(url: str, timeout_s: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as err:
        return int(err.code), b""
    except (urllib.error.URLError, OSError):
        return 0, b""


class VllmServer:
    """One ``vllm serve`` process and the endpoint it offers."""

    def __init__(self, launch: Launch, port: int, name: str, *, grace_s: float = 30.0) -> None:
        self.launch, self.port, self.name, self.grace_s = launch, port, name, grace_s
        self.process: subprocess.Popen[bytes] | None = None
        self.ready_seconds: float | None = None
        """Start to ready (the model load, for the round's overhead budget)."""

    @property
    def root(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint(base_url=f"{self.root}/v1", model=self.name)

    @property
    def log(self) -> Path:
        return self.launch.log

    def start(self, timeout_s: float, poll_s: float = 1.0) -> Endpoint:
        """Start the server and wait until it serves `name`; stop it on any failure."""
        started = time.perf_counter()
        self.process = process.start(self.launch)
        try:
            self._wait(timeout_s, poll_s)
        except BaseException:
            self.stop()
            raise
        self.ready_seconds = time.perf_counter() - started
        return self.endpoint

    def _wait(self, timeout_s: float, poll_s: float) -> None:
        assert self.process is not None
        deadline = time.monotonic() + timeout_s
        while True:
            code = self.process.poll()
            if code is not None:
                raise process.failure(f"vllm serve of {self.name}", code, self.log)
            if self.ready():
                return
            if time.monotonic() > deadline:
                raise LaunchFailed(
                    f"vllm serve of {self.name} was not ready after {timeout_s:g}s; the end "
                    f"of {self.log}:\n{process.tail(self.log)}"
                )
            time.sleep(poll_s)

    def ready(self) -> bool:
        status, _ = _get(f"{self.root}/health")
        if status != 200:
            return False
        status, body = _get(f"{self.root}/v1/models")
        if status != 200:
            return False
        try:
            served = {m.get("id") for m in json.loads(body).get("data", [])}
        except (ValueError, AttributeError):
            return False
        return self.name in served

    def stop(self) -> None:
        if self.process is not None:
            process.stop(self.process, self.grace_s)
            self.process = None
