"""Run locks: a run held by a live process is refused in one line naming it, a lock of a dead
process never blocks, a comparison claims its runs all or nothing, and a fresh run's record is
created exclusively."""

from __future__ import annotations

import fcntl
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from envdesign_common import atomic_write_bytes
from harness.run_lock import (
    COMMAND_LOCK,
    WRITER_LOCK,
    Holder,
    RunLock,
    RunLocked,
    claim_runs,
    lock_problems,
    refusal,
)
from run_records import RunDirError

REPO = Path(__file__).parents[2]
HOLD = """
import sys, time
from pathlib import Path
from harness.run_lock import RunLock
for run in sys.argv[2:]:
    RunLock(Path(run), sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(600)
"""


def hold(name: str, *runs: Path) -> subprocess.Popen[str]:
    """Another process that holds lock `name` of `runs` until it is killed."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    holder = subprocess.Popen([sys.executable, "-c", HOLD, name, *map(str, runs)], env=env,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


@pytest.fixture
def holders() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        process.kill()
        process.wait(timeout=30)


def test_a_run_held_by_a_live_process_is_refused_naming_it(
    tmp_path: Path, holders: list[subprocess.Popen[str]]
) -> None:
    run = tmp_path / "exp" / "random" / "seed-0"
    holders.append(holder := hold(WRITER_LOCK, run))
    with pytest.raises(RunLocked) as refused:
        RunLock(run, WRITER_LOCK).acquire()
    message = str(refused.value)
    assert message.startswith(f"{run} is being written by another process (pid {holder.pid} on ")
    assert message.endswith("; wait for it to end or stop it, then continue with --resume")
    assert "\n" not in message and len(message) < 300
    assert str(refusal(run, WRITER_LOCK)) == message  # the preflight sees it without taking it
    assert refusal(run, COMMAND_LOCK) is None


def test_a_lock_left_by_a_killed_process_does_not_block(
    tmp_path: Path, holders: list[subprocess.Popen[str]]
) -> None:
    run = tmp_path / "seed-0"
    holder = hold(COMMAND_LOCK, run)
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    assert (run / COMMAND_LOCK).read_text().startswith(f'{{"pid": {holder.pid}')  # stale file
    assert refusal(run, COMMAND_LOCK) is None
    with RunLock(run, COMMAND_LOCK):
        assert f'"pid": {os.getpid()}' in (run / COMMAND_LOCK).read_text()
    assert not (run / COMMAND_LOCK).exists()  # released: the file goes with the lock


def test_a_comparison_claims_its_runs_all_or_nothing(
    tmp_path: Path, holders: list[subprocess.Popen[str]]
) -> None:
    first, taken = tmp_path / "exp" / "a" / "seed-0", tmp_path / "exp" / "b" / "seed-0"
    holders.append(holder := hold(COMMAND_LOCK, taken))
    refused = pytest.raises(RunLocked, match=f"^{taken} is being written by .*pid {holder.pid} ")
    with refused, claim_runs([taken, first]):
        pytest.fail("claimed a run another process holds")
    assert refusal(first, COMMAND_LOCK) is None
    assert not (tmp_path / "exp" / "a").exists()  # the directories it made for nothing are gone


def test_the_preflight_names_each_holding_process_once(
    tmp_path: Path, holders: list[subprocess.Popen[str]]
) -> None:
    runs = [tmp_path / "exp" / d / "seed-0" for d in ("a", "b", "c")]
    holders.append(holder := hold(COMMAND_LOCK, *runs[:2]))
    lines = lock_problems(runs)
    assert len(lines) == 1
    assert lines[0].startswith(f"{runs[0]} (and 1 more of this comparison's runs) is being "
                               f"written by another process (pid {holder.pid} on ")  # fmt: skip


def test_a_refusal_crosses_from_a_worker_process_intact(tmp_path: Path) -> None:
    refused = RunLocked(tmp_path, None)
    again = pickle.loads(pickle.dumps(refused))
    assert isinstance(again, RunDirError) and str(again) == str(refused)
    assert str(again) == (f"{tmp_path} is being written by another process; wait for it to end "
                          "or stop it, then continue with --resume")  # fmt: skip


def test_a_fresh_run_record_is_created_exclusively(tmp_path: Path) -> None:
    """`RunDir.open` creates run.json this way: a second creator is refused, not overwriting."""
    target = tmp_path / "run.json"
    atomic_write_bytes(target, b"first", exclusive=True)
    with pytest.raises(FileExistsError):
        atomic_write_bytes(target, b"second", exclusive=True)
    assert target.read_bytes() == b"first" and [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_a_refusal_waits_for_a_just_taken_lock_to_name_its_holder(tmp_path: Path) -> None:
    """A lock is taken first and named a moment later: a contender that looks in between still
    names the holder (two `--resume` started together must not get "another process" without
    its pid)."""
    run = tmp_path / "run"
    run.mkdir()
    path = run / WRITER_LOCK
    fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        namer = threading.Timer(0.2, path.write_bytes, args=(Holder.me().dump(),))
        namer.start()
        with pytest.raises(RunLocked) as err:
            RunLock(run).acquire()
        namer.join()
        assert f"(pid {os.getpid()} on " in str(err.value)
        found = refusal(run, WRITER_LOCK)
        assert found is not None and found.who is not None and found.who.pid == os.getpid()
    finally:
        os.close(fd)
