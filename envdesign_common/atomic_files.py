"""Files written whole or not at all: what every record, dataset and checkpoint file relies on.

A reader (a resumed run, a board, another process) must never see half a file, so each is
written to a temporary file in the target's directory, fsynced, renamed over the target, and
the directory fsynced, so that after a crash or power loss the new name points at the whole
new content -- before anything written later (a round record that vouches for a checkpoint)
can be on disk without it. A process killed mid-write leaves only a temporary file, which
readers ignore (`is_temporary`) and the next attempt removes.
"""

from __future__ import annotations

import errno
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

__all__ = ["TEMP_SUFFIX", "atomic_write_bytes", "atomic_writer", "fsync_directory", "is_temporary"]

TEMP_SUFFIX = ".tmp"
"""How every temporary file of `atomic_writer` ends: ``.<name>.<32 hex>.tmp``."""


@contextmanager
def atomic_writer(path: str | os.PathLike[str], *, exclusive: bool = False) -> Iterator[BinaryIO]:
    """A binary file to stream into (``torch.save(state, f)``) that becomes `path` only when
    the block ends without an error; on an error the temporary file is removed.

    `exclusive`: `path` is created only if it does not exist yet, else `FileExistsError` and
    nothing changes -- of two processes creating one file, exactly one succeeds.

    The temporary file lives in the target's directory because `os.replace` is only atomic
    within one filesystem; it is created with mode 0o666 so the umask applies as for an
    ordinary file. An `OSError` of the write names `path`, not the temporary file, so that the
    one line a user reads (a full disk, a read-only filesystem) names the file they know.
    """
    target = Path(path)
    try:
        with suppress(FileExistsError):  # a file in the directory's place: os.open says so
            target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}{TEMP_SUFFIX}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as err:
        raise _naming(err, target) from err
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        _publish(tmp, target, exclusive)
        fsync_directory(target.parent)
    except BaseException as err:
        with suppress(OSError):  # the error being raised says more than a failed clean-up
            tmp.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise _naming(err, target) from err
        raise


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, *, exclusive: bool = False
) -> None:
    """Write `data` to `path` so readers see either the old file or the whole new one
    (`exclusive`: only a new one, as `atomic_writer` says)."""
    with atomic_writer(path, exclusive=exclusive) as f:
        f.write(data)


def _publish(tmp: Path, target: Path, exclusive: bool) -> None:
    """Give the whole temporary file its name. Exclusively by a hard link, which unlike a rename
    fails when the target exists; on a filesystem without hard links by a rename after a check
    (not atomic there: a caller that must not race holds a lock of its own)."""
    if not exclusive:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError:  # no hard links here
        if target.exists():
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target)) from None
        os.replace(tmp, target)
    else:
        tmp.unlink()


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a rename in `directory` durable: without it a crash may forget the new name even
    though the file's content is on disk. Filesystems that cannot sync a directory are left be."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # e.g. some network filesystems refuse fsync on a directory; the rename stands
    finally:
        os.close(fd)


def is_temporary(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is an `atomic_writer` temporary file (left by a process killed mid-write)."""
    name = Path(path).name
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def _naming(err: OSError, target: Path) -> OSError:
    """`err` as raised by the OS, naming `target` (the same subclass: errno decides it)."""
    if err.errno is None:
        return err
    return OSError(err.errno, err.strerror or os.strerror(err.errno), str(target))
