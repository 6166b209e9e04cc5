"""What a trl run keeps on disk: the model a round starts from and the one it makes.

Resume continues from the last finished round's model, and ``self`` serves it; nothing reads an
older one. So when round n starts, every ``round-MMM/`` directory under the run's ``trl/`` but
rounds n-1 and n is deleted (``keep_all_rounds`` keeps them), after round n-1's record is
written -- never the model a crash could send a resumed run back to. Only real directories
named like rounds are removed; a symbolic link is removed as a link, its target untouched.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Collection
from pathlib import Path

from harness.byte_sizes import size

__all__ = ["prune_rounds"]

ROUND_DIR = re.compile(r"round-\d{3,}")


def _bytes(directory: Path) -> tuple[int, int]:
    total = files = 0
    for root, _, names in os.walk(directory):
        for name in names:
            total += (Path(root) / name).lstat().st_size
            files += 1
    return total, files


def prune_rounds(root: Path, keep: Collection[Path]) -> str | None:
    """Delete every round directory under `root` but those in `keep`; what was freed, in
    words, or None where nothing was."""
    if not root.is_dir():
        return None
    kept = {os.path.normpath(p.absolute()) for p in keep}
    gone: list[str] = []
    freed = files = 0
    for entry in sorted(root.iterdir()):
        if not ROUND_DIR.fullmatch(entry.name) or os.path.normpath(entry.absolute()) in kept:
            continue
        if entry.is_symlink() or not entry.is_dir():
            entry.unlink()
        else:
            n_bytes, n_files = _bytes(entry)
            shutil.rmtree(entry)
            freed, files = freed + n_bytes, files + n_files
        gone.append(entry.name)
    if not gone:
        return None
    return f"deleted {', '.join(gone)} (freed {size(freed)} in {files} file(s))"
