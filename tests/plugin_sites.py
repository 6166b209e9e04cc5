"""A plug-in installed for one test as pip leaves it: modules and a distribution's entry points."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from envdesign_common.registry import EntryPointRegistry


@contextmanager
def plugin_site(
    site: Path,
    dist: str,
    entry_points: Mapping[str, Mapping[str, str]],
    modules: Mapping[str, Path],
) -> Iterator[Path]:
    """`site` holding `modules` (name -> source file) and a ``<dist>-0.1.dist-info`` declaring
    `entry_points` (group -> name -> value), first on sys.path with every registry refreshed;
    on leaving, all of it undone and the modules forgotten."""
    info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in entries.items())
        for group, entries in entry_points.items()
    ))  # fmt: skip
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source.read_text())
    with plugin_on_path(site, modules):
        yield site


@contextmanager
def plugin_on_path(target: Path, modules: Iterable[str]) -> Iterator[Path]:
    """`target` (a folder holding a plug-in's modules and its dist-info) first on sys.path, so
    the registries find its entry points; on leaving, both undone and its `modules` forgotten."""
    sys.path.insert(0, str(target))
    EntryPointRegistry.refresh_all()
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        for module in modules:
            sys.modules.pop(module, None)
        EntryPointRegistry.refresh_all()
