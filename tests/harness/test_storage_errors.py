"""A run whose disk refuses a write (full, read-only, a file in the way) stops in one line that
names the file; once the cause is gone, `--resume` completes the run.

The full and read-only filesystems are real: a tmpfs mounted in a user and mount namespace
(`tests.harness.small_fs`), filled or remounted read-only while the run is under way. Where
the kernel allows no such namespace those tests are skipped; the translation itself is also
checked with the real ENOSPC that writing to /dev/full gives.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
import torch

from envdesign_common import atomic_write_bytes
from harness.storage_errors import StorageError, storage_error
from tests.harness.small_fs import HARNESS, in_namespace, namespaces

TINY = ("--designers random --set rounds=1 --set samples_per_round=40 "
        "--set benchmarks=[validation] --set best_of=1 --quiet")  # fmt: skip
MB = 1_000_000
needs_namespaces = pytest.mark.skipif(namespaces() is not None, reason=str(namespaces()))


def disk_full_error() -> OSError:
    """The OSError a buffered write to a full disk raises: errno 28, no file named."""
    with pytest.raises(OSError) as caught, open("/dev/full", "wb") as f:
        f.write(b"x" * 10_000)
        f.flush()
    assert caught.value.errno == errno.ENOSPC and caught.value.filename is None
    return caught.value


def test_a_full_disk_names_the_run_its_free_space_and_what_a_run_needs(tmp_path: Path) -> None:
    line = str(storage_error(disk_full_error(), tmp_path, 50 * MB))
    assert line.startswith(f"cannot write {tmp_path}: the disk is full (")
    assert f" free at {tmp_path}; a run needs about 50.0 MB); free space there, then " in line
    assert line.endswith("continue with --resume (finished rounds are kept)")
    unknown = str(storage_error(disk_full_error(), tmp_path, None))
    assert "`harness compare --dry-run` estimates what a run needs" in unknown


def test_a_full_disk_behind_another_error_is_found(tmp_path: Path) -> None:
    try:
        raise RuntimeError("while saving") from disk_full_error()
    except RuntimeError as err:
        assert isinstance(storage_error(err, tmp_path, None), StorageError)
    assert storage_error(ValueError("not a disk"), tmp_path, None) is None
    assert storage_error(FileNotFoundError(errno.ENOENT, "gone", "x"), tmp_path, None) is None


def test_torchs_unexpected_pos_counts_as_a_full_disk_only_when_it_is(tmp_path: Path) -> None:
    """torch.save to a path that stops taking bytes says only `unexpected pos`; the free space
    at the run decides whether that was a full disk."""
    with pytest.raises(RuntimeError, match="unexpected pos") as caught:
        torch.save({"w": torch.zeros(100_000)}, "/dev/full")
    assert storage_error(caught.value, tmp_path, need=10**18) is not None  # more than is free
    assert storage_error(caught.value, tmp_path, need=1) is None  # room enough: not the disk


def test_a_file_where_a_directory_belongs_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "runs"
    blocker.write_text("")
    with pytest.raises(NotADirectoryError) as caught:
        atomic_write_bytes(blocker / "quick" / "run.json", b"{}")
    assert str(storage_error(caught.value, tmp_path, None)) == (
        f"cannot write {blocker / 'quick' / 'run.json'}: {blocker} is a file, not a directory; "
        "move it away and then continue with --resume (finished rounds are kept), or choose "
        "another --out"
    )


class DiskRun:
    """A comparison on a 60 MB tmpfs at `disk`, its outputs in `logs` (outside the tmpfs)."""

    def __init__(self, tmp_path: Path) -> None:
        self.disk, self.logs = tmp_path / "disk", tmp_path / "logs"
        self.disk.mkdir()
        self.logs.mkdir()
        self.run_dir = self.disk / "runs" / "quick" / "random" / "seed-0"
        self.compare = f"{HARNESS} compare {TINY} --out {self.disk / 'runs'}"

    def script(self, once_started: str) -> str:
        """Bash: mount, start the comparison, wait (up to 5 minutes) for its run.json, run
        `once_started`, wait for the comparison's end; its exit status in first.rc."""
        marker = self.run_dir / "run.json"
        return f"""
            mount -t tmpfs -o size=60m tmpfs {self.disk}
            {self.compare} >{self.logs}/first.out 2>{self.logs}/first.err & pid=$!
            for i in $(seq 15000); do [ -e {marker} ] && break; sleep 0.02; done; [ -e {marker} ]
            {once_started}
            set +e; wait $pid; echo $? >{self.logs}/first.rc; set -e
        """

    def status(self, attempt: str) -> str:
        return (self.logs / f"{attempt}.rc").read_text().strip()

    def errors(self, attempt: str) -> list[str]:
        """The error lines of an attempt, after checking it printed no traceback."""
        text = (self.logs / f"{attempt}.err").read_text()
        assert "Traceback" not in text, text
        return [line for line in text.splitlines() if line.startswith("error:")]

    def refused_write(self) -> str:
        """The first attempt's one line about a refused write."""
        assert self.status("first") == "2", (self.logs / "first.err").read_text()
        [line] = [x for x in self.errors("first") if "cannot write" in x]
        # the file when the error names one; the run when it does not (torch's `unexpected pos`)
        head = f"error: random seed 0: StorageError: cannot write {self.run_dir}"
        assert line.startswith((f"{head}/", f"{head}: ")), line
        return line


