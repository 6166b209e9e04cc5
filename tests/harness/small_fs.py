"""A real small or read-only filesystem for the disk tests, without privileges where the
kernel allows it: a user and mount namespace (``unshare --user --map-root-user --mount``) in
which a tmpfs of a few MB is mounted over a test directory, and the test's shell script runs.
The mount lives as long as the script; nothing outside the namespace sees it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNSHARE = ("unshare", "--user", "--map-root-user", "--mount")
HARNESS = f"{sys.executable} -m harness_cli"
"""The `harness` command as the scripts call it (this checkout, this interpreter)."""


@functools.cache
def namespaces() -> str | None:
    """None when a tmpfs can be mounted in a namespace here, else why not."""
    if shutil.which("unshare") is None:
        return "unshare is not installed"
    with tempfile.TemporaryDirectory() as where:
        probe = in_namespace(f"mount -t tmpfs -o size=1m tmpfs {where}", timeout=60)
    if probe.returncode != 0:
        return f"no user and mount namespace here: {probe.stderr.strip()[:200]}"
    return None


def in_namespace(script: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the bash `script` in a fresh user and mount namespace, from the checkout's root."""
    return subprocess.run(
        [*UNSHARE, "bash", "-euc", script],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "2000"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
