"""Compute the suites' checksums for a set of datasets and add them to the shipped manifest.

    python -m tasks.reasoning_gym.manifest --datasets basic_arithmetic,chain_sum

builds every suite of those datasets with the installed reasoning-gym, and writes their sha256
(with the item count and the reasoning-gym version) under the set's key in
``tasks/reasoning_gym/suites.json``; ``--dry-run`` prints the entry without writing it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from envdesign_common import atomic_write_bytes
from tasks.reasoning_gym import catalog
from tasks.reasoning_gym.settings import PRESET
from tasks.reasoning_gym.suites import (
    SUITE_VERSION,
    SUITES,
    build_items,
    content_sha256,
    load_manifest,
    manifest_key,
    manifest_path,
)

__all__ = ["compute_entry", "main", "write_entry"]


def compute_entry(datasets: Sequence[str]) -> dict[str, Any]:
    """The manifest entry of `datasets`: each suite's sha256 and item count, and the version."""
    problem = catalog.names_problem(sorted(set(datasets)))
    if problem:
        raise ValueError(problem)
    suites = {}
    for name in SUITES:
        items = build_items(name, datasets)
        suites[name] = {"items": len(items), "sha256": content_sha256(name, SUITE_VERSION, items)}
    return {"reasoning_gym": catalog.rg_version(), "suite_version": SUITE_VERSION, "suites": suites}


def write_entry(datasets: Sequence[str], path: Path | None = None) -> dict[str, Any]:
    """Compute the entry of `datasets` and write it into the manifest at `path` (default: the
    shipped one), replacing an entry of the same set; returns the entry."""
    target = path or manifest_path()
    entry = compute_entry(datasets)
    manifest = load_manifest(target)
    manifest.setdefault("entries", {})[manifest_key(datasets)] = entry
    manifest["entries"] = dict(sorted(manifest["entries"].items()))
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    atomic_write_bytes(target, text.encode("utf-8"))
    return entry


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tasks.reasoning_gym.manifest",
        description="Checksum the reasoning-gym task's suites for a set of datasets.",
    )
    parser.add_argument(
        "--datasets",
        default=",".join(PRESET),
        help="comma-separated dataset names (default: the preset)",
    )
    parser.add_argument(
        "--manifest",
        type=Path,
        default=None,
        help="the manifest to write (default: the shipped suites.json)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the entry, write nothing")
    args = parser.parse_args(argv)
    datasets = [name.strip() for name in str(args.datasets).split(",") if name.strip()]
    try:
        entry = compute_entry(datasets) if args.dry_run else write_entry(datasets, args.manifest)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(json.dumps({manifest_key(datasets): entry}, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
