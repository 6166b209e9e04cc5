"""Where two recorded configs part: the first dotted key whose values differ.

Resume (a run's config then and now) and boards (two runs' pooling keys) both refuse with the
exact field that differs, so a user fixes one thing rather than comparing two JSON documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["first_difference"]


def first_difference(
    a: Mapping[str, Any], b: Mapping[str, Any], prefix: str = ""
) -> tuple[str, Any, Any] | None:
    """The first dotted key (in sorted order) whose values differ, with both values; a key
    one side lacks reads as ``<missing>`` there."""
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key, "<missing>"), b.get(key, "<missing>")
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            inner = first_difference(x, y, f"{prefix}{key}.")
            if inner is not None:
                return inner
        elif x != y:
            return f"{prefix}{key}", x, y
    return None
