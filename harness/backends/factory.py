"""The backend an experiment names, built in the process that will use it (through its spec)."""

from __future__ import annotations

from pathlib import Path

from harness.backends.base import Backend, BackendUnavailable
from harness.backends.registry import backend_spec
from harness.experiment import ExperimentConfig

__all__ = ["BackendUnavailable", "backend_serves_models", "check_backend", "make_backend"]


def backend_serves_models(name: str) -> bool:
    """Whether backend `name` serves its checkpoints to designers (`self`, `base`)."""
    return backend_spec(name).serves_models


def check_backend(experiment: ExperimentConfig, ray_address: str | None = None) -> None:
    """`BackendUnavailable` (naming the extra) when the experiment's backend cannot run here."""
    experiment.backend_spec.check_installed(experiment, ray_address)


def make_backend(
    experiment: ExperimentConfig,
    threads: int | None = None,
    *,
    workdir: Path | None = None,
    ray_address: str | None = None,
) -> Backend:
    """A fresh backend for `experiment` (its policy is created by `initialise` or `load`).

    `workdir` is the run directory (a backend keeps its own files under it, verl its
    datasets, checkpoints and logs under ``workdir/verl/``); `ray_address` goes to a backend
    that submits its training rounds to that Ray cluster as jobs.
    """
    spec = experiment.backend_spec
    return spec.build(experiment, threads=threads, workdir=workdir, ray_address=ray_address)
