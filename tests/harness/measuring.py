"""Command-line arguments of the learning tests' re-measurement scripts
(`python -m tests.harness.test_cpu_learner [SEED ...] [fp32|bf16 ...]`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from harness.machine import Precision

PRECISIONS: tuple[Precision, ...] = ("fp32", "bf16")


def seeds_and_precisions(argv: Sequence[str]) -> tuple[list[int], list[Precision]]:
    """Seeds (default 0-3) and precisions (default both) named on the command line."""
    seeds = [int(a) for a in argv if a.isdigit()] or [0, 1, 2, 3]
    picked = [cast(Precision, a) for a in argv if a in PRECISIONS] or list(PRECISIONS)
    return seeds, picked
