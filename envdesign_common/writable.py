"""Whether a command can create its output where it was asked to, found before any work.

Permissions do not tell it: root passes every permission check yet cannot create a file on a
read-only file system or in `/proc`, and an ACL or a full inode table says no while the mode
bits say yes. So after the cheap reasons (not a directory, a virtual or read-only filesystem,
no permission) the nearest existing directory of the output is asked for a temporary file,
which vanishes once closed. Every command that writes -- runs, zero-shot records, bundles,
sites -- asks here, so each refuses in one line at once, worded alike, instead of failing with
a traceback after minutes of work.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def existing_ancestor(path: Path) -> Path:
    """`path` or its nearest ancestor that exists: where free space is measured, and what
    decides whether a path not yet made can be written."""
    existing = path.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    return existing


def write_problem(path: Path) -> str | None:
    """Why nothing can be created at `path` (a file or directory still to be made, or one to
    write into), naming the nearest existing directory; None when something can."""
    existing = existing_ancestor(path)
    if not existing.is_dir():
        return f"{existing} is not a directory"
    try:
        fs = os.statvfs(existing)
    except OSError as err:
        return f"cannot inspect {existing} ({err.strerror or type(err).__name__})"
    if fs.f_blocks == 0:
        return f"{existing} is on a virtual filesystem that stores no files (like /proc or /sys)"
    if fs.f_flag & os.ST_RDONLY:
        return f"{existing} is on a read-only filesystem"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable"
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as err:
        return f"cannot write in {existing} ({err.strerror or type(err).__name__})"
    return None
