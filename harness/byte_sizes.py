"""Byte counts as a user reads them, in one format wherever the harness prints one.

Free space, a run's disk budget, a checkpoint and a GPU's memory appear side by side in the
dry run, ``harness doctor``, preflight and a full disk's error; printed alike, they can be
compared at a glance with each other and with ``df -H``.
"""

from __future__ import annotations

__all__ = ["size"]


def size(n_bytes: float) -> str:
    """Bytes in decimal units, as ``df -H`` and disk prices give them."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes / 1e3:.1f} kB"
