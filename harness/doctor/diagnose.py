"""Every check of an experiment against a machine, in the order a first round meets them.

`diagnose` asks the probe only for what the experiment's backend needs, and knows no backend:
each names its own machine checks in its spec (`BackendSpec.machine_findings`), in its own
folder. verl's check the GPUs, CUDA, memory, packages, attention, the model, disk, Ray and
ports, asking the hub only when the model is not fully on disk and HF_HUB_OFFLINE is unset, and
a Ray address only when one is given; cpu's, for a learner in this process, only its torch and
disk, touching no GPU and no network. A backend that names none gets no machine checks. The
learner's fingerprint (where the backend computes one) and the designers' names, options and
keys are checked for every backend.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.designer_checks import designer_problems, serves_models
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
    out: list[Finding] = []
    if spec.machine_findings is not None:
        out = spec.machine_findings(
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
