"""No CPU learner run computes a float with MKL, whose results depend on the CPU's vendor.

The guard (`forbid_vendor_kernels`) must catch what it lists, and a whole small run of each
policy (training with sampled rollouts, greedy and sampled answers, the suites, the teachers'
designs, the fingerprint) must call none of it. Emulated CPUs check what the guard cannot see
(`test_cross_cpu.py`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from harness.backends.cpu import VendorKernelCalled, forbid_vendor_kernels
from harness.backends.cpu.vendor_kernels import BLAS, VECTOR_MATH
from harness.backends.factory import make_backend
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir


@pytest.mark.parametrize("name", sorted(VECTOR_MATH))
def test_each_vector_math_function_is_refused_by_name(name: str) -> None:
    x = torch.rand(64) * 0.5 + 0.25  # inside every function's domain
    for call in (lambda: getattr(torch, name)(x), lambda: getattr(x.clone(), f"{name}_")()):
        with forbid_vendor_kernels(), pytest.raises(VendorKernelCalled, match=f"aten.{name}"):
            call()


def test_the_other_routes_to_mkl_are_refused() -> None:
    a = torch.rand(4, 4)
    calls = {
        "aten.mm": lambda: a @ a,
        "aten.pow": lambda: a.pow(0.5),
        "aten._foreach_sqrt": lambda: torch._foreach_sqrt([a]),
        "aten.exp": lambda: torch.exp(a.double()),
    }
    assert {"mm", "addmm", "bmm"} <= BLAS
    for name, call in calls.items():
        with forbid_vendor_kernels(), pytest.raises(VendorKernelCalled, match=name):
            call()


def test_what_mkl_does_not_compute_passes() -> None:
    """bf16 (oneDNN and ATen's own code), integers, softmax and other powers are not MKL's."""
    a = torch.rand(8, 8)
    with forbid_vendor_kernels():
        torch.exp(a.bfloat16())
        torch.softmax(a, -1)
        torch.log_softmax(a, -1)
        a.pow(2)
        a.bfloat16() @ a.bfloat16()
        torch.arange(4) * 3


TINY = {
    "name": "tiny",
    "rounds": 2,
    "samples_per_round": 48,
    "epochs_per_round": 1,
    "validation": "validation",
    "benchmarks": ["validation"],
    "best_of": 2,
}


@pytest.mark.parametrize(
    ("policy", "designer"), [("mlp", "learning-progress"), ("mlp-free", "regret")]
)
def test_a_learner_run_calls_no_vendor_kernel(tmp_path: Path, policy: str, designer: str) -> None:
    experiment = ExperimentConfig.from_mapping({**TINY, "policy": policy})
    backend = make_backend(experiment, threads=1)
    with forbid_vendor_kernels():
        record = run_designer(
            experiment, designer, 0, backend, RunDir(tmp_path, experiment, designer, 0),
            resume=False, workers=1,
        )  # fmt: skip
    assert len(record.rounds) == 2 and record.suites["validation"].best_of is not None
