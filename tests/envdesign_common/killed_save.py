"""A checkpoint save killed with SIGKILL in the middle, in a process of its own.

`python -m tests.envdesign_common.killed_save PATH MEGABYTES` streams a torch checkpoint of that
size into PATH through `atomic_writer`, as the CPU backend saves; `kill_mid_save` starts it and
kills it once its temporary file holds data, before the rename.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from envdesign_common import is_temporary

ROOT = Path(__file__).resolve().parents[2]
ATTEMPTS = 3
"""A save may finish between the last look and the kill; then it is tried again, larger."""


def temporaries(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if is_temporary(p))


def kill_mid_save(target: Path, megabytes: int = 96) -> list[Path]:
    """Kill a save into `target` while its temporary file is being written; the temporary
    files it left. Fails the test if no attempt was caught mid-write."""
    target.parent.mkdir(parents=True, exist_ok=True)
    before = set(temporaries(target.parent))
    for attempt in range(ATTEMPTS):
        size = megabytes * 2**attempt
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.envdesign_common.killed_save", str(target), str(size)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            caught = _kill_when_writing(child, target.parent, before)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait(timeout=60)
        if caught:
            assert child.returncode == -signal.SIGKILL
            return [p for p in temporaries(target.parent) if p not in before]
    raise AssertionError(f"no save of {target} was caught mid-write in {ATTEMPTS} attempts")


def _kill_when_writing(child: subprocess.Popen[bytes], directory: Path, before: set[Path]) -> bool:
    """SIGKILL `child` as soon as a new temporary file in `directory` holds data; whether it
    was still writing then (its temporary file still there after the kill)."""
    deadline = time.monotonic() + 300  # the import of torch, on a loaded machine
    while child.poll() is None and time.monotonic() < deadline:
        fresh = [p for p in temporaries(directory) if p not in before]
        if fresh and _size(fresh[0]) > 0:
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=60)
            return fresh[0].exists()
        time.sleep(0.001)
    return False


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _save(target: Path, megabytes: int) -> None:
    import torch

    from envdesign_common import atomic_writer

    state = {"weights": torch.arange(megabytes * 2**18, dtype=torch.float32)}
    with atomic_writer(target) as f:
        torch.save(state, f)


if __name__ == "__main__":
    _save(Path(sys.argv[1]), int(sys.argv[2]))
