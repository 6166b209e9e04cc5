"""Free disk where the runs would write: what every backend's disk check says alike.

Each backend weighs the free space against what its own runs write (verl its checkpoint
budget, cpu a few MB a run); where the space cannot be measured at all they say the same.
"""

from __future__ import annotations

from pathlib import Path

from harness.doctor.findings import Finding, warn

__all__ = ["unmeasured"]


def unmeasured(where: Path) -> Finding:
    """No free space to weigh: a warning, as the runs may well fit."""
    return warn("disk", f"free space at {where} cannot be measured", "check it with df -H")
