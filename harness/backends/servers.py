"""A model served over HTTP on 127.0.0.1 for the `self` and `base` designers, whoever serves it.

Both serving backends start a server process for one design step and stop it after
(`ServingBackend.release`, called by the loop's `serving` block): verl with ``vllm serve``,
trl with ``transformers serve`` (or ``vllm serve`` where vLLM is installed). Only the command
and what "ready" means differ, so `ModelServer` takes both: ready is ``GET /health`` answering
200 and, for servers that list their models (vLLM), ``GET /v1/models`` naming the served model.
A server that exits, or is not ready in time, is stopped and reported in one `ServerFailed`
line whose full text (with its log's tail) the run's log keeps.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from designers import Endpoint, ServedModel
from harness.backends import processes as process
from harness.backends.base import ServerUnavailable
from harness.backends.ledger import LoadLedger
from harness.backends.processes import Launch, LaunchFailed

__all__ = ["HOST", "DesignServers", "ModelServer", "ServerFailed", "free_port"]

HOST = "127.0.0.1"


class ServerFailed(LaunchFailed, ServerUnavailable):
    """A model server did not start or did not get ready; the first line says which and why
    (the design step that needed it is recorded as failed with that line)."""


def free_port() -> int:
    """A port free on 127.0.0.1 right now (the server binds it a moment later)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def port_taken(port: int) -> bool:
    """Whether something on 127.0.0.1 already accepts connections on `port`."""
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((HOST, port)) == 0


def _get(url: str, timeout_s: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as err:
        return int(err.code), b""
    except (urllib.error.URLError, OSError):
        return 0, b""


class ModelServer:
    """One server process (`launch`) and the endpoint it offers under `name`."""

    def __init__(
        self,
        launch: Launch,
        port: int,
        name: str,
        *,
        what: str,
        lists_models: bool = True,
        grace_s: float = 30.0,
    ) -> None:
        """`what` names the server in messages (``vllm serve of <model>``); `lists_models`:
        whether ``/v1/models`` names what it serves (``transformers serve`` pinned to a local
        directory answers it with an error, so only ``/health`` tells it is up)."""
        self.launch, self.port, self.name, self.what = launch, port, name, what
        self.lists_models, self.grace_s = lists_models, grace_s
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
        if port_taken(self.port):
            raise ServerFailed(f"{self.what}: port {self.port} on {HOST} is already in use")
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
                failed = process.failure(self.what, code, self.log)
                raise ServerFailed(str(failed)) from None
            if self.ready():
                return
            if time.monotonic() > deadline:
                raise ServerFailed(
                    f"{self.what} was not ready after {timeout_s:g}s; the end of "
                    f"{self.log}:\n{process.tail(self.log)}"
                )
            time.sleep(poll_s)

    def ready(self) -> bool:
        status, _ = _get(f"{self.root}/health")
        if status != 200:
            return False
        if not self.lists_models:
            return True
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


class DesignServers:
    """The servers a backend runs for one design step, one per model, stopped together; each
    start's load time goes into the backend's ledger (the round's overhead budget)."""

    def __init__(self, ledger: LoadLedger) -> None:
        self.ledger = ledger
        self._running: dict[ServedModel, ModelServer] = {}

    def __len__(self) -> int:
        return len(self._running)

    def endpoint(self, which: ServedModel) -> Endpoint | None:
        """The endpoint of the server already running for `which`, if one is."""
        server = self._running.get(which)
        return None if server is None else server.endpoint

    def start(
        self,
        which: ServedModel,
        model: str,
        server: ModelServer,
        timeout_s: float,
        poll_s: float = 1.0,
    ) -> Endpoint:
        """Start `server` for `which` (serving `model`) and wait until it is ready."""
        endpoint = server.start(timeout_s, poll_s)
        self._running[which] = server
        self.ledger.load("serving-policy" if which == "policy" else "serving-base", model,
                         server.ready_seconds or 0.0)  # fmt: skip
        return endpoint

    def stop_all(self) -> None:
        """Stop every server started (idempotent)."""
        while self._running:
            _, server = self._running.popitem()
            server.stop()
