"""The learner's fingerprint: what a fixed tiny training computes, recorded with every run.

Its purpose is to be equal exactly where two machines compute the same bits. So it must not
move with what the learner has pinned away (the thread count, MKL's instruction set, the core
type an AMD CPU would pick for OpenBLAS) and must move with what changes the numbers (torch's
kernel level, the precision).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.backends.cpu.fingerprint import fingerprint_instances, learner_fingerprint
from mapf_env import SIZES
from run_records import Precision, cpu_flags

ROOT = Path(__file__).resolve().parents[2]


def fingerprint(precision: Precision, threads: int) -> str:
    return learner_fingerprint(CpuBackend, precision, threads)


REFERENCE = {"2.13.0+cpu": "db74825b55b7edcc"}
"""The fp32 fingerprint by torch version on x86-64 CPUs with AVX2 and FMA: an AMD EPYC with
AVX-512 (Zen 4) computes it natively, and an Intel Haswell and an AMD EPYC-Rome under
emulation (`tests/harness/test_cross_cpu.py`, which CI runs). An x86-64 CPU that prints another
one does not compute what this project's figures were computed with."""


def test_instances_span_every_size() -> None:
    sizes = [i.size for i in fingerprint_instances()]
    assert sorted(set(sizes)) == list(SIZES) and len(sizes) == 2 * len(SIZES)


def test_fp32_fingerprint_is_the_same_on_any_thread_count() -> None:
    prints = {fingerprint("fp32", threads) for threads in (1, 2, 3)}
    assert len(prints) == 1, prints


def test_fingerprint_leaves_the_process_as_it_was() -> None:
    torch.set_num_threads(1)
    state = torch.random.get_rng_state()
    try:
        learner_fingerprint.cache_clear()
        fingerprint("fp32", 2)
        assert torch.get_num_threads() == 1
        assert torch.equal(torch.random.get_rng_state(), state)
    finally:
        torch.set_num_threads(2)


def test_precisions_fingerprint_apart() -> None:
    assert fingerprint("fp32", 2) != fingerprint("bf16", 2)


def test_the_backend_records_it() -> None:
    machine = CpuBackend(CpuLearnerSettings(threads=2)).machine()
    assert machine.fingerprint == fingerprint("fp32", 2)
    assert machine.products is not None and machine.products.startswith("OpenBLAS ")
    assert machine.pool_key() == {"fingerprint": machine.fingerprint}
    bf16 = CpuBackend(CpuLearnerSettings(threads=2, precision="bf16")).machine()
    assert bf16.products is None
    assert bf16.pool_key() == {"fingerprint": bf16.fingerprint, "threads": 2}


def _fingerprint_in_a_fresh_process(**env: str) -> str:
    code = (
        "import harness.backends.cpu\n"
        "from harness.backends.cpu.fingerprint import learner_fingerprint\n"
        "from harness.backends.cpu import CpuBackend\n"
        "print(learner_fingerprint(CpuBackend, 'fp32', 2))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


AVX2 = {"avx2", "fma"} <= set(cpu_flags()) and platform.machine() in ("x86_64", "AMD64")


@pytest.mark.skipif(not AVX2, reason="the pinned kernels are x86-64 AVX2 ones")
def test_fp32_fingerprint_ignores_what_differs_between_cpus() -> None:
    """MKL limited to older instruction sets (as on an older or other vendor's CPU) and
    OpenBLAS told it runs on a Zen (AMD's type, which picks Haswell's kernels itself) compute
    the same bits; torch's kernel level, which the learner pins to AVX2 on every such CPU,
    is the control: unpinned, the fingerprint moves."""
    here = fingerprint("fp32", 2)
    for env in ({"MKL_ENABLE_INSTRUCTIONS": "SSE4_2"}, {"MKL_ENABLE_INSTRUCTIONS": "AVX2"},
                {"OPENBLAS_CORETYPE": "Zen"}):  # fmt: skip
        assert _fingerprint_in_a_fresh_process(**env) == here, env
    assert _fingerprint_in_a_fresh_process(ATEN_CPU_CAPABILITY="default") != here


@pytest.mark.skipif(
    not AVX2 or torch.__version__ not in REFERENCE,
    reason=f"the reference is for x86-64 AVX2 CPUs with torch {', '.join(REFERENCE)}",
)
def test_fp32_fingerprint_is_the_reference() -> None:
    assert fingerprint("fp32", 2) == REFERENCE[torch.__version__]
