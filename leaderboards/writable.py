"""Whether a command can create its output where it was asked to, found before any work.

Permissions do not tell it: root passes every permission check yet cannot create a file on a
read-only file system or in `/proc`, and an ACL or a full inode table says no while the mode
bits say yes. So the nearest existing directory of the output is asked for a temporary file,
which vanishes once closed; a command refuses in one line at once instead of failing with a
traceback after minutes of work.
"""

from __future__ import annotations

import tempfile
from pathlib import Path


def unwritable(out: Path) -> str | None:
    """Why no file can be created at `out` (a file or directory to be made), or None when it
    can: the reason names the nearest existing directory above it."""
    parent = out.absolute().parent
    existing = next(p for p in (parent, *parent.parents) if p.exists())
    if not existing.is_dir():
        return f"{existing} is a file, not a directory"
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as err:
        return f"{existing} is not writable ({err.strerror or type(err).__name__})"
    return None
