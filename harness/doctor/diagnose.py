"""Every check of an experiment against a machine, in the order a first round meets them.

`diagnose` asks the probe only for what the experiment's backend needs. A backend's spec names
its own machine checks (`BackendSpec.machine_findings`; verl's, in its folder, check the GPUs,
CUDA, memory, packages, attention, the model, disk, Ray and ports, asking the hub only when the
model is not fully on disk and HF_HUB_OFFLINE is unset, and a Ray address only when one is
given). A backend that names none trains in this process: only its disk and its torch are
checked, and nothing touches a GPU or the network. The designers' names, options and keys are
checked for every backend.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from harness.designer_checks import designer_problems, serves_models
from harness.doctor import software, storage
from harness.doctor.findings import Finding, fail, ok
from harness.doctor.probes import Probe
from harness.executors.local import available_cores
from harness.experiment import ExperimentConfig

__all__ = ["TOPICS", "diagnose"]

TOPICS = (
    "cuda",
    "gpus",
    "gpu memory",
    "packages",
    "attention",
    "model",
    "disk",
    "ray",
    "ports",
    "reproducibility",
    "designers",
)


def diagnose(
    experiment: ExperimentConfig,
    probe: Probe,
    *,
    root: Path,
    ray_address: str | None = None,
    runtime: object | None = None,
    params: int | None = None,
    resume: bool = False,
    skip: tuple[str, ...] = (),
    concurrent: int = 1,
) -> list[Finding]:
    """The findings about running `experiment` here with its output under `root`.

    `skip` leaves topics out: preflight checks the designers itself, and leaves the packages
    to the backend's own check when that already failed. `params` gives the model's parameter
    count where no local copy tells it; `concurrent` runs at once (each holding its round's
    checkpoints) set the disk budget's peak. `ray_address` is the cluster training is submitted
    to; `runtime` fixes the backend's own runtime instead (verl: its `VerlRuntime`).
    """
    spec = experiment.backend_spec
    machine_findings = spec.machine_findings
    if machine_findings is None:
        out = _in_process(experiment, probe, root)
    else:
        out = machine_findings(
            experiment, probe, root=root, ray_address=ray_address, runtime=runtime,
            serving=serves_models(experiment), params=params, resume=resume,
            concurrent=concurrent,
        )  # fmt: skip
    if spec.fingerprint is not None and "reproducibility" not in skip:
        out.append(fingerprint_finding(experiment, spec.fingerprint, concurrent))
    if "designers" not in skip:
        out += designer_findings(experiment)
    return [f for f in out if f.topic not in skip]


def fingerprint_finding(
    experiment: ExperimentConfig, fingerprint: Callable[[ExperimentConfig, int], str], runs: int
) -> Finding:
    """The learner's fingerprint on the threads each of `runs` runs at once would get: two
    machines that print the same one compute the same numbers for the same seed."""
    threads = max(1, available_cores() // max(1, runs))
    try:
        line = fingerprint(experiment, threads)
    except Exception as exc:  # the learner could not compute here: say why, in one line
        return fail("reproducibility", f"the learner's fingerprint could not be computed: {exc}",
                    "pip install -e . installs what the learner needs")  # fmt: skip
    return ok(
        "reproducibility",
        f"{line}; machines that print the same fingerprint compute the same numbers",
    )


def _in_process(experiment: ExperimentConfig, probe: Probe, root: Path) -> list[Finding]:
    free, where = probe.free_disk(root)
    runs = len(experiment.designers) * len(experiment.seeds)
    return [
        ok(
            "gpus",
            f"backend {experiment.backend} trains in this process: the GPU, CUDA, "
            "memory, model and Ray checks do not apply",
        ),
        *software.torch_findings(probe.python(sys.executable, cuda=False)),
        *storage.cpu_disk_findings(free, where, runs),
    ]


def designer_findings(experiment: ExperimentConfig) -> list[Finding]:
    """The designers' names, options and keys, by preflight's own check."""
    lines = designer_problems(experiment, ready=True)
    if not lines:
        return [
            ok(
                "designers",
                f"{', '.join(experiment.designers)}: options valid, keys and servers ready",
            )
        ]
    return [fail("designers", line) for line in lines]
