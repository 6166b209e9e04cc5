"""A user-written YAML file or text that must be one mapping: an experiment, a generator
configuration, a curriculum. Read with the bounds of `bounded_input` (size, nodes with aliases
expanded, depth), so a bomb or a deep nest is one line and never built; every error is a
`ConfigError` naming where the text came from, never quoting it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envdesign_common.bounded_input import InputError, load_yaml, read_text
from envdesign_common.field_errors import ConfigError

__all__ = ["load_mapping", "read_mapping"]


def read_mapping(path: str | Path, origin: str | None = None) -> dict[str, Any]:
    """The YAML mapping in the file `path`; errors name `origin` (default: the path)."""
    where = str(path) if origin is None else origin
    try:
        text = read_text(path)
    except InputError as err:
        raise ConfigError(f"{where}: {err.reason}") from None
    return load_mapping(text, where)


def load_mapping(text: str, origin: str = "config") -> dict[str, Any]:
    """A YAML document that must be a mapping (empty: `{}`); errors name `origin`."""
    try:
        data = load_yaml(text)
    except InputError as err:
        raise ConfigError(f"{origin}: {err}") from None
    if data is None:  # an empty document: every field takes its default
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: a config is a YAML mapping, got {type(data).__name__}")
    return data
