"""The fixed evaluation suites: the same items for every run, checked against shipped sums.

A suite holds, for each chosen dataset, a fixed number of items at each of its fixed levels
(capped at the dataset's highest), generated from seeds derived from (suite, dataset, level).
Its checksum is the sha256 of its canonical content: a header line and one JSON line per item
(sorted keys, ASCII), so it is the same on every machine. The sums the task ships live in
``suites.json`` beside this module, one entry per set of datasets (keyed by the sorted names,
comma-joined) with the reasoning-gym version they were computed under; a set without an entry
has no suites until `python -m tasks.reasoning_gym.manifest --datasets ...` adds one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from tasks.base import Suite, SuiteItem
from tasks.reasoning_gym import catalog
from tasks.reasoning_gym.items import RgItem, canonical_json, derived_seed, item_from_entry

__all__ = [
    "EVAL",
    "MANIFEST_FILE",
    "SUITES",
    "SUITE_VERSION",
    "VALIDATION",
    "MissingChecksum",
    "SuiteDef",
    "build_items",
    "build_suite",
    "content_sha256",
    "load_manifest",
    "manifest_key",
    "manifest_path",
    "shipped_checksum",
    "suite_levels",
]

SUITE_VERSION = 1
MANIFEST_FILE = "suites.json"


@dataclass(frozen=True)
class SuiteDef:
    """A suite's shape: which levels of each dataset, and how many items at each."""

    levels: tuple[int, ...]
    per_level: int
    purpose: str


VALIDATION, EVAL = "rg-validation", "rg-eval"
SUITES: dict[str, SuiteDef] = {
    VALIDATION: SuiteDef((0, 1), 8, "a few items per dataset, used after every round"),
    EVAL: SuiteDef((0, 1, 2), 25, "the final evaluation"),
}


class MissingChecksum(LookupError):
    """No checksum ships for a suite of this set of datasets (or reasoning-gym version)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "no shipped checksum"


def manifest_key(datasets: Iterable[str]) -> str:
    """The manifest's key of a set of datasets: the sorted names, comma-joined."""
    return ",".join(sorted(set(datasets)))


def suite_levels(name: str, dataset: str) -> tuple[int, ...]:
    """The levels of `dataset` in suite `name`, each capped at the dataset's highest."""
    high = catalog.max_level(dataset)
    return tuple(sorted({min(level, high) for level in SUITES[name].levels}))


def build_items(name: str, datasets: Sequence[str]) -> tuple[SuiteItem[RgItem], ...]:
    """Suite `name`'s items for `datasets`, in a fixed order (dataset, level, index)."""
    shape = SUITES[name]
    items: list[SuiteItem[RgItem]] = []
    for dataset in sorted(set(datasets)):
        for level in suite_levels(name, dataset):
            seed = derived_seed("suite", name, SUITE_VERSION, dataset, level)
            for i, entry in enumerate(catalog.entries(dataset, level, seed, shape.per_level)):
                item = item_from_entry(dataset, level, entry)
                cuts = {"dataset": dataset, "level": str(level)}
                items.append(SuiteItem(f"{name}/{dataset}/{level}/{i}", item, cuts))
    return tuple(items)


def content_sha256(name: str, version: int, items: Iterable[SuiteItem[RgItem]]) -> str:
    """The sha256 of a suite's canonical content (what the manifest ships)."""
    digest = hashlib.sha256()
    digest.update((canonical_json({"suite": name, "version": version}) + "\n").encode("ascii"))
    for it in items:
        line = canonical_json({"id": it.id, **it.item.fields()})
        digest.update((line + "\n").encode("ascii"))
    return digest.hexdigest()


def manifest_path() -> Path:
    """The manifest shipped with the package."""
    return Path(str(resources.files("tasks.reasoning_gym").joinpath(MANIFEST_FILE)))


def load_manifest(path: Path | None = None) -> dict[str, Any]:
    """The manifest (``{"format": 1, "entries": {key: entry}}``); empty where there is none."""
    target = path or manifest_path()
    if not target.exists():
        return {"format": 1, "entries": {}}
    data: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    return data


def _how_to_add(datasets: Sequence[str]) -> str:
    return (
        f"compute them with `python -m tasks.reasoning_gym.manifest --datasets "
        f"{manifest_key(datasets)}`, which adds the entry to tasks/reasoning_gym/{MANIFEST_FILE}"
    )


def shipped_checksum(name: str, datasets: Sequence[str]) -> str:
    """The shipped checksum of suite `name` for `datasets`; `MissingChecksum` saying how to
    compute one where none ships (or it was computed under another reasoning-gym)."""
    key = manifest_key(datasets)
    entry = load_manifest()["entries"].get(key)
    if entry is None:
        raise MissingChecksum(
            f"no shipped checksums for the suites of datasets {key}: {_how_to_add(datasets)}"
        )
    installed = catalog.rg_version()
    if entry.get("reasoning_gym") != installed:
        raise MissingChecksum(
            f"the suites of datasets {key} were checksummed under reasoning-gym "
            f"{entry.get('reasoning_gym')}, but {installed} is installed: install "
            f"reasoning-gym=={entry.get('reasoning_gym')} (pip install "
            f"'envdesign-bench[reasoning-gym]') or {_how_to_add(datasets)}"
        )
    sums = entry.get("suites", {})
    if entry.get("suite_version") != SUITE_VERSION or name not in sums:
        raise MissingChecksum(
            f"no shipped checksum for suite {name!r} (version {SUITE_VERSION}) of datasets "
            f"{key}: {_how_to_add(datasets)}"
        )
    return str(sums[name]["sha256"])


def build_suite(name: str, datasets: Sequence[str]) -> Suite[RgItem]:
    """Suite `name` for `datasets` with its shipped checksum (`KeyError` for an unknown name)."""
    if name not in SUITES:
        raise KeyError(f"no suite {name!r}; suites are {', '.join(SUITES)}")
    checksum = shipped_checksum(name, datasets)
    return Suite(name, SUITE_VERSION, build_items(name, datasets), checksum)
