"""Child processes of the GPU backends: logged to a file, watched, and stopped as a group.

Each launch is its own session (process group), so stopping it stops everything it started
(verl's Ray instance, vLLM's engine workers): SIGTERM to the group, then SIGKILL after a grace
period. On Linux the child also gets SIGTERM if the harness dies (``PR_SET_PDEATHSIG``), so a
killed run leaves no trainer or server holding the GPUs. Output (stdout and stderr) is appended
to a log in the run directory as it is written, under a header with the command.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

TAIL_LINES = 40


class LaunchFailed(RuntimeError):
    """A child process failed; the message ends with the tail of its log."""


@dataclass(frozen=True)
class Launch:
    """One command: argv, the environment it adds to this one's, and its log file."""

    argv: tuple[str, ...]
    log: Path
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None

    def shell(self, continuation: str = " ") -> str:
        """A copy-pasteable line: ``KEY=value ... argv``; `continuation` joins the words, an
        option and its value (``-m verl.trainer.main_ppo``, ``--port 8000``) stay together."""
        words = [f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items())]
        argv = list(self.argv)
        while argv:
            word = argv.pop(0)
            if word.startswith("-") and word != "--" and argv and not argv[0].startswith("-"):
                words.append(f"{shlex.quote(word)} {shlex.quote(argv.pop(0))}")
            else:
                words.append(shlex.quote(word))
        return continuation.join(words)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def start(launch: Launch) -> subprocess.Popen[bytes]:
    """Start `launch` in a new session, its output appended to its log."""
    launch.log.parent.mkdir(parents=True, exist_ok=True)
    with open(launch.log, "ab") as log:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        log.write(f"\n# {stamp} $ {launch.shell()}\n".encode())
        log.flush()
        return subprocess.Popen(
            launch.argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **launch.env},
            cwd=launch.cwd,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )


def stop(process: subprocess.Popen[bytes], grace_s: float = 30.0) -> None:
    """Stop the process and its group: SIGTERM, then SIGKILL after `grace_s` seconds."""
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # the leader is gone; make sure no straggler of its group lives on
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        return


def run(
    launch: Launch,
    *,
    tick: Callable[[], None] | None = None,
    interval_s: float = 2.0,
    grace_s: float = 30.0,
    on_abort: Callable[[], None] | None = None,
) -> int:
    """Run `launch` to its end and return its exit code, calling `tick` every `interval_s`
    seconds (and once at the end) in this thread.

    Anything raised meanwhile -- KeyboardInterrupt, an error in `tick` -- stops the process
    group, calls `on_abort` (e.g. to stop a submitted Ray job) and is raised again.
    """
    process = start(launch)
    try:
        while True:
            try:
                code = process.wait(timeout=interval_s)
            except subprocess.TimeoutExpired:
                if tick is not None:
                    tick()
                continue
            if tick is not None:
                tick()
            return code
    except BaseException:
        stop(process, grace_s)
        if on_abort is not None:
            on_abort()
        raise


def tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last `lines` lines of a log, for error messages."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])


def failure(what: str, code: int | None, log: Path) -> LaunchFailed:
    """A `LaunchFailed` for `what`, with its exit code and the tail of its log."""
    status = "was stopped" if code is None else f"exited with code {code}"
    return LaunchFailed(f"{what} {status}; the end of {log}:\n{tail(log)}")
