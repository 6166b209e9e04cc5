"""An --out that cannot hold run directories is refused before any work, in one line.

A read-only filesystem is checked on a real one in `test_storage_errors` (it needs a mount
namespace); the places here exist on every Linux machine.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app

runner = CliRunner()
TINY = ["--designers", "random", "--set", "rounds=1", "--set", "samples_per_round=40",
        "--set", "benchmarks=[validation]", "--set", "best_of=1", "--quiet"]  # fmt: skip
VIRTUAL = "is on a virtual filesystem that stores no files (like /proc or /sys); choose another " \
    "--out"  # fmt: skip


def refused(out: Path) -> str:
    """The one error line of a `compare` into `out`, which must refuse with exit 2."""
    result = runner.invoke(app, ["compare", "--out", str(out), *TINY], env={"COLUMNS": "2000"})
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output, result.output
    [line] = result.output.splitlines()
    return line


def test_an_existing_file(tmp_path: Path) -> None:
    (tmp_path / "runs").write_text("notes")
    assert refused(tmp_path / "runs") == (
        f"error: --out {tmp_path / 'runs'}: {tmp_path / 'runs'} is not a directory; choose "
        "another --out"
    )
    assert (tmp_path / "runs").read_text() == "notes"


def test_dev_null() -> None:
    assert refused(Path("/dev/null")) == (
        "error: --out /dev/null: /dev/null is not a directory; choose another --out"
    )


@pytest.mark.parametrize(("out", "mount"), [("/proc", "/proc"), ("/proc/runs", "/proc"),
                                            ("/sys/kernel/runs", "/sys/kernel")])  # fmt: skip
def test_a_virtual_filesystem(out: str, mount: str) -> None:
    if not Path(mount).is_dir() or os.statvfs(mount).f_blocks != 0:
        pytest.skip(f"{mount} is not a virtual filesystem here")
    assert refused(Path(out)) == f"error: --out {out}: {mount} {VIRTUAL}"


def test_a_file_where_a_run_directory_goes(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    out.mkdir()
    (out / "quick").write_text("")
    run = out / "quick" / "random" / "seed-0"
    assert refused(out) == (
        f"error: --out {out}: {out / 'quick'} is a file where the run directory {run} must go; "
        "move it away"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permission bits")
def test_a_directory_without_write_permission(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        assert refused(locked / "runs") == (
            f"error: --out {locked / 'runs'}: {locked} is not writable; choose another --out"
        )
    finally:
        locked.chmod(0o700)
