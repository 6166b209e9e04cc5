"""Experiment presets shipped inside the package, found by name wherever it is installed.

`harness compare --preset quick` must work from a wheel as well as from a checkout, so the
presets are package data here (configs/<name>.yaml in a checkout links to them) and a name is
resolved through `importlib.resources`, never through the working directory. A path to a YAML
file is taken as it is, so users keep their own presets anywhere.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from envdesign_common.field_errors import ConfigError, unknown_name

__all__ = ["preset_names", "resolve_preset"]

_SUFFIXES = (".yaml", ".yml")


def preset_names() -> list[str]:
    """The names of the shipped presets, sorted."""
    folder = resources.files(__name__)
    return sorted(
        entry.name.rsplit(".", 1)[0]
        for entry in folder.iterdir()
        if entry.is_file() and entry.name.endswith(_SUFFIXES)
    )


def resolve_preset(name_or_path: str | Path) -> Path:
    """The YAML file of a shipped preset named `name_or_path`, or that file path itself.

    Something that looks like a path (a YAML suffix or a directory part) is never taken for a
    name; an unknown name is a `ConfigError` listing the presets and the closest one.
    """
    path = Path(name_or_path)
    if path.is_file():
        return path
    if path.suffix in _SUFFIXES or len(path.parts) > 1:
        raise ConfigError(f"no preset file at {path}")
    entry = resources.files(__name__) / f"{name_or_path}.yaml"
    if entry.is_file() and isinstance(entry, Path):
        return entry
    raise ConfigError(unknown_name("preset", str(name_or_path), preset_names()))
