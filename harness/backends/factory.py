"""The backend an experiment names, built in the process that will use it."""

from __future__ import annotations

from pathlib import Path

from harness.backends.base import Backend, BackendUnavailable
from harness.experiment import ExperimentConfig

__all__ = ["BackendUnavailable", "make_backend"]


def make_backend(
    experiment: ExperimentConfig,
    threads: int | None = None,
    *,
    workdir: Path | None = None,
    ray_address: str | None = None,
) -> Backend:
    """A fresh backend for `experiment` (its policy is created by `initialise` or `load`).

    `workdir` is the run directory: the verl backend keeps its datasets, verl checkpoints and
    logs under ``workdir/verl/``. `ray_address` (verl only) submits every training round as a
    job to that Ray cluster instead of letting verl start a Ray instance of its own.
    """
    if experiment.backend == "cpu":
        from harness.backends.cpu import CpuBackend, CpuLearnerSettings

        settings = CpuLearnerSettings(
            group_size=experiment.grpo.group_size,
            lr=experiment.grpo.learning_rate,
            kl_coef=experiment.grpo.kl_coef,
            threads=threads,
        )
        return CpuBackend(settings)
    if experiment.backend == "verl":
        from harness.backends.verl.backend import VerlBackend
        from harness.backends.verl.runtime import VerlRuntime

        if workdir is None:
            raise ValueError("the verl backend needs a working directory (the run directory)")
        backend = VerlBackend(experiment, workdir, VerlRuntime(ray_address=ray_address))
        backend.check_installed()
        return backend
    raise BackendUnavailable(
        f"backend {experiment.backend!r} is not available in this installation; "
        "use backend: cpu or verl"
    )
