"""The cpu backend's machine checks, for `harness doctor` and preflight (its spec's hook).

The learner trains inside the harness process on this machine's CPUs, so only two things of
the machine can stop it: this interpreter's torch, and free disk for what its runs write.
Nothing here touches a GPU or the network.
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.byte_sizes import size
from harness.doctor.disk import unmeasured
from harness.doctor.findings import Finding, fail, ok
from harness.doctor.probes import Probe, PythonFacts
from harness.experiment import ExperimentConfig

__all__ = ["CPU_RUN_BYTES", "cpu_disk_findings", "machine_findings", "torch_findings"]

CPU_RUN_BYTES = 50_000_000
"""A cpu-backend run writes its records, policy state and logs: a few MB; 50 MB leaves room."""


def machine_findings(
    experiment: ExperimentConfig, probe: Probe, *, root: Path, **_: object
) -> list[Finding]:
    """This interpreter's torch and the free disk under `root`; the hook's other options (a
    Ray cluster, a runtime, serving, a parameter count) concern backends that train on GPUs."""
    free, where = probe.free_disk(root)
    runs = len(experiment.designers) * len(experiment.seeds)
    return [
        ok(
            "gpus",
            f"backend {experiment.backend} trains in this process: the GPU, CUDA, "
            "memory, model and Ray checks do not apply",
        ),
        *torch_findings(probe.python(sys.executable, cuda=False, packages=("torch",))),
        *cpu_disk_findings(free, where, runs),
    ]


def torch_findings(facts: PythonFacts) -> list[Finding]:
    """The cpu backend trains with this interpreter's torch."""
    version = facts.packages.get("torch")
    if version is None:
        return [
            fail(
                "packages",
                f"torch is not installed for {facts.python}",
                "pip install -e .  (the project pins torch)",
            )
        ]
    return [ok("packages", f"torch {version} in {facts.python} (the cpu backend trains here)")]


def cpu_disk_findings(free: int | None, where: Path, runs: int) -> list[Finding]:
    """Free disk against `runs` runs' allowance (`CPU_RUN_BYTES` each)."""
    if free is None:
        return [unmeasured(where)]
    need = CPU_RUN_BYTES * runs
    text = f"{size(free)} free at {where}; {runs} cpu run(s) write a few MB each"
    if free >= need:
        return [ok("disk", text)]
    return [fail("disk", f"{text} (allow {size(need)})", "free space or choose another --out")]
