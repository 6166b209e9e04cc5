"""Failure reasons in a few words: what a flag on a board says of failed steps or requests."""

from __future__ import annotations

SHOWN_REASONS = 2
"""Reasons named in a flag; the rest are counted."""


def reason_text(reasons: dict[str, int]) -> str:
    """`missing credentials`, or `rate limit ×3, timeout ×2 and 1 other reason`."""
    if len(reasons) == 1:
        return next(iter(reasons))
    named = ", ".join(f"{reason} ×{n}" for reason, n in list(reasons.items())[:SHOWN_REASONS])
    others = len(reasons) - SHOWN_REASONS
    if others > 0:
        named += f" and {others} other reason{'s' if others > 1 else ''}"
    return named
