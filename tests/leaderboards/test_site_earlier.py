"""Publishing over an earlier site, after a killed publish, and inside a runs root.

A user's own files in an earlier site are kept (and the command says so), the files of it they
changed are named; a temporary directory a killed publish left is removed by the next publish
once its process is gone, never while it lives; and a site published inside a runs root is
skipped by later boards instead of reading as a copy of every run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app
from leaderboards import LeaderboardError, load_runs, publish_site
from leaderboards.site import MANIFEST
from leaderboards.site.earlier import clear_leftovers

runner = CliRunner()
ENV = {"COLUMNS": "400"}


def _publish(runs: Path, out: Path) -> str:
    """`harness leaderboard publish` through the CLI; its whole output (stdout and stderr)."""
    args = ["leaderboard", "publish", str(runs), "--out", str(out), "--resamples", "100"]
    result = runner.invoke(app, args, env=ENV)
    assert result.exit_code == 0, result.output
    return result.output


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", ""])
    process.wait()
    return process.pid


@pytest.fixture
def live_pid() -> Iterator[int]:
    """The pid of a process that is alive for the whole test."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield process.pid
    process.kill()
    process.wait()


def test_publish_keeps_the_files_a_user_added_and_names_the_changed_ones(
    compare_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert "kept" not in _publish(compare_root, out)
    index = (out / "index.html").read_bytes()
    (out / "notes.md").write_text("my notes")
    (out / "extra").mkdir()
    (out / "extra" / "logo.txt").write_text("logo")
    (out / "index.html").write_text("edited by hand")
    said = _publish(compare_root, out)
    assert (
        "kept 2 files you added to the earlier site (its site.json does not list them): "
        "extra/logo.txt, notes.md" in said
    ), said
    assert "did not keep 1 file you changed in the earlier site" in said and "index.html" in said
    assert (out / "notes.md").read_text() == "my notes"
    assert (out / "extra" / "logo.txt").read_text() == "logo"
    assert (out / "index.html").read_bytes() == index
    listed = json.loads((out / MANIFEST).read_text())["files"]
    assert "notes.md" not in listed and "extra/logo.txt" not in listed
    again = publish_site(load_runs([compare_root]), out, resamples=100)  # still the user's
    assert again.carried.kept == ("extra/logo.txt", "notes.md") and not again.carried.replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_dead_publishs_temporary_directories_are_removed_a_live_ones_kept(
    compare_root: Path, tmp_path: Path, live_pid: int
) -> None:
    out = tmp_path / "site"
    dead = _dead_pid()
    leftovers = {
        f".site.tmp-{dead}": False,
        f".site.old-{dead}": False,  # the swap finished: the old site is garbage
        f".site.tmp-{live_pid}": True,
        f".other.tmp-{dead}": True,  # another site's: not ours to judge
    }
    _publish(compare_root, out)
    for name in leftovers:
        (tmp_path / name).mkdir()
        (tmp_path / name / "half.html").write_text("half")
    said = _publish(compare_root, out)
    for name, kept in leftovers.items():
        assert (tmp_path / name).exists() == kept, name
    assert f"removed .site.tmp-{dead}, left by a killed publish (pid {dead})" in said, said
    assert f".site.tmp-{live_pid}" not in said


def test_a_publish_killed_between_its_renames_gets_the_earlier_site_back(tmp_path: Path) -> None:
    out = tmp_path / "site"
    dead = _dead_pid()
    old = tmp_path / f".site.old-{dead}"
    old.mkdir()
    manifest = {"generator": "envdesign-bench leaderboard site", "files": {}}
    (old / MANIFEST).write_text(json.dumps(manifest))
    (old / "notes.md").write_text("mine")
    (lines,) = [clear_leftovers(out)]
    assert lines == [
        f"put the earlier site back from .site.old-{dead} (a publish, pid {dead}, was killed "
        "while swapping it in)"
    ]
    assert (out / "notes.md").read_text() == "mine" and not old.exists()


def test_kill_9_during_publish_leaves_a_directory_the_next_publish_removes(
    compare_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    command = [sys.executable, "-m", "harness_cli", "leaderboard", "publish", str(compare_root),
               "--out", str(out), "--resamples", "100"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    staging = tmp_path / f".site.tmp-{process.pid}"
    deadline = time.monotonic() + 300  # the board's bootstrap first; generous on a busy machine
    while not staging.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert staging.is_dir() and not out.exists(), "the kill came before or after the build"
    said = _publish(compare_root, out)
    assert f"removed .site.tmp-{process.pid}, left by a killed publish" in said, said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_site_inside_a_runs_root_does_not_stop_later_boards(
    compare_root: Path, tmp_path: Path
) -> None:
    root = tmp_path / "runs"
    shutil.copytree(compare_root, root)
    _publish(root, root / "site")
    assert (root / "site" / "files" / "random-seed-0" / "result.json").is_file()
    loaded = load_runs([root], strict=True)
    assert len(loaded) == 4 and not loaded.skipped
    assert all("site" not in run.path.relative_to(root).parts for run in loaded)
    shown = runner.invoke(app, ["leaderboard", "show", str(root), "--resamples", "100",
                                "--strict"], env=ENV)  # fmt: skip
    assert shown.exit_code == 0 and "skipped" not in shown.output, shown.output
    _publish(root, root / "site")  # and publishing there again reads the same four runs
    with pytest.raises(LeaderboardError, match="is a published site"):
        load_runs([root / "site"])
