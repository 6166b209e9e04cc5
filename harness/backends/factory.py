"""The backend an experiment names, built in the process that will use it."""

from __future__ import annotations

from harness.backends.base import Backend
from harness.experiment import ExperimentConfig


class BackendUnavailable(RuntimeError):
    """The experiment names a backend this installation cannot run."""


def make_backend(experiment: ExperimentConfig, threads: int | None = None) -> Backend:
    """A fresh backend for `experiment` (its policy is created by `initialise` or `load`)."""
    if experiment.backend == "cpu":
        from harness.backends.cpu import CpuBackend, CpuLearnerSettings

        settings = CpuLearnerSettings(
            group_size=experiment.grpo.group_size,
            lr=experiment.grpo.learning_rate,
            kl_coef=experiment.grpo.kl_coef,
            threads=threads,
        )
        return CpuBackend(settings)
    raise BackendUnavailable(
        f"backend {experiment.backend!r} is not available in this installation yet; "
        "use backend: cpu"
    )
