"""The portable parent watch alone (what runs where prctl does not exist): a process whose
parent is killed ends within a few polls."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness.executors.parent_watch import POLL_S

REPO = Path(__file__).parents[2]
CHILD = """
import os, time
from harness.executors.parent_watch import watch_parent
watch_parent(os.getppid())
print(os.getpid(), flush=True)
time.sleep(600)
"""
PARENT = f"""
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {CHILD!r}])
time.sleep(600)
"""


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def test_a_watched_process_ends_when_its_parent_is_killed() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT], env=env, stdout=subprocess.PIPE,
                              text=True, start_new_session=True)  # fmt: skip
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert running(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 60 * POLL_S  # generous: it looks every POLL_S seconds
        while running(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not running(child), "the child outlived its parent"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
