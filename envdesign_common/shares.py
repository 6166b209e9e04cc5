"""Shares that must sum to 1 (a round's samples split by map size or by dataset), rescaled.

A designer writes shares freely; projection rescales them to sum to 1. Two edge cases are why
this lives in one place: all shares 0 (spread evenly, there is no other fair reading), and
shares near the float limit, whose sum overflows to inf and would make every share 0 (divide
by the largest first, so 1e308 and 1e308 become halves as 1 and 1 do).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TypeVar

__all__ = ["SHARE_TOLERANCE", "rescaled_shares"]

SHARE_TOLERANCE = 1e-6
"""How far from 1 a sum of shares may be and count as 1."""

K = TypeVar("K")


def rescaled_shares(
    shares: Mapping[K, float], noun: str = "shares"
) -> tuple[dict[K, float], str] | None:
    """`shares` rescaled to sum to 1, with the reason in words (`noun` names them: ratios,
    weights); None when they already do. Keys keep their order, and so does the sum."""
    total = sum(shares.values())
    if abs(total - 1.0) <= SHARE_TOLERANCE:
        return None
    if total == 0.0:
        return dict.fromkeys(shares, 1 / len(shares)), f"all {noun} were 0; spread evenly"
    scale = max(shares.values()) if math.isinf(total) else 1.0
    scaled_total = sum(value / scale for value in shares.values())
    rescaled = {key: value / scale / scaled_total for key, value in shares.items()}
    return rescaled, f"{noun} summed to {total:.6g}; rescaled to sum 1"
