"""What a run's numbers depend on beyond its config: precision, CPU, kernels, versions, threads.

The CPU learner's float results depend on which kernels compute them, and torch and MKL pick
kernels by the CPU they find: the same seed then gives other answers -- and possibly other
conclusions -- on another machine. Two things follow.

* `pin_cpu_kernels` asks torch and MKL, before torch is first used, to take the same code
  paths on every x86 CPU where they can (`PINNED`): ATen's vectorised kernels at AVX2 (the
  widest ISA that laptops and servers share; AVX-512 machines otherwise run other, wider
  kernels), and MKL's conditional numerical reproducibility at its AVX2 branch. `setdefault`
  leaves a user's own choice alone.
* `MachineRecord` says what was in effect, read back from torch and MKL rather than assumed,
  and every run record carries it, so boards can refuse to pool runs that computed differently
  (`MachineRecord.pool_key`).

What is known about how far the pinning reaches (torch 2.13, MKL 2024.2):

* ``ATEN_CPU_CAPABILITY`` is honoured: ``default`` turns this machine's AVX2 kernels off, which
  `torch.backends.cpu.get_cpu_capability` reports. That ``avx2`` makes an AVX-512 machine run
  the AVX2 kernels is torch's documented behaviour; it was not checked on such a machine.
* ``MKL_CBWR=AVX2`` pins MKL's GEMMs to one code path on Intel CPUs (MKL's documented
  behaviour). On an AMD EPYC (measured), MKL does not
  honour the AVX2 branch: it reads back ``AUTO`` (reproducible from run to run on that CPU,
  and numerically different from MKL without the variable). ``COMPATIBLE`` is honoured there
  (and, by MKL's documentation, on any x86 CPU), at 1.6-1.9x the CPU time of a training round;
  whoever needs AMD and Intel runs on one board sets ``MKL_CBWR=COMPATIBLE`` before starting.
* oneDNN is not pinned: the fp32 learner never calls it (its matrix products go to MKL), and
  in bf16 it is what uses native bf16 instructions -- ``DNNL_MAX_CPU_ISA=AVX2`` would take the
  speed bf16 is chosen for. bf16 results therefore differ between CPUs with and without native
  bf16 (`bf16_kernels` says which ran).
* Without MKL's reproducibility mode, 1 and 2 threads gave different weights after one
  training round here; with it (``AUTO`` on this CPU) they gave identical ones. Larger counts
  were not checked, so the thread count is recorded and compared like the rest.

Cross-ISA identity of fp32 runs is not demonstrated by the tests, which were measured where
AVX2 is the widest ISA. What the records guarantee is that runs which did not compute alike are not
pooled silently.
"""

from __future__ import annotations

import ctypes
import os
import platform
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Precision = Literal["fp32", "bf16"]

PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}
"""Variables `pin_cpu_kernels` sets (unless already set) before torch is used."""

RECORDED_VARIABLES = (
    *PINNED,
    "DNNL_MAX_CPU_ISA",
    "ONEDNN_MAX_CPU_ISA",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
)
"""Environment variables that change which kernels run, recorded when set."""

CPU_FLAGS = ("avx2", "avx512f", "avx512bw", "avx512_bf16", "amx_tile", "amx_bf16")
"""The CPU features that decide torch's kernels and whether bf16 is native."""

NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")

MKL_BRANCHES = {1: "OFF", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 6: "SSSE3", 7: "SSE4_1"}
MKL_BRANCHES |= {8: "SSE4_2", 9: "AVX", 10: "AVX2", 12: "AVX512", 14: "AVX512_E1"}
MKL_STRICT = 0x10000


def pin_cpu_kernels() -> dict[str, str]:
    """Set `PINNED` in the environment where the user has not; returns what is now set.

    Must run before torch computes anything: torch reads its capability, and MKL its branch,
    once, at their first use.
    """
    for name, value in PINNED.items():
        os.environ.setdefault(name, value)
    return {name: os.environ[name] for name in PINNED}


class MachineRecord(BaseModel):
    """How a run computed: what, besides config and seed, decides its numbers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    precision: Precision = Field(description="The CPU learner's float format.")
    bf16_kernels: Literal["native", "emulated"] | None = Field(
        description="With bf16: whether the CPU has bf16 instructions (avx512_bf16, amx_bf16) "
        "or torch emulates them in fp32 registers; None with fp32."
    )
    cpu_model: str
    cpu_flags: tuple[str, ...] = Field(description=f"Which of {', '.join(CPU_FLAGS)} it has.")
    cpu_capability: str = Field(description="torch's vectorised kernels in effect (AVX2, ...).")
    mkl_branch: str | None = Field(
        description="MKL's reproducibility branch in effect, read back from MKL (None: no MKL)."
    )
    environment: dict[str, str] = Field(
        description="The kernel-choosing variables that were set (see RECORDED_VARIABLES)."
    )
    torch_version: str
    numpy_version: str
    threads: int = Field(description="torch threads the learner used.")

    def pool_key(self) -> dict[str, object]:
        """What must be equal for two runs' numbers to be comparable on one board."""
        return {
            "precision": self.precision,
            "bf16 kernels": self.bf16_kernels,
            "torch": self.torch_version,
            "CPU capability": self.cpu_capability,
            "MKL branch": self.mkl_branch,
            "threads": self.threads,
        }


@cache
def cpu_flags() -> tuple[str, ...]:
    """Which of `CPU_FLAGS` this CPU has (Linux: /proc/cpuinfo; elsewhere none are known)."""
    text = _cpuinfo()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    have = set(line.partition(":")[2].split())
    return tuple(flag for flag in CPU_FLAGS if flag in have)


def native_bf16() -> bool:
    """True when the CPU computes bf16 in hardware; elsewhere torch emulates it (slower)."""
    return any(flag in cpu_flags() for flag in NATIVE_BF16_FLAGS)


@cache
def cpu_model() -> str:
    text = _cpuinfo()
    line = next((ln for ln in text.splitlines() if ln.startswith("model name")), "")
    return line.partition(":")[2].strip() or platform.processor() or platform.machine()


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="ascii", errors="ignore")
    except OSError:
        return ""


def mkl_branch() -> str | None:
    """MKL's reproducibility branch as MKL reports it, e.g. "AVX2", "AUTO", "AVX2,STRICT".

    Read from the MKL inside torch's library; None when torch has no MKL (e.g. on ARM).
    """
    import torch

    if not torch.backends.mkl.is_available():  # type: ignore[no-untyped-call]
        return None
    try:
        lib = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
        get = lib.mkl_serv_cbwr_get
    except (OSError, AttributeError):
        return "unknown"
    get.argtypes, get.restype = [ctypes.c_int], ctypes.c_int
    code = int(get(1))
    name = MKL_BRANCHES.get(code & ~MKL_STRICT, f"code {code & ~MKL_STRICT}")
    return f"{name},STRICT" if code & MKL_STRICT else name


def current_machine(precision: Precision, threads: int) -> MachineRecord:
    """This process's `MachineRecord` for a learner computing in `precision` on `threads`."""
    import numpy
    import torch

    return MachineRecord(
        precision=precision,
        bf16_kernels=None if precision == "fp32" else "native" if native_bf16() else "emulated",
        cpu_model=cpu_model(),
        cpu_flags=cpu_flags(),
        cpu_capability=torch.backends.cpu.get_cpu_capability(),
        mkl_branch=mkl_branch(),
        environment={k: os.environ[k] for k in RECORDED_VARIABLES if k in os.environ},
        torch_version=torch.__version__,
        numpy_version=numpy.__version__,
        threads=threads,
    )
