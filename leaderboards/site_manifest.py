"""A published site's manifest (`site.json`): how readers and publishers recognise a site.

It sits below both the run readers and the site builder: a site copies its runs' small files
(`files/<run>/result.json`), so a site published inside a runs root would read as a second copy
of every run unless the readers know a site when they meet one; and `publish` must know which
files an earlier site wrote to keep the ones a user added. The manifest is read bounded (a
directory anyone can write to may hold any `site.json`) and never trusted for paths.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MANIFEST = "site.json"
GENERATOR = "envdesign-bench leaderboard site"
MAX_MANIFEST_BYTES = 16 << 20
"""A manifest lists one sha256 per file of its site: a large board's is well under 1 MiB."""


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest of the site in directory `path`, or None when `path` holds no site."""
    try:
        with (path / MANIFEST).open("rb") as f:
            blob = f.read(MAX_MANIFEST_BYTES + 1)
    except OSError:
        return None
    if len(blob) > MAX_MANIFEST_BYTES:
        return None
    try:
        data = json.loads(blob)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("generator") != GENERATOR:
        return None
    return data


def is_site(path: Path) -> bool:
    """Whether directory `path` holds a site this package published."""
    return read_manifest(path) is not None


def site_files(manifest: dict[str, Any]) -> dict[str, str]:
    """The files (relative paths) the site of `manifest` wrote, each with the sha256 it had;
    the manifest itself is not among them."""
    files = manifest.get("files")
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}
