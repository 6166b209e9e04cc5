"""What a run's numbers depend on beyond its config, and the fingerprint that settles it.

The CPU learner's float results depend on which kernels compute them and in which order they
sum, and libraries pick kernels by the CPU they find: left alone, the same seed gives other
answers -- and possibly other conclusions -- on another machine. So:

* `pin_cpu_kernels` asks torch and MKL, before torch is first used, to take the same code
  paths on every x86-64 CPU with AVX2 (`PINNED`): ATen's vectorised kernels at AVX2 (AVX-512
  machines otherwise run other, wider ones), and MKL's ``COMPATIBLE`` branch, the one MKL
  honours on Intel and AMD CPUs alike (its AVX2 branch is Intel's only: an AMD CPU runs
  ``AUTO`` instead). The CPU learner's fp32 work does not use MKL at all: its matrix products
  are OpenBLAS's Haswell kernels, in tiles fixed whatever the thread count
  (`harness.backends.cpu.products`), and it calls none of torch's vector math (exp, log, sqrt,
  tanh), which MKL computes by CPU vendor whatever its branch
  (`harness.backends.cpu.vendor_kernels`). The branch is still pinned for any other torch code
  in the process. `setdefault` leaves a user's own choice alone.
* `MachineRecord` says what was in effect, read back from torch, MKL and OpenBLAS rather than
  assumed, and the learner's `fingerprint`: a checksum of what a fixed tiny training computed
  in the run's process (`harness.backends.cpu.fingerprint`). Boards pool runs whose
  fingerprints agree and refuse to pool others unless asked (`MachineRecord.pool_key`): what
  was computed decides, not what the flags suggest.

bf16 goes through torch's own products (oneDNN, which uses native bf16 instructions where the
CPU has them and is not pinned, since ``DNNL_MAX_CPU_ISA=AVX2`` would take the speed bf16 is
chosen for): bf16 results differ between CPUs with and without native bf16, and between thread
counts, which is why a bf16 record's pool key keeps its threads.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Precision = Literal["fp32", "bf16"]

PINNED = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "COMPATIBLE"}
"""Variables `pin_cpu_kernels` sets (unless already set) before torch is used."""

RECORDED_VARIABLES = (
    *PINNED,
    "OPENBLAS_CORETYPE",
    "DNNL_MAX_CPU_ISA",
    "ONEDNN_MAX_CPU_ISA",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
)
"""Environment variables that change which kernels run, recorded when set."""

CPU_FLAGS = ("avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", "amx_tile", "amx_bf16")
"""The CPU features that decide torch's and OpenBLAS's kernels and whether bf16 is native."""

NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")

MKL_BRANCHES = {1: "OFF", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 6: "SSSE3", 7: "SSE4_1"}
MKL_BRANCHES |= {8: "SSE4_2", 9: "AVX", 10: "AVX2", 12: "AVX512", 14: "AVX512_E1"}
MKL_STRICT = 0x10000


PINNED_HERE = "ENVDESIGN_PINNED"
"""Names the variables of `PINNED` that `pin_cpu_kernels` set (not the user), comma-separated;
child processes inherit it with them, so `unpin_cpu_kernels` can undo exactly those."""


def pin_cpu_kernels() -> dict[str, str]:
    """Set `PINNED` in the environment where the user has not; returns what is now set.

    Must run before torch computes anything: torch reads its capability, and MKL its branch,
    once, at their first use.
    """
    ours = set(filter(None, os.environ.get(PINNED_HERE, "").split(",")))
    for name, value in PINNED.items():
        if name not in os.environ:
            os.environ[name] = value
            ours.add(name)
    if ours:
        os.environ[PINNED_HERE] = ",".join(sorted(ours))
    return {name: os.environ[name] for name in PINNED}


def unpin_cpu_kernels() -> None:
    """Take back what `pin_cpu_kernels` set (never what the user set) in this process and its
    children, for work that needs speed rather than the CPU learner's bits: a language model's
    matrix products run about 4x slower on MKL's COMPATIBLE branch. Like the pin, it takes
    effect only before torch and MKL first compute here (`mkl_branch` says which held)."""
    for name in filter(None, os.environ.pop(PINNED_HERE, "").split(",")):
        if name in PINNED and os.environ.get(name) == PINNED[name]:
            del os.environ[name]


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
    products: str | None = Field(
        default=None,
        description="What computed the learner's fp32 matrix products (library, release, "
        "core type); None where torch computed them (bf16) or the record does not say.",
    )
    fingerprint: str | None = Field(
        default=None,
        description="Checksum of a fixed tiny training by the learner in this precision in "
        "the run's process (harness.backends.cpu.fingerprint); equal fingerprints computed "
        "the same bits. None where the backend computes none. 'mixed ...' when a resumed "
        "run's rounds were computed with other fingerprints than its end.",
    )

    def pool_key(self) -> dict[str, object]:
        """What must be equal for two runs' numbers to be comparable on one board: the
        fingerprint (with the threads in bf16, whose products depend on them); without one,
        everything that was known to change the numbers."""
        if self.fingerprint is not None:
            threads = {"threads": self.threads} if self.precision == "bf16" else {}
            return {"fingerprint": self.fingerprint, **threads}
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


def current_machine(
    precision: Precision,
    threads: int,
    *,
    products: str | None = None,
    fingerprint: str | None = None,
) -> MachineRecord:
    """This process's `MachineRecord` for a learner computing in `precision` on `threads`;
    the learner says what computed its products and gives its fingerprint."""
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
        products=products,
        fingerprint=fingerprint,
    )


def over_rounds(machine: MachineRecord, round_fingerprints: Iterable[str | None]) -> MachineRecord:
    """`machine` as the record of a whole run whose rounds were computed with
    `round_fingerprints` (None: not recorded): its fingerprint becomes ``mixed ...`` when any
    round's differs (a run resumed on a machine that computes differently), so no board pools
    it with runs computed one way throughout."""
    seen = {f for f in round_fingerprints if f is not None}
    if machine.fingerprint is None or seen <= {machine.fingerprint}:
        return machine
    mixed = "mixed " + ",".join(sorted(seen | {machine.fingerprint}))
    return machine.model_copy(update={"fingerprint": mixed})


def describe_machine(machine: MachineRecord) -> str:
    """A machine record in one line, fingerprint first: what `harness doctor` prints and
    what two people compare before they pool their runs."""
    threads = f"{machine.threads} thread{'s' if machine.threads != 1 else ''}"
    parts = [
        f"{machine.precision}"
        + (f" ({machine.bf16_kernels} bf16)" if machine.bf16_kernels else "")
        + f", {threads}",
        f"{machine.cpu_model} [{' '.join(machine.cpu_flags) or 'no listed flags'}]",
        *([machine.products] if machine.products else []),
        f"torch {machine.torch_version} kernels {machine.cpu_capability}",
        f"MKL {machine.mkl_branch or 'none'}",
    ]
    return f"learner fingerprint {machine.fingerprint or 'none'} ({'; '.join(parts)})"
