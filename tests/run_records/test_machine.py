"""Precision and machine records: bf16 is asked for, never inferred; what was in effect is read
back from torch and MKL, never assumed."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Iterator

import pytest
import torch
from pydantic import ValidationError

from harness.backends.cpu import CpuLearnerSettings
from harness.backends.cpu.policy import AgentPolicy
from harness.backends.cpu.rollout import autocast, rollout
from mapf_env import load_suite
from run_records import current_machine, machine, over_rounds
from run_records.machine import RECORDED_VARIABLES

DESCRIBE = (
    "from harness.backends.cpu import CpuBackend, CpuLearnerSettings; "
    "print(CpuBackend(CpuLearnerSettings(threads=1, hidden=(8,))).machine().model_dump_json())"
)
X86 = platform.machine().lower() in ("x86_64", "amd64")


def describe(**env: str) -> dict[str, object]:
    """A fresh process's machine record, with the variables that choose kernels replaced by
    `env`: a machine or CI may set some of them (``OPENBLAS_CORETYPE``, say), and the record
    would name them."""
    base = {k: v for k, v in os.environ.items() if k not in RECORDED_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-c", DESCRIBE], env={**base, **env}, capture_output=True, text=True,
        check=True, timeout=120,
    )  # fmt: skip
    record: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return record


@pytest.mark.skipif(not X86, reason="the pinned kernels are x86 ones")
def test_kernels_are_pinned_and_what_ran_is_read_back() -> None:
    pinned = describe()
    assert pinned["environment"] == {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "COMPATIBLE"}
    assert pinned["cpu_capability"] in ("AVX2", "DEFAULT")  # never AVX512
    # COMPATIBLE is the branch MKL honours on Intel and AMD CPUs alike (run_records/machine.py).
    assert pinned["mkl_branch"] == "COMPATIBLE"
    assert str(pinned["products"]).startswith("OpenBLAS ")
    chosen = describe(ATEN_CPU_CAPABILITY="default", MKL_CBWR="AUTO")
    assert chosen["environment"] == {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "AUTO"}
    assert chosen["cpu_capability"] == "DEFAULT" and chosen["mkl_branch"] == "AUTO"
    assert chosen["precision"] == "fp32" and chosen["threads"] == 1
    assert chosen["fingerprint"] != pinned["fingerprint"]  # other kernels, another computation


def test_a_run_resumed_elsewhere_is_fingerprinted_mixed() -> None:
    here = current_machine("fp32", 2, fingerprint="aaaa")
    assert over_rounds(here, ["aaaa", None, "aaaa"]) == here
    mixed = over_rounds(here, ["bbbb", "aaaa"])
    assert mixed.fingerprint == "mixed aaaa,bbbb"
    assert mixed.pool_key() != here.pool_key()
    unknown = current_machine("fp32", 2)
    assert over_rounds(unknown, ["bbbb"]) == unknown


def test_pool_key_is_the_fingerprint_where_there_is_one() -> None:
    """Runs that computed the same pool whatever their CPUs' names; without a fingerprint the
    record's flags and versions are all there is to go by."""
    a = current_machine("fp32", 1, fingerprint="f00d")
    b = a.model_copy(update={"cpu_model": "AMD EPYC", "cpu_flags": ("avx2", "fma"), "threads": 8})
    assert a.pool_key() == b.pool_key() == {"fingerprint": "f00d"}
    bf16 = current_machine("bf16", 1, fingerprint="beef")
    assert bf16.pool_key() == {"fingerprint": "beef", "threads": 1}
    old = current_machine("fp32", 1)
    assert {"torch", "CPU capability", "MKL branch", "threads"} <= set(old.pool_key())


@pytest.fixture
def cpuinfo(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Replace /proc/cpuinfo with the text put in the yielded list."""
    text: list[str] = []
    monkeypatch.setattr(machine, "_cpuinfo", lambda: "\n".join(text))
    for cached in (machine.cpu_flags, machine.cpu_model):
        cached.cache_clear()
    yield text
    for cached in (machine.cpu_flags, machine.cpu_model):
        cached.cache_clear()


def test_cpu_features_decide_only_what_bf16_is_called(cpuinfo: list[str]) -> None:
    cpuinfo[:] = ["model name\t: Xeon", "flags\t\t: fpu avx avx2 avx512f amx_tile amx_bf16"]
    assert machine.cpu_flags() == ("avx2", "avx512f", "amx_tile", "amx_bf16")
    native = current_machine("bf16", 3)
    assert native.bf16_kernels == "native" and native.cpu_model == "Xeon" and native.threads == 3
    assert current_machine("fp32", 3).bf16_kernels is None
    machine.cpu_flags.cache_clear()
    cpuinfo[1] = "flags\t\t: fpu avx avx2"
    assert current_machine("bf16", 3).bf16_kernels == "emulated"
    assert current_machine("bf16", 3).pool_key() != native.pool_key()


def test_a_bf16_flag_is_refused_as_every_unknown_key_is() -> None:
    """The float format is `precision` alone: a `bf16` key is not read as one, on any CPU."""
    for key, value in (("bf16", True), ("bf16", False), ("bogus", 1)):
        with pytest.raises(ValidationError) as caught:
            CpuLearnerSettings.model_validate({key: value})
        (error,) = caught.value.errors()
        assert (error["type"], error["loc"]) == ("extra_forbidden", (key,))
    assert CpuLearnerSettings.model_validate({"precision": "bf16"}).precision == "bf16"


def test_bf16_computes_in_bf16_on_any_cpu() -> None:
    """bf16 means bf16 whether or not the CPU has it natively; fp32 never autocasts."""
    policy = AgentPolicy(7, (32,))
    instances = [item.instance for item in load_suite("validation").items[:8]]
    kept = {}
    for precision in ("fp32", "bf16"):
        ro = rollout(
            policy, instances, samples=2, greedy=False, record=True, window=7,
            generator=torch.Generator().manual_seed(0), horizon_factor=2.0, precision=precision,
        )  # fmt: skip
        kept[precision] = ro.steps[0].kept
        with autocast(precision):
            assert torch.is_autocast_enabled("cpu") == (precision == "bf16")
            product = torch.ones(4, 4) @ torch.ones(4, 4)
        assert product.dtype == (torch.bfloat16 if precision == "bf16" else torch.float32)
    assert {x.dtype for x in kept["bf16"].inputs} == {torch.bfloat16}
    assert {x.dtype for x in kept["fp32"].inputs} == {torch.float32}
    assert kept["bf16"].logits.dtype == kept["fp32"].logits.dtype == torch.float32
    assert not torch.equal(kept["bf16"].logits, kept["fp32"].logits)


def test_settings_take_an_explicit_precision() -> None:
    assert CpuLearnerSettings().precision == "fp32"
    with pytest.raises(ValueError, match="precision"):
        CpuLearnerSettings.model_validate({"precision": "fp16"})
