"""One writer per run directory: an exclusive lock held for as long as a process writes a run.

Two processes writing one run directory at once (two `--resume` of one root, an orphaned worker
and a new command) would train the same rounds twice, and `RunDir.start_round` of one deletes
the other's round in progress. So a run is locked twice over, each with ``fcntl.flock`` on a
file inside the run directory:

- `COMMAND_LOCK` by the command that runs it (`harness run` / `compare`), for every run of the
  comparison at once, taken in path order and all or nothing before any worker starts: of two
  commands started together on one root exactly one gets them all, the other is refused whole.
- `WRITER_LOCK` by the process that writes the run (a pool worker, a Ray task), for the whole
  time it writes: a worker that outlived its command still holds it, so a new command's run
  is refused until that worker has gone.

``flock`` locks belong to an open file and the kernel drops them when their process dies, so a
lock left by a killed process never blocks. Each lock file holds its holder's pid, host and
start time, which is what the refusal says; it is removed when its holder lets go (a killed
holder leaves it behind, stale and harmless). A file removed while another process waited on
it would hand that process a lock nobody else can see, so an acquired lock counts only while its
file is still the one at the path. Needs POSIX ``fcntl`` (Linux, macOS).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from run_records import RunDirError

__all__ = [
    "COMMAND_LOCK",
    "WRITER_LOCK",
    "Holder",
    "RunLock",
    "RunLocked",
    "claim_runs",
    "lock_problems",
    "refusal",
]

COMMAND_LOCK = ".command.lock"
"""Held by the command that runs the run, for the whole comparison."""
WRITER_LOCK = ".writer.lock"
"""Held by the process that writes the run's files (the command's worker)."""
MAX_HOLDER_BYTES = 4096
"""A lock file is a few dozen bytes; anything longer is not ours and is not read whole."""
HOLDER_WAIT_S = 1.0
"""How long a refusal waits for a just-taken lock's holder to write its name (see `_holder`)."""


@dataclass(frozen=True)
class Holder:
    """Who holds a lock, as its lock file says."""

    pid: int
    host: str
    since: datetime

    def describe(self) -> str:
        when = self.since.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        return f"pid {self.pid} on {self.host[:64]}, since {when}"

    @classmethod
    def me(cls) -> Holder:
        return cls(pid=os.getpid(), host=socket.gethostname(), since=datetime.now(UTC))

    @classmethod
    def parse(cls, data: bytes) -> Holder | None:
        """The holder a lock file names; None while it is being written, or not ours."""
        try:
            fields = json.loads(data)
            return cls(int(fields["pid"]), str(fields["host"]),
                       datetime.fromisoformat(fields["since"]))  # fmt: skip
        except (ValueError, TypeError, KeyError):
            return None

    def dump(self) -> bytes:
        fields = {"pid": self.pid, "host": self.host, "since": self.since.isoformat()}
        return (json.dumps(fields) + "\n").encode()


class RunLocked(RunDirError):
    """Another live process holds a run's lock; the message is one line naming it."""

    def __init__(self, run: Path, who: Holder | None, others: int = 0) -> None:
        self.run, self.who, self.others = run, who, others
        also = f" (and {others} more of this comparison's runs)" if others else ""
        by = f"another process ({who.describe()})" if who else "another process"
        super().__init__(
            f"{run}{also} is being written by {by}; wait for it to end or stop it, then "
            "continue with --resume"
        )

    def __reduce__(self) -> tuple[type[RunLocked], tuple[Path, Holder | None, int]]:
        """Rebuilt from its parts, so it crosses from a pool's worker process intact."""
        return type(self), (self.run, self.who, self.others)