@pytest.mark.e2e
@needs_namespaces
def test_a_disk_that_fills_during_a_run_stops_it_in_one_line_and_resume_completes(
    tmp_path: Path,
) -> None:
    at = DiskRun(tmp_path)
    disk, logs, run_dir = at.disk, at.logs, at.run_dir
    fill = f"""
        free=$(df --output=avail -B1 {disk} | tail -1)
        fallocate -l $((free - 1000000)) {disk}/filler
    """
    script = (
        at.script(fill)
        + f"""
        find {run_dir} >{logs}/after-failure.txt
        cp {run_dir}/failure.json {logs}/failure.json
        rm {disk}/filler
        set +e; {at.compare} --resume >{logs}/resumed.out 2>{logs}/resumed.err
        echo $? >{logs}/resumed.rc; set -e
        find {run_dir} >{logs}/after-resume.txt
    """
    )
    done = in_namespace(script)
    assert done.returncode == 0, done.stderr
    line = at.refused_write()
    assert line.startswith(
        (
            f"error: random seed 0: StorageError: cannot write {run_dir}/round-000/",
            f"error: random seed 0: StorageError: cannot write {run_dir}: ",
        )
    ), line
    assert "the disk is full (" in line and "a run needs about 50.0 MB); free space there" in line
    failure = json.loads((logs / "failure.json").read_text())
    assert failure["error"] == "StorageError" and failure["message"] in line
    left = (logs / "after-failure.txt").read_text().split()
    assert not any(Path(p).name.startswith(".") for p in left), left  # no temporary file kept
    assert f"{run_dir}/round-000/round.json" not in left  # the round is not passed off
    assert at.status("resumed") == "0", (logs / "resumed.err").read_text()
    after = (logs / "after-resume.txt").read_text().split()
    assert f"{run_dir}/result.json" in after and f"{run_dir}/failure.json" not in after


@pytest.mark.e2e
@needs_namespaces
def test_a_filesystem_that_turns_read_only_stops_the_run_in_one_line(tmp_path: Path) -> None:
    at = DiskRun(tmp_path)
    disk, logs = at.disk, at.logs
    script = (
        # a remount is refused (busy) while a file is open for writing: try until between writes
        at.script(f"""
            for i in $(seq 500); do
                mount -o remount,ro {disk} 2>/dev/null && break; sleep 0.02
            done
            mount -o remount,ro {disk}
        """)
        + f"""
        set +e
        {at.compare} --resume >{logs}/resumed.out 2>{logs}/resumed.err; echo $? >{logs}/resumed.rc
        {HARNESS} compare {TINY} --out {disk / "other"} \
            >{logs}/fresh.out 2>{logs}/fresh.err; echo $? >{logs}/fresh.rc
    """
    )
    done = in_namespace(script)
    assert done.returncode == 0, done.stderr
    line = at.refused_write()
    assert "the filesystem is read-only; make " in line and "or start again with another --out" \
        in line  # fmt: skip
    for attempt, out, there in (("resumed", disk / "runs", disk / "runs"),
                                ("fresh", disk / "other", disk)):  # fmt: skip
        assert at.status(attempt) == "2"
        assert at.errors(attempt) == [
            f"error: --out {out}: {there} is on a read-only filesystem; choose another --out"
        ]
