"""A run that cannot write its files says so in one line: which file, why, and what to do.

The OS reports a full disk as ``OSError: [Errno 28] No space left on device`` without a path
when a buffered write fails, and torch's own file writer turns it into ``RuntimeError: [enforce
fail at inline_container.cc:672] unexpected pos ...``, which names neither the file nor the
cause. Neither tells a user what to do, and a traceback hides the one fact that matters. So a
run's error is translated here when it is a write that the filesystem refused (full, over
quota, too large, read-only, not permitted, a file where a directory belongs): the line names
the file, for a full disk the free space there and roughly what a run needs (the disk budget's
figure, `BackendSpec.disk_per_run`), and how to go on. Finished rounds are kept, so once the
cause is removed ``--resume`` completes the run.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from envdesign_common import existing_ancestor
from harness.byte_sizes import size

__all__ = ["WRITE_ERRNOS", "StorageError", "free_bytes", "storage_error"]

WRITE_ERRNOS: dict[int, str] = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file is larger than the filesystem (or this process's file size limit) "
    "allows",
    errno.EROFS: "the filesystem is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "the operation is not permitted",
    errno.ENOTDIR: "a part of the path is a file, not a directory",
}
"""The filesystem refusals a run's writes are translated for, and their cause in words."""

TORCH_WRITER_FAILURES = ("inline_container.cc", "PytorchStreamWriter failed")
"""What torch's zip writer says when the file under it stops taking bytes."""

FULL_BELOW = 64 * 2**20
"""Free bytes under which a torch writer failure counts as a full disk when a run's need is
not known: a writer that fails with more room than this failed for another reason."""

RESUME = "then continue with --resume (finished rounds are kept)"


class StorageError(RuntimeError):
    """A run could not write its files; the message is the one line to show."""


def storage_error(err: BaseException, where: Path, need: int | None) -> StorageError | None:
    """`err` as one line when it is a refused write under the run directory `where` (`need`:
    roughly the bytes a run writes, None if unknown); None when it is something else."""
    refused = _refused_write(err)
    if refused is not None:
        code, named = refused
        return StorageError(_line(code, Path(named) if named else where, need))
    if _torch_writer_failed(err):
        free = free_bytes(where)
        if free is not None and free < (need or FULL_BELOW):
            return StorageError(_line(errno.ENOSPC, where, need))
    return None


def free_bytes(path: Path) -> int | None:
    """Free bytes on the filesystem that holds `path` (or would: its nearest existing
    ancestor); None where that cannot be measured."""
    try:
        return shutil.disk_usage(existing_ancestor(path)).free
    except OSError:
        return None


def _refused_write(err: BaseException) -> tuple[int, str | None] | None:
    """(errno, the file named) of the first refused write in `err`'s chain of causes."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in WRITE_ERRNOS:
            named = current.filename
            return current.errno, None if named is None else str(named)
        current = current.__cause__ or current.__context__
    return None


def _torch_writer_failed(err: BaseException) -> bool:
    text = str(err)
    return isinstance(err, RuntimeError) and any(mark in text for mark in TORCH_WRITER_FAILURES)


def _line(code: int, path: Path, need: int | None) -> str:
    cause = WRITE_ERRNOS[code]
    if code in (errno.ENOSPC, errno.EDQUOT):
        free, at = free_bytes(path), existing_ancestor(path)
        room = "free space unknown" if free is None else f"{size(free)} free at {at}"
        needs = (f"a run needs about {size(need)}" if need is not None
                 else "`harness compare --dry-run` estimates what a run needs")  # fmt: skip
        return f"cannot write {path}: {cause} ({room}; {needs}); free space there, {RESUME}"
    if code == errno.EFBIG:
        return (
            f"cannot write {path}: {cause}; raise the limit and {RESUME}, or choose another --out"
        )
    if code == errno.EROFS:
        return (
            f"cannot write {path}: {cause}; make {existing_ancestor(path)} writable and {RESUME}, "
            "or start again with another --out"
        )
    if code == errno.ENOTDIR:
        blocker = _blocking_file(path)
        what = f"{blocker} is a file, not a directory" if blocker is not None else cause
        return f"cannot write {path}: {what}; move it away and {RESUME}, or choose another --out"
    return (
        f"cannot write {path}: {cause}; give this user write access to "
        f"{existing_ancestor(path)} and {RESUME}, or choose another --out"
    )


def _blocking_file(path: Path) -> Path | None:
    """The ancestor of `path` that exists and is not a directory, if one does."""
    for ancestor in reversed(path.absolute().parents):
        if ancestor.exists() and not ancestor.is_dir():
            return ancestor
    return None
