"""The CPU learner: a small torch policy trained by GRPO on MAPF-FrozenLake, on a laptop.

`OMP_WAIT_POLICY=PASSIVE` is set here, before anything imports torch, because OpenMP's default
busy-waiting threads spin between the many small kernels of a rollout; on a machine that is
also doing other work that made rounds about 12x slower. `setdefault` leaves a user's choice
alone, and it has no effect if torch was already imported before this package.

The kernels torch and MKL choose by CPU are pinned here too, before torch computes anything
(`run_records.machine.pin_cpu_kernels`: ``ATEN_CPU_CAPABILITY=avx2``,
``MKL_CBWR=COMPATIBLE``); with the learner's own matrix products (`products`), the same seed
computes the same fp32 bits on every x86-64 CPU with AVX2. What was in effect is read back
into every run record, with the learner's fingerprint (`fingerprint`).

glibc's allocator is told to keep freed memory (see `keep_freed_memory`), for the same kind
of reason: a training step allocates and frees tens of MB of activations, and by default
glibc hands such blocks back to the kernel at once, so every step faulted them in afresh, a
page at a time (about 600k page faults, a second of system time, per 1000-instance round).
"""

import ctypes
import os
import sys
from typing import TYPE_CHECKING, Any

from run_records import pin_cpu_kernels

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
pin_cpu_kernels()

if TYPE_CHECKING:
    from harness.backends.cpu.backend import CpuBackend
    from harness.backends.cpu.settings import CpuLearnerSettings
    from harness.backends.cpu.vendor_kernels import VendorKernelCalled, forbid_vendor_kernels

__all__ = ["CpuBackend", "CpuLearnerSettings", "VendorKernelCalled", "forbid_vendor_kernels"]


def __getattr__(name: str) -> Any:
    """The learner's classes and the guard against vendor kernels, imported when first asked
    for: the backend's spec (`harness.backends.cpu.spec`), read whenever an experiment is
    validated, must not import torch. Every path into the package runs the pinning above
    first."""
    if name == "CpuBackend":
        from harness.backends.cpu.backend import CpuBackend

        return CpuBackend
    if name == "CpuLearnerSettings":
        from harness.backends.cpu.settings import CpuLearnerSettings

        return CpuLearnerSettings
    if name in ("VendorKernelCalled", "forbid_vendor_kernels"):
        from harness.backends.cpu import vendor_kernels

        return getattr(vendor_kernels, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def keep_freed_memory() -> bool:
    """Make glibc reuse freed blocks of up to 32 MB instead of returning them to the kernel.

    Sets M_MMAP_THRESHOLD to 32 MB (glibc's own ceiling for it; larger blocks are still
    mapped and unmapped) and M_TRIM_THRESHOLD to 1 GB, so the heap stays at its high-water
    mark instead of shrinking after every step. Linux with glibc only; elsewhere, or if the
    call fails, nothing changes. Returns whether both settings were applied.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(mallopt(_M_TRIM_THRESHOLD, 1 << 30))


keep_freed_memory()
