"""The ``cpu`` backend's declaration: the MLP learner, trained by GRPO inside the harness process.

Its knobs are the experiment's `grpo`, `policy` and `precision`, and its own ``cpu:`` section
(`CpuSection`: how its agents decide, its batch).
Its runs share a machine (one per core by default), reserve one CPU each on a Ray cluster, and
serve no model to designers. Of the machine, `harness doctor` checks its torch and free disk
(`harness.backends.cpu.doctor`, imported when the hook runs).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.backends.cpu.section import CpuSection
from harness.backends.policy_names import CPU_POLICIES
from harness.backends.spec import BackendSpec
from run_records import describe_machine

if TYPE_CHECKING:
    from harness.backends.cpu.backend import CpuBackend
    from harness.experiment import ExperimentConfig

__all__ = ["SPEC"]


def build(
    experiment: ExperimentConfig,
    *,
    threads: int | None = None,
    workdir: Path | None = None,
    ray_address: str | None = None,
) -> CpuBackend:
    """A fresh CPU learner with the experiment's GRPO settings (it writes no files of its own)."""
    from harness.backends.cpu import CpuBackend, CpuLearnerSettings
    from tasks.mapf_frozenlake import reward_config

    section = experiment.settings_of(CpuSection)
    settings = CpuLearnerSettings(
        group_size=experiment.grpo.group_size,
        lr=experiment.grpo.learning_rate,
        kl_coef=experiment.grpo.kl_coef,
        precision=experiment.precision,
        actions=CPU_POLICIES[experiment.policy],
        threads=threads,
        reward=reward_config(experiment.task_settings),
        decide=section.decide,
        priority=section.priority,
        batch_size=section.batch_size,
    )
    return CpuBackend(settings)


def config_problems(policy: str, precision: str) -> list[str]:
    if policy not in CPU_POLICIES:
        return [
            f"policy {policy!r} is not a CPU learner; backend cpu trains "
            f"{' or '.join(map(repr, CPU_POLICIES))} (a Hugging Face model needs backend trl "
            "or verl)"
        ]
    return []


def disk_per_run(experiment: ExperimentConfig) -> int:
    """The same allowance per run that preflight's disk check asks for."""
    from harness.backends.cpu.doctor import CPU_RUN_BYTES

    return CPU_RUN_BYTES


def machine_findings(experiment: ExperimentConfig, probe: Any, **options: Any) -> list[Any]:
    from harness.backends.cpu.doctor import machine_findings as findings

    return findings(experiment, probe, **options)


def fingerprint(experiment: ExperimentConfig, threads: int) -> str:
    """The learner's fingerprint here and what it ran on, in one line (`harness doctor`)."""
    from harness.backends.cpu.backend import CpuBackend
    from harness.backends.cpu.fingerprint import learner_machine

    return describe_machine(learner_machine(CpuBackend, experiment.precision, threads))


SPEC = BackendSpec(
    name="cpu",
    tasks=("mapf-frozenlake",),  # its MLP reads MAPF-FrozenLake's grids and moves, not text
    description="the MLP learner, trained by GRPO on this machine's CPUs (no GPU, no model files)",
    build=build,
    settings=CpuSection,
    section_when_default=False,
    config_problems=config_problems,
    machine_findings=machine_findings,
    disk_per_run=disk_per_run,
    fingerprint=fingerprint,
)