class RunLock:
    """The lock `name` of the run directory `run`, created (with the directory) if need be."""

    def __init__(self, run: Path, name: str = WRITER_LOCK) -> None:
        self.run, self.path = Path(run), Path(run) / name
        self._fd: int | None = None
        self._made: list[Path] = []

    def acquire(self) -> None:
        """Take the lock now or raise `RunLocked` naming its holder; never waits."""
        self._made = _missing_dirs(self.run)
        while True:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                who = _holder(fd)
                os.close(fd)
                self._remove_made()
                raise RunLocked(self.run, who) from None
            except BaseException:
                os.close(fd)
                raise
            if _same_file(fd, self.path):
                break
            os.close(fd)  # its holder removed the file as we waited on it: lock the new one
        self._fd = fd
        with contextlib.suppress(OSError):  # who holds it is a courtesy; the lock is what counts
            _write_holder(self.path)

    def _open(self) -> int:
        try:
            self.run.mkdir(parents=True, exist_ok=True)
            # held through a read-only descriptor: the lock keeps no file open for writing, so
            # a filesystem can still turn read-only under a run, which then fails in its words
            return os.open(self.path, os.O_RDONLY | os.O_CREAT, 0o644)
        except OSError as err:
            raise RunDirError(
                f"{self.run}: cannot create its lock file {self.path.name} ({err.strerror}); "
                "make the run directory writable, or choose another --out"
            ) from None

    def release(self) -> None:
        """Let go: the file goes first, so nobody can lock it once it is no longer ours."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None
        self._remove_made()

    def _remove_made(self) -> None:
        """Remove the directories `acquire` made if nothing else went into them."""
        for directory in self._made:  # deepest first
            try:
                directory.rmdir()
            except OSError:
                return

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:  # fmt: skip
        self.release()


def refusal(run: Path, name: str = COMMAND_LOCK) -> RunLocked | None:
    """What taking lock `name` of `run` would raise now (None when it is free), found out
    without taking it or changing anything."""
    try:
        fd = os.open(Path(run) / name, os.O_RDONLY)
    except OSError:
        return None  # no lock file, so nobody holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return RunLocked(Path(run), _holder(fd))
    except OSError:
        return None
    finally:
        os.close(fd)  # a shared lock taken here ends with its file
    return None


def lock_problems(runs: Iterable[Path]) -> list[str]:
    """One line per process that holds some of `runs` (by either lock), for the preflight."""
    held: dict[tuple[int, str] | None, list[RunLocked]] = {}
    for run in sorted(set(runs)):
        found = refusal(run, COMMAND_LOCK) or refusal(run, WRITER_LOCK)
        if found is not None:
            process = (found.who.pid, found.who.host) if found.who else None
            held.setdefault(process, []).append(found)
    return [str(RunLocked(first.run, first.who, len(rest))) for first, *rest in held.values()]


@contextmanager
def claim_runs(runs: Iterable[Path]) -> Iterator[None]:
    """Hold the command lock of every run in `runs` for the block, or raise `RunLocked` for
    the first one another process holds, having taken none.

    Locks are taken in path order, so two commands over overlapping runs meet at the same
    first run and one of them is refused before it holds anything the other needs.
    """
    with ExitStack() as held:
        for run in sorted(set(runs)):
            held.enter_context(RunLock(run, COMMAND_LOCK))
        yield


def _holder(fd: int) -> Holder | None:
    """Who holds the lock open at `fd`: its holder writes its name just after taking the lock,
    so a name not there yet is read again for up to `HOLDER_WAIT_S` (a refusal that names the
    process to wait for is worth a moment); None if it never comes (a file not ours)."""
    deadline = time.monotonic() + HOLDER_WAIT_S
    while True:
        who = Holder.parse(os.pread(fd, MAX_HOLDER_BYTES, 0))
        if who is not None or time.monotonic() >= deadline:
            return who
        time.sleep(0.01)


def _write_holder(path: Path) -> None:
    """Say in the lock file who holds it, through a descriptor closed at once."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, Holder.me().dump(), 0)
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _missing_dirs(path: Path) -> list[Path]:
    """`path` and those of its parents that do not exist yet, deepest first."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing
