"""The same bits on Intel and AMD: the learner's fp32 fingerprint, and the weights and greedy
answers of a short training, are the same natively and on an emulated Intel Haswell and AMD
EPYC-Rome.

qemu's user mode computes IEEE arithmetic exactly and reports the vendor and instruction sets
of the CPU it is told to be, so MKL, OpenBLAS and torch choose their kernels as they would on
that CPU (it has no AVX-512: the native run covers that where the machine has it). About ten
times slower than native: the probe (`cross_cpu_probe.py`) takes about half a minute a CPU.
Opt-in (``-m emulation``); CI installs qemu-user and runs it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.emulation

PROBE = Path(__file__).with_name("cross_cpu_probe.py")
ROOT = Path(__file__).resolve().parents[2]
EMULATED = ("Haswell-v4", "EPYC-Rome-v2")
"""An Intel and an AMD model qemu 7.2 emulates, both with AVX2 and FMA."""


PROBE_TIMEOUT_S = 2700
"""A hang guard, not a speed target: qemu's speed depends on the host (the probe took about
2 minutes per emulated CPU on an AMD EPYC host and about 15 on an Intel Xeon host)."""


def probe(*prefix: str) -> list[str]:
    done = subprocess.run(
        [*prefix, sys.executable, str(PROBE)], cwd=ROOT, capture_output=True, text=True,
        timeout=PROBE_TIMEOUT_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{' '.join(prefix) or 'native'}: {done.stderr[-2000:]}"
    return done.stdout.splitlines()


def test_emulated_intel_and_amd_compute_what_this_cpu_computes() -> None:
    qemu = shutil.which("qemu-x86_64")
    if qemu is None:
        pytest.fail("qemu-x86_64 is not installed: apt-get install -y qemu-user", pytrace=False)
    native = probe()
    assert [line.split()[0] for line in native] == ["fingerprint", "weights", "answers"]
    for cpu in EMULATED:
        assert probe(qemu, "-cpu", cpu) == native, cpu
