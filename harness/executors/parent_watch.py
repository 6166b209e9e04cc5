"""Worker processes that end with the command that started them, however it ends.

The command stops its workers itself on SIGINT and SIGTERM (`LocalExecutor`), but SIGKILL, the
OOM killer or a crash give it no chance to, and a worker that outlived it would go on writing its
run while a `--resume` starts writing the same directory. So every process the local executor
starts (one worker per run) runs `die_with_parent` first:

- On Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker as its parent
  exits, whatever the worker is doing at that moment. SIGKILL because a worker has nothing to
  save -- every file is written atomically and a round counts only once its record is on disk --
  and because no handler a library installed can delay it. The kernel ties the signal to the
  *thread* that started the worker: the executor starts every worker from the thread that
  then waits for them all, so that thread outlives them. A worker's own children (verl's
  trainer and server) carry a death signal of their own, tied to the worker.
- Everywhere, a daemon thread that compares ``os.getppid()`` with the parent's pid every
  `POLL_S` seconds and kills the worker once they differ (the orphan was adopted). It covers
  systems without prctl, and a parent that died before the worker could call prctl.

Not a pipe whose end-of-file the worker watches: the worker's one pipe is the one it reports
through, and it trains for minutes at a time without reading anything. In every case the worker
holds its run's writer lock (`harness.run_lock`) until it is gone, so no new command can start
writing the run while it still might.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

__all__ = ["POLL_S", "die_with_parent", "watch_parent"]

POLL_S = 0.5
"""How often the portable watch looks at the parent's pid."""
PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """End this process as soon as process `parent_pid`, which started it, has ended."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    watch_parent(parent_pid)


def watch_parent(parent_pid: int) -> None:
    """The portable half of `die_with_parent`: a thread that ends this process once its parent
    is no longer `parent_pid` (at once if it already is not)."""
    if os.getppid() != parent_pid:  # it died before anything here was set up
        _die()
    threading.Thread(target=_watch, args=(parent_pid,), name="parent-watch", daemon=True).start()


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(POLL_S)
    _die()


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)
