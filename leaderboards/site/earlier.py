"""What `publish` finds at and beside `--out`: an earlier site, and what a killed publish left.

Publishing replaces an earlier site, but files a user added to it (notes, a logo, a CNAME:
anything the earlier site's manifest does not list) are copied into the new site before it is
swapped in, and the files the new site replaces although the user changed them (a page of the
earlier site edited by hand, an added file where the new site writes one of the same name) are
named. A publish killed mid-way leaves `.<name>.tmp-<pid>` (a half-built site) beside `--out`,
or, killed between its two renames, `.<name>.old-<pid>` (the earlier site itself, `--out` gone):
the next publish removes the first and puts the second back -- but only for a process that is
no longer alive; a live one is a publish still at work.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from leaderboards.site_manifest import MANIFEST, is_site, read_manifest, site_files
from run_records import sha256_file

__all__ = ["Carried", "carry_user_files", "clear_leftovers", "leftover_name", "process_alive"]


@dataclass(frozen=True)
class Carried:
    """Files of an earlier site: the user's, kept; those the new site replaces although the
    user changed or added them (relative paths, sorted)."""

    kept: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()


def leftover_name(out: Path, kind: str, pid: int) -> str:
    """The name of a publish's temporary directory beside `out`: `tmp` (the site being built)
    or `old` (the earlier site, while the new one is swapped in)."""
    return f".{out.name}.{kind}-{pid}"


def carry_user_files(out: Path, new_site: Path) -> Carried:
    """Copy the files a user added to the earlier site at `out` into `new_site` (not yet in
    place), and name the ones the new site replaces although the user changed them."""
    manifest = read_manifest(out) if out.is_dir() else None
    if manifest is None:
        return Carried()
    written = site_files(manifest)
    kept, replaced = [], []
    for path in _entries(out):
        name = path.relative_to(out).as_posix()
        if name == MANIFEST:
            continue
        if name in written:
            if path.is_symlink() or sha256_file(path) != written[name]:
                replaced.append(name)
            continue
        target = new_site / name
        try:
            if target.exists() or target.is_symlink():
                raise FileExistsError(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target, follow_symlinks=False)
        except OSError:  # the new site writes a file there, or one where a folder is needed
            replaced.append(name)
            continue
        kept.append(name)
    return Carried(tuple(sorted(kept)), tuple(sorted(replaced)))


def clear_leftovers(out: Path) -> list[str]:
    """Remove the temporary directories killed publishes to `out` left beside it, putting an
    earlier site back where `out` is gone; one line for each thing done."""
    out = out.absolute()
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(tmp|old)-(\d{{1,10}})")
    try:
        beside = sorted(out.parent.iterdir())
    except OSError:
        return []
    lines = []
    for entry in beside:
        found = pattern.fullmatch(entry.name)
        if found is None or entry.is_symlink() or not entry.is_dir():
            continue
        kind, pid = found[1], int(found[2])
        if pid == os.getpid() or process_alive(pid):
            continue
        if kind == "old" and not out.exists() and is_site(entry):
            entry.rename(out)
            lines.append(
                f"put the earlier site back from {entry.name} (a publish, pid {pid}, was "
                "killed while swapping it in)"
            )
            continue
        shutil.rmtree(entry, ignore_errors=True)
        lines.append(f"removed {entry.name}, left by a killed publish (pid {pid})")
    return lines


def process_alive(pid: int) -> bool:
    """Whether process `pid` exists (one of another user counts: it may still be at work)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, OSError):
        return False
    return True


def _entries(root: Path) -> list[Path]:
    """Every file and symbolic link under `root`, without following links, in path order."""
    found = []
    for here, subdirs, files in os.walk(root):
        base = Path(here)
        found += [base / name for name in files]
        found += [base / name for name in subdirs if (base / name).is_symlink()]
        subdirs.sort()
    return sorted(found)
