"""A tiny real comparison, run once per session, whose run directories the board tests read."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app

TINY_COMPARE = ["compare", "--designers", "random,uniform", "--seeds", "2", "--set", "rounds=1",
                "--set", "samples_per_round=60", "--set", "benchmarks=[3agents]",
                "--set", "best_of=2", "--quiet"]  # fmt: skip


@pytest.fixture(scope="session")
def compare_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Runs of random and uniform, seeds 0 and 1, one round, benchmark 3agents (about 20 s)."""
    root = tmp_path_factory.mktemp("compare")
    result = CliRunner().invoke(app, [*TINY_COMPARE, "--out", str(root)])
    assert result.exit_code == 0, result.output
    return root
