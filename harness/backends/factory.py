"""The backend an experiment names, built in the process that will use it."""

from __future__ import annotations

from pathlib import Path

from harness.backends.base import Backend, BackendUnavailable
from harness.experiment import CPU_POLICIES, ExperimentConfig

__all__ = ["BackendUnavailable", "backend_serves_models", "check_backend", "make_backend"]


def backend_class(name: str) -> type:
    """The class of backend `name`, imported only now (verl's module is heavy)."""
    if name == "cpu":
        from harness.backends.cpu import CpuBackend

        return CpuBackend
    if name == "verl":
        from harness.backends.verl.backend import VerlBackend

        return VerlBackend
    raise BackendUnavailable(
        f"backend {name!r} is not available in this installation; use backend: cpu or verl"
    )


def backend_serves_models(name: str) -> bool:
    """Whether backend `name` serves its checkpoints to designers (`self`, `base`): a class
    says so with ``serves_models = True``."""
    return bool(getattr(backend_class(name), "serves_models", False))


def check_backend(experiment: ExperimentConfig, ray_address: str | None = None) -> None:
    """`BackendUnavailable` (naming the extra) when the experiment's backend cannot run here."""
    backend_class(experiment.backend)
    if experiment.backend == "verl":
        from harness.backends.verl.runtime import VerlRuntime

        VerlRuntime(ray_address=ray_address).check_installed()


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
            precision=experiment.precision,
            actions=CPU_POLICIES[experiment.policy],
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
