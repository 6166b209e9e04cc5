"""One checksum for a model directory, so a round's record names the exact weights it made."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from run_records import sha256_file

__all__ = ["directory_sha256"]


def directory_sha256(directory: Path) -> str:
    """sha256 over every regular file under `directory`: its relative path and its own sha256,
    in path order. Links are refused: a checkpoint holds its files, it does not point at
    others (a link could make a record vouch for a file outside the run)."""
    digest = hashlib.sha256()
    files: list[Path] = []
    for root, dirs, names in os.walk(directory):
        for name in (*names, *dirs):
            path = Path(root) / name
            if path.is_symlink():
                raise ValueError(f"{path} is a symbolic link; a model directory holds files")
        files += [Path(root) / name for name in names]
    if not files:
        raise FileNotFoundError(f"{directory} holds no files")
    for path in sorted(files, key=lambda p: p.relative_to(directory).as_posix()):
        digest.update(path.relative_to(directory).as_posix().encode("utf-8") + b"\0")
        digest.update(sha256_file(path).encode("ascii") + b"\n")
    return digest.hexdigest()
