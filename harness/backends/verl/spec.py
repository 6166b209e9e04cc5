"""The ``verl`` backend's declaration: GRPO on GPUs with verl, answers and serving with vLLM.

Its section (``verl:``) is `VerlSettings`, the paper's recipe by default. Its runs hold a
machine's GPUs, so the local executor runs them one at a time; on a Ray cluster a run reserves
``verl.n_gpus_per_node`` GPUs on one node. It serves the current and the base checkpoint to the
designers that read them, and with the local executor ``--ray-address`` submits each training
round to that cluster as a job. Nothing here imports verl or vLLM; the runtime that checks and
launches them is looked up when a hook runs (tests put stand-ins in its place).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from harness.backends.policy_names import language_model_problems
from harness.backends.spec import BackendSpec, Resources, RoundZero
from harness.backends.verl.settings import VerlSettings

if TYPE_CHECKING:
    from harness.backends.verl.backend import VerlBackend
    from harness.experiment import ExperimentConfig

__all__ = ["SPEC"]


def build(
    experiment: ExperimentConfig,
    *,
    threads: int | None = None,
    workdir: Path | None = None,
    ray_address: str | None = None,
) -> VerlBackend:
    """A verl backend keeping its datasets, checkpoints and logs under ``workdir/verl/``."""
    from harness.backends.verl.backend import VerlBackend
    from harness.backends.verl.runtime import VerlRuntime

    if workdir is None:
        raise ValueError("the verl backend needs a working directory (the run directory)")
    backend = VerlBackend(experiment, workdir, VerlRuntime(ray_address=ray_address))
    backend.check_installed()
    return backend


def resources(settings: BaseModel | None) -> Resources:
    """One node's GPUs per run (the paper's recipe: 4), one CPU to schedule it."""
    s = settings if isinstance(settings, VerlSettings) else VerlSettings()
    if s.nnodes > 1:
        raise ValueError(
            f"verl.nnodes is {s.nnodes}: a Ray task trains on one node; train across nodes by "
            "submitting rounds as Ray jobs (--executor local --ray-address http://head:8265)"
        )
    return Resources(cpus=1, gpus=s.n_gpus_per_node)


def config_problems(policy: str, precision: str) -> list[str]:
    return language_model_problems("verl", policy, precision, "its own section")


def task_problem(task: Any) -> str | None:
    from harness.backends.verl.task_feed import feed_problem

    return feed_problem(task)


def check_installed(experiment: ExperimentConfig, ray_address: str | None) -> None:
    from harness.backends.verl.runtime import VerlRuntime

    VerlRuntime(ray_address=ray_address).check_installed()


def dry_run(
    experiment: ExperimentConfig,
    runs: list[RoundZero],
    *,
    concurrent: int,
    ray_address: str | None,
) -> str:
    from harness.backends.verl.dry_run import dry_run as describe
    from harness.backends.verl.runtime import VerlRuntime

    return describe(experiment, runs, VerlRuntime(ray_address=ray_address), concurrent=concurrent)


def disk_per_run(experiment: ExperimentConfig) -> int | None:
    """One run's peak from the disk budget (`footprint.disk_budget`), when the model's size
    is known from local files; None otherwise."""
    from harness.backends.verl.footprint import (
        checkpoint_footprint,
        disk_budget,
        model_size,
        stated_size,
    )
    from harness.backends.verl.settings import verl_section

    found = stated_size(model_size(experiment.policy), verl_section(experiment))
    if found.params is None:
        return None
    try:
        footprint = checkpoint_footprint(found.params, verl_section(experiment))
        return disk_budget(experiment, footprint, runs=1).run_peak
    except ValueError:  # batches that do not work out: preflight has said so already
        return None


def machine_findings(experiment: ExperimentConfig, probe: Any, **options: Any) -> list[Any]:
    from harness.backends.verl.doctor import machine_findings as findings

    return findings(experiment, probe, **options)


SPEC = BackendSpec(
    name="verl",
    tasks=None,  # any task whose items travel as text to its reward workers (task_problem)
    task_problem=task_problem,
    description="GRPO on GPUs with verl, answers and serving with vLLM (the paper's recipe); "
    "a task's items reach its reward workers as text (tasks.ItemCodec)",
    build=build,
    settings=VerlSettings,
    serves_models=True,
    shares_machine=False,
    submits_rounds_to_ray=True,
    resources=resources,
    config_problems=config_problems,
    check_installed=check_installed,
    machine_findings=machine_findings,
    disk_per_run=disk_per_run,
    dry_run=dry_run,
)
