"""What commands print does not depend on the terminal: a POSIX locale (ASCII output) gets the
board with ASCII marks rather than a `UnicodeEncodeError`, and the path a comparison says it
wrote under is the one it wrote, whatever the experiment's name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).parents[2]
TINY = ["--set", "rounds=1", "--set", "samples_per_round=40", "--set", "epochs_per_round=1",
        "--set", "benchmarks=[validation]", "--set", "best_of=1", "--quiet"]  # fmt: skip


def harness(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    plain = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIO"))}
    return subprocess.run([sys.executable, "-m", "harness_cli", *args], capture_output=True,
                          text=True, errors="replace", env={**plain, **env}, cwd=REPO,
                          timeout=600)  # fmt: skip


def test_the_path_printed_is_the_path_written_and_a_posix_locale_shows_the_board(
    tmp_path: Path,
) -> None:
    out = tmp_path / "runs"
    ran = harness("compare", "--designers", "random,uniform", "--seeds", "2", "--out", str(out),
                  "--set", "name=ëxpérience", *TINY, LC_ALL="C.UTF-8")  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (said,) = [x for x in ran.stdout.splitlines() if x.startswith("runs written under ")]
    written = Path(said.removeprefix("runs written under ").rstrip("/"))
    assert written.is_dir() and (written / "random" / "seed-1" / "result.json").is_file(), said
    assert [p.parent for p in out.glob("*/random")] == [written]

    posix = {"LC_ALL": "POSIX", "PYTHONUTF8": "0"}
    shown = harness("leaderboard", "show", str(out), "--resamples", "200", **posix)
    text = shown.stdout + shown.stderr
    assert shown.returncode == 0 and "Traceback" not in text, text
    assert "random" in shown.stdout and "uniform" in shown.stdout
    assert shown.stdout.isascii()
    listed = harness("runs", "list", str(out), **posix)
    assert listed.returncode == 0 and "Traceback" not in listed.stdout + listed.stderr
