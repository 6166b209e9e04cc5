"""The boards-at-scale benchmark runs end to end on a small root (its budgets are not checked
here: a test machine's speed is no one's budget)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_benchmark_times_every_board_command_over_a_root_it_builds(tmp_path: Path) -> None:
    root = tmp_path / "root"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_boards_at_scale.py"), "--runs", "12",
         "--keep", str(root)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: a budget missed, not a crash
    assert "root: 12 runs under" in done.stdout, done.stdout
    for command in ("show (terminal):", "show --format markdown:", "show --format csv:",
                    "show --format json:", "show --format html:", "publish:", "bundle:",
                    "runs list:", "bundle (12 runs):", "verify (12 runs):"):  # fmt: skip
        line = next((x for x in done.stdout.splitlines() if x.startswith(command)), "")
        assert "(exit 0)" in line, f"{command} did not run cleanly:\n{done.stdout}"
    assert "board commands over 12 runs" in done.stdout
    assert len(list(root.glob("scale/*/seed-*/result.json"))) == 12
