"""Where a site goes: checked first, built in a temporary directory beside it, then swapped in.

`--out` may be a new path, an empty directory, or a site this command wrote before (it holds
`site.json`); anything else is refused rather than overwritten. The site is written in full to
`.<name>.tmp-<pid>` next to `--out` (same file system), and only then renamed into place, so a
reader never sees half a site and a failed build leaves the old one untouched
(`leaderboards.site.earlier` keeps a user's files and clears what a killed publish left).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from envdesign_common import write_problem
from leaderboards.errors import LeaderboardError
from leaderboards.site.earlier import leftover_name
from leaderboards.site_manifest import GENERATOR, MANIFEST, is_site

__all__ = ["GENERATOR", "MANIFEST", "check_out", "is_site", "staged"]


def check_out(out: Path) -> None:
    """Raise `LeaderboardError` unless a site may be written to `out`."""
    if out.exists() and not out.is_dir():
        raise LeaderboardError(f"--out {out} is a file; pass a directory for the site")
    if out.is_dir() and any(out.iterdir()) and not is_site(out):
        raise LeaderboardError(
            f"--out {out} is a non-empty directory that holds no site ({MANIFEST} missing); "
            "pass a new or empty directory, or the directory of an earlier site to replace it"
        )
    parent = out.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise LeaderboardError(
            f"cannot write the site to {out}: cannot create {parent} ({_reason(err)}); "
            "pass another --out"
        ) from None
    problem = write_problem(out)
    if problem is not None:
        raise LeaderboardError(f"cannot write the site to {out}: {problem}; pass another --out")


@contextmanager
def staged(out: Path) -> Iterator[Path]:
    """A fresh temporary directory beside `out`; swapped into place when the block succeeds."""
    check_out(out)
    out = out.absolute()
    tmp = out.parent / leftover_name(out, "tmp", os.getpid())
    old = out.parent / leftover_name(out, "old", os.getpid())
    for leftover in (tmp, old):
        shutil.rmtree(leftover, ignore_errors=True)
    try:
        tmp.mkdir()
    except OSError as err:
        raise LeaderboardError(f"cannot write the site to {out}: {_reason(err)}") from None
    try:
        yield tmp
        if out.exists():
            out.rename(old)
        tmp.rename(out)
    except OSError as err:
        if old.exists() and not out.exists():
            old.rename(out)
        raise LeaderboardError(f"cannot write the site to {out}: {_reason(err)}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


def _reason(err: OSError) -> str:
    return err.strerror or str(err)
