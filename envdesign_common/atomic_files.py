"""Files written whole or not at all: what every record, dataset and checkpoint file relies on.

A reader (a resumed run, a board, another process) must never see half a file, so each is
written to a temporary file in the target's directory, fsynced, and renamed over the target.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

__all__ = ["atomic_write_bytes"]


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write `data` to `path` so readers see either the old file or the whole new one.

    The temporary file lives in the target's directory because `os.replace` is only atomic within
    one filesystem; it is created with mode 0o666 so the umask applies as for an ordinary file.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
