"""Helpers shared by the CPU learner's tests: the re-measurement scripts' command-line
arguments (`python -m tests.harness.test_cpu_learner [SEED ...] [fp32|bf16 ...]`) and a
checkpoint round trip."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from mapf_env import Instance
from run_records import Precision

PRECISIONS: tuple[Precision, ...] = ("fp32", "bf16")


def seeds_and_precisions(argv: Sequence[str]) -> tuple[list[int], list[Precision]]:
    """Seeds (default 0-3) and precisions (default both) named on the command line."""
    seeds = [int(a) for a in argv if a.isdigit()] or [0, 1, 2, 3]
    picked = [cast(Precision, a) for a in argv if a in PRECISIONS] or list(PRECISIONS)
    return seeds, picked


def trained_and_restored(
    settings: CpuLearnerSettings, training: Sequence[Instance], directory: Path
) -> tuple[CpuBackend, CpuBackend]:
    """A backend trained one short epoch and saved, and a fresh one (other settings, other
    seed) loaded from that checkpoint: a resume must answer exactly like the original."""
    backend = CpuBackend(settings)
    backend.train_round(training[:128], epochs=1, seed=0)
    backend.save(directory)
    restored = CpuBackend(CpuLearnerSettings(seed=99))
    restored.load(directory)
    return backend, restored
