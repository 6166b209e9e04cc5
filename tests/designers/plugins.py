"""Installing a designer plug-in package in a test as a user would, without touching the venv."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.plugin_sites import plugin_on_path


@contextmanager
def installed_plugin_package(source: Path, target: Path, modules: Iterable[str]) -> Iterator[Path]:
    """pip-install the package at `source` into `target`, put first on sys.path so the registry
    finds its entry points; on leaving, both are undone and its `modules` forgotten.

    A real pip install (no shortcut through sys.path alone) so the entry-point declaration is
    read exactly as it is when a user installs the package.
    """
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(source)],
        check=True,
    )  # fmt: skip
    with plugin_on_path(target, modules):
        yield target
