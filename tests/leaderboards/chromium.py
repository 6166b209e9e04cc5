"""Headless Chromium driven over the DevTools protocol on a pipe: no driver, no extra package.

Chromium started with `--remote-debugging-pipe` reads protocol commands from file descriptor 3
and writes replies and events to descriptor 4, each message JSON ended by a NUL byte (the
transport Playwright and Puppeteer use). With the standard library alone this opens pages
from file://, records console messages, uncaught exceptions, failed and outgoing requests,
evaluates JavaScript in the page, and takes screenshots of a fixed-size window.

Debian's `chromium` package provides the browser (`apt-get install chromium`); `CHROMIUM`
names another binary. Where none is found, `find_chromium` returns None and tests skip.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

INSTALL_HINT = (
    "headless Chromium not found: install Debian's chromium package "
    "(apt-get install -y --no-install-recommends chromium) or set CHROMIUM to a Chromium binary"
)
FLAGS = (
    "--headless",
    "--remote-debugging-pipe",
    "--no-sandbox",  # CI containers run as root
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--mute-audio",
    "--window-size=1280,900",
)


TRAMPOLINE = """\
import os, sys
r, w = int(sys.argv[1]), int(sys.argv[2])
os.dup2(r, 3); os.dup2(w, 4); os.close(r); os.close(w)
os.execv(sys.argv[3], sys.argv[3:])
"""
"""Puts the browser's pipe ends on descriptors 3 and 4, then becomes the browser."""


def find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (path := shutil.which(candidate)):
            return path
    return None


@dataclass
class PageLoad:
    """What happened while one page loaded."""

    url: str
    console: list[tuple[str, str]] = field(default_factory=list)
    """(level, text) of console calls and browser log entries."""
    exceptions: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    """(url, error) of requests that failed."""

    @property
    def errors(self) -> list[str]:
        found = [f"console {lvl}: {text}" for lvl, text in self.console if lvl in ERROR_LEVELS]
        found += [f"exception: {e}" for e in self.exceptions]
        found += [f"request failed: {url} ({err})" for url, err in self.failed]
        return found


ERROR_LEVELS = {"error", "assert"}


@dataclass(frozen=True)
class Box:
    """A rectangle in CSS pixels from the page's top left corner."""

    x: float
    y: float
    width: float
    height: float

    @property
    def bottom(self) -> float:
        return self.y + self.height


class Chromium:
    """One headless browser and one page (tab) in it."""

    def __init__(self, binary: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-profile-")
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        self._writer = os.fdopen(to_browser_w, "wb", buffering=0)
        self._reader = os.fdopen(from_browser_r, "rb", buffering=0)
        # The browser's ends, above 9 so that moving them to 3 and 4 cannot clobber them.
        theirs = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w)]
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)
        args = [binary, *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"]
        self.process = subprocess.Popen(
            [sys.executable, "-c", TRAMPOLINE, *map(str, theirs), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=theirs,
            start_new_session=True,
        )
        for fd in theirs:
            os.close(fd)
        self._next_id = 0
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._lock = threading.Lock()
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=True)

    # -- transport -------------------------------------------------------------------------

    def _read(self) -> None:
        buffer = b""
        while chunk := self._reader.read(65536):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        box = self._replies.get(message["id"])
                    if box is not None:
                        box.put(message)
                else:
                    self._events.put(message)

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: bool = False
    ) -> dict[str, Any]:
        """Send one command and wait for its reply; raises on a protocol error."""
        with self._lock:
            self._next_id += 1
            ident = self._next_id
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._replies[ident] = box
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        self._writer.write(json.dumps(message).encode() + b"\0")
        try:
            reply = box.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"no reply to {method} in {self.timeout} s{self._log()}") from None
        finally:
            with self._lock:
                self._replies.pop(ident, None)
        if "error" in reply:
            raise RuntimeError(f"{method} failed: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    def _log(self) -> str:
        tail = b"".join(self._stderr[-20:]).decode(errors="replace").strip()
        return f"; chromium said:\n{tail}" if tail else ""

    # -- pages -----------------------------------------------------------------------------

    def open(self, path: Path) -> PageLoad:
        """Navigate to `path` (file://) and wait for its load event; what happened on the way."""
        url = path.resolve().as_uri()
        while not self._events.empty():
            self._events.get_nowait()
        load = PageLoad(url)
        frame = self.send("Page.navigate", {"url": url}, session=True)
        if "errorText" in frame:
            raise RuntimeError(f"navigating to {url} failed: {frame['errorText']}")
        deadline = time.monotonic() + self.timeout
        loaded = False
        while True:
            remaining = deadline - time.monotonic()
            if loaded:
                remaining = min(remaining, 0.25)  # collect what arrives right after the load
            if remaining <= 0:
                if not loaded:
                    raise TimeoutError(f"{url} did not finish loading in {self.timeout} s")
                return load
            try:
                event = self._events.get(timeout=remaining)
            except queue.Empty:
                if loaded:
                    return load
                continue
            loaded |= self._record(event, load)

    def _record(self, event: dict[str, Any], load: PageLoad) -> bool:
        method, params = event.get("method"), event.get("params", {})
        if method == "Page.loadEventFired":
            return True
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            load.console.append((params["type"], text))
        elif method == "Log.entryAdded":
            entry = params["entry"]
            load.console.append((entry["level"], f"{entry['text']} {entry.get('url', '')}"))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            load.exceptions.append(details.get("exception", {}).get("description", details["text"]))
        elif method == "Network.requestWillBeSent":
            load.requests.append(params["request"]["url"])
        elif method == "Network.loadingFailed":
            load.failed.append((params.get("requestId", "?"), params["errorText"]))
        return False

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page."""
        reply = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression!r} threw: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def set_viewport(self, width: int, height: int) -> None:
        """Lay pages out in a `width` x `height` window (CSS pixels, scale 1): the fold is at
        `height`, and a screenshot is exactly that many pixels."""
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.send("Emulation.setDeviceMetricsOverride", metrics, session=True)

    def box(self, selector: str) -> Box | None:
        """The page-relative bounding box of the first element matching `selector`, if any."""
        found = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; const r = e.getBoundingClientRect();"
            " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()"
        )
        return None if found is None else Box(*found)

    def screenshot(self, path: Path, clip: Box | None = None) -> Path:
        """Save the window (or, with `clip`, that part of the page) as PNG at `path`."""
        params: dict[str, Any] = {"format": "png"}
        if clip is not None:
            params["clip"] = {"x": clip.x, "y": clip.y, "width": clip.width,
                              "height": clip.height, "scale": 1}  # fmt: skip
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params, session=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.send("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)  # our own process group only
            self.process.wait(timeout=10)
        self._writer.close()
        self._profile.cleanup()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
