"""Values in Hydra's override grammar, quoted only where they must be.

verl's command line is the record of a round (it is printed by the dry run and kept in the
logs), so values stay readable: a path or a name passes bare; anything Hydra would read
otherwise (a keyword, a number, a space, a quote) is quoted and escaped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

__all__ = ["HydraScalar", "HydraValue", "hydra_value"]

_BARE = re.compile(r"[A-Za-z_/][A-Za-z0-9_./+-]*")
_KEYWORDS = {"true", "false", "null", "inf", "+inf", "-inf", "nan"}
_TRAILING_BACKSLASHES = re.compile(r"(\\*)('|$)")

HydraScalar = str | int | float | bool | Path | None
HydraValue = HydraScalar | Sequence[HydraScalar]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _string(text: str) -> str:
    if "${" in text:
        raise ValueError(
            f"{text!r} contains '${{', which OmegaConf would read as an interpolation; "
            "rename the path"
        )
    if any(ord(ch) < 32 for ch in text):
        raise ValueError(f"{text!r} contains a control character; Hydra cannot pass it")
    if _BARE.fullmatch(text) and text.lower() not in _KEYWORDS and not _is_number(text):
        return text
    # Hydra quoted strings: a quote is escaped as \', and backslashes are special only right
    # before a quote or at the end, where each must be doubled.
    escaped = _TRAILING_BACKSLASHES.sub(
        lambda m: m.group(1) * 2 + ("\\'" if m.group(2) else ""), text
    )
    return f"'{escaped}'"


def hydra_value(value: HydraValue) -> str:
    """`value` in Hydra's override grammar; strings are quoted only where they must be."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        return repr(value)
    if isinstance(value, Path):
        return _string(str(value))
    if isinstance(value, str):
        return _string(value)
    return "[" + ",".join(hydra_value(item) for item in value) + "]"
