"""The ``trl`` backend's declaration: GRPO with TRL on a Hugging Face model, on one GPU or a CPU.

Its section (``trl:``) is `TrlSettings`. A run holds its device (the GPU, or every core of the
CPU), so the local executor runs them one at a time; on a Ray cluster a run reserves one GPU
(none on ``device: cpu``). It serves the current and the base checkpoint to the designers that
read them (``transformers serve``). Nothing here imports TRL, transformers or torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from harness.backends.policy_names import language_model_problems
from harness.backends.spec import BackendSpec, Resources, RoundZero
from harness.backends.trl.settings import TrlSettings

if TYPE_CHECKING:
    from harness.backends.trl.backend import TrlBackend
    from harness.experiment import ExperimentConfig

__all__ = ["SPEC"]


def build(
    experiment: ExperimentConfig,
    *,
    threads: int | None = None,
    workdir: Path | None = None,
    ray_address: str | None = None,
) -> TrlBackend:
    """A trl backend keeping its models and logs under ``workdir/trl/``."""
    if workdir is None:
        raise ValueError("the trl backend needs a working directory (the run directory)")
    check_installed(experiment, ray_address)
    from harness.backends.trl.backend import TrlBackend

    return TrlBackend(experiment, workdir, threads=threads)


def resources(settings: BaseModel | None) -> Resources:
    s = settings if isinstance(settings, TrlSettings) else TrlSettings()
    return Resources(cpus=1, gpus=0 if s.device == "cpu" else 1)


def config_problems(policy: str, precision: str) -> list[str]:
    return language_model_problems("trl", policy, precision, "its own section (trl.dtype)")


def check_installed(experiment: ExperimentConfig, ray_address: str | None) -> None:
    from harness.backends.trl.install import check_installed as check

    s = experiment.settings_of(TrlSettings)
    check(engine_vllm="vllm" in (s.engine, s.serve_engine))


def disk_per_run(experiment: ExperimentConfig) -> int | None:
    from harness.backends.trl.plan import run_disk

    return run_disk(experiment)


def machine_findings(experiment: ExperimentConfig, probe: Any, **options: Any) -> list[Any]:
    from harness.backends.trl.plan import machine_findings as findings

    return findings(experiment, probe, **options)


def dry_run(
    experiment: ExperimentConfig, runs: list[RoundZero], *, concurrent: int, ray_address: str | None
) -> str:
    from harness.backends.trl.plan import dry_run as describe

    return describe(experiment, runs, concurrent=concurrent, ray_address=ray_address)


SPEC = BackendSpec(
    name="trl",
    tasks=None,  # prompts, reward and judging come from the experiment's task
    description="GRPO with TRL's GRPOTrainer on a Hugging Face model, one GPU or a CPU; "
    "serves checkpoints with transformers serve",
    build=build,
    settings=TrlSettings,
    serves_models=True,
    shares_machine=False,
    resources=resources,
    config_problems=config_problems,
    check_installed=check_installed,
    machine_findings=machine_findings,
    disk_per_run=disk_per_run,
    dry_run=dry_run,
)
