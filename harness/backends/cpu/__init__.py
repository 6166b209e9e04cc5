"""The CPU learner: a small torch policy trained by GRPO on MAPF-FrozenLake, on a laptop.

`OMP_WAIT_POLICY=PASSIVE` is set here, before anything imports torch, because OpenMP's default
busy-waiting threads spin between the many small kernels of a rollout; on a machine that is
also doing other work that made rounds about 12x slower. `setdefault` leaves a user's choice
alone, and it has no effect if torch was already imported before this package.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from harness.backends.cpu.backend import CpuBackend
from harness.backends.cpu.settings import CpuLearnerSettings

__all__ = ["CpuBackend", "CpuLearnerSettings"]
