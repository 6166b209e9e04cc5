"""The `harness` command in a child process, with its peak memory and time measured there.

Hostile inputs (YAML bombs, huge files, endless devices) are run out of the test process: a
broken reader would grow without bound, so the child gets a hard data limit (it then dies with
a MemoryError, which the test reports) and a wall-clock timeout. The child measures itself
around the command only -- peak resident memory growth and seconds after the imports -- so
the bounds do not depend on how heavy the imports are.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA_LIMIT = 1 << 30
"""Hard cap on the child's data segment: far above what a refusal needs, far below a bomb."""
TIMEOUT_S = 120

_CHILD = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_DATA, ({limit}, {limit}))
from harness_cli import app
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
code = 1  # an exception other than SystemExit: a crash
try:
    app(sys.argv[1:], prog_name="harness")
except SystemExit as stop:
    code = stop.code if isinstance(stop.code, int) else 1
finally:
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    sys.stderr.write("\\nMEASURED " + json.dumps(
        {{"code": code, "seconds": time.monotonic() - started, "grown_kb": grown}}) + "\\n")
"""


@dataclass(frozen=True)
class Measured:
    """What the command printed (stdout and stderr, the measurement line removed), its exit
    code, its seconds and its peak memory growth in MB."""

    code: int
    output: str
    seconds: float
    grown_mb: float

    def lines(self) -> list[str]:
        return [line for line in self.output.splitlines() if line.strip()]


def harness(*args: str, stdin: Path | None = None, cwd: Path = REPO) -> Measured:
    """`harness *args` in a child process, stdin from `stdin` (a file or device) if given."""
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "400", "NO_COLOR": "1"}
    with open(stdin or os.devnull, "rb") as source:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD.format(limit=DATA_LIMIT), *args],
            stdin=source,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=TIMEOUT_S,
            env=env,
            cwd=cwd,
        )
    output = done.stdout + done.stderr
    head, marker, tail = output.rpartition("\nMEASURED ")
    assert marker, f"the child died unmeasured (rc {done.returncode}): {output[-2000:]}"
    measured = json.loads(tail.splitlines()[0])
    return Measured(
        code=measured["code"],
        output=head,
        seconds=measured["seconds"],
        grown_mb=measured["grown_kb"] / 1024,
    )
