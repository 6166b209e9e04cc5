"""Where a record came from: package version and git commit, stamped on everything written.

A result is only comparable with another when both say which code and which config made them,
so every file the project writes carries these fields.
"""

from __future__ import annotations

import subprocess
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

DISTRIBUTION = "envdesign-bench"


@cache
def package_version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def git_commit() -> str:
    """The commit of the source tree this code runs from; 'unknown' outside a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = out.stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=here,
        capture_output=True,
        text=True,
        timeout=5,
        check=False,
    ).stdout.strip()
    return f"{commit}+dirty" if dirty else commit


def provenance(schema_version: str, **extra: Any) -> dict[str, Any]:
    """The stamp every record on disk carries: schema, package version, git commit, extras."""
    return {
        "schema_version": schema_version,
        "package_version": package_version(),
        "git_commit": git_commit(),
        **extra,
    }
