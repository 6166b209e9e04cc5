"""``harness compare --dry-run``: each run as the loop would begin it, and what it would launch.

One driver: every run is begun by the loop's own `start_run` (its designer built with the
entry's options and variant, its round-0 configuration, shared or the designer's own), and the
backend's spec says what that round would launch (`BackendSpec.dry_run`; verl prints every
command, the disk budget and the overhead per round). A backend that trains inside this process
launches nothing, and the dry run lists its runs. Nothing is started or written.
"""

from __future__ import annotations

from pathlib import Path

from designers import backend_endpoints
from harness.backends.spec import RoundZero
from harness.executors.base import Job, plan
from harness.experiment import ExperimentConfig
from harness.loop import round_seed, shared_start, start_run
from harness.run_dir import RunDir

__all__ = ["dry_run", "round_zero"]


def dry_run(
    experiment: ExperimentConfig, root: Path, *, concurrent: int, ray_address: str | None
) -> str:
    """The dry run's text; `concurrent` runs at once (the disk budget's peak counts them)."""
    spec = experiment.backend_spec
    runs = [round_zero(experiment, root, job, serves_models=spec.serves_models)
            for job in plan(experiment)]  # fmt: skip
    if spec.dry_run is not None:
        planned = spec.dry_run(experiment, runs, concurrent=concurrent, ray_address=ray_address)
        return task_line(experiment) + planned
    lines = [
        task_line(experiment).rstrip("\n"),
        f"# dry run of {experiment.name!r}: backend {experiment.backend} trains inside the "
        "harness process; it launches no commands. Runs:",
        *(f"{run.designer} / seed {run.seed}" for run in runs),
    ]
    return "\n".join(lines) + "\n"


def task_line(experiment: ExperimentConfig) -> str:
    """What every run is trained and judged on, first: the task's id, and its suites."""
    task = experiment.task_object
    benchmarks = ", ".join(experiment.benchmarks) or "none"
    return (f"# task {task.id}; suite after every round: {experiment.validation or 'none'}; "
            f"at the end: {benchmarks}\n")  # fmt: skip


def round_zero(
    experiment: ExperimentConfig, root: Path, job: Job, *, serves_models: bool
) -> RoundZero:
    """Run `job` as the loop begins it, without checking the designer's readiness (keys,
    servers): a designer that cannot be built here still shows its run, from the shared start."""
    run = RunDir(root, experiment, job.designer, job.seed)
    try:
        designer, config, own = start_run(experiment, job.designer, job.seed,
                                          serves_models=serves_models, ready=False)  # fmt: skip
        start, wanted = (
            ("the designer's own start" if own else "shared start"),
            backend_endpoints(designer),
        )
    except Exception as err:  # a plug-in that cannot be built here still shows its commands
        config, wanted = shared_start(experiment, job.seed), ()
        start = f"shared start (designer {job.designer!r} not built here: {err})"
    return RoundZero(
        designer=job.designer,
        seed=job.seed,
        run_path=run.path,
        config_file=run.round_path(0) / "config.yaml",
        config=config,
        config_yaml=experiment.task_object.config_yaml(config),
        start=start,
        wanted=wanted,
        train_seed=round_seed(job.seed, 0, "train"),
        eval_seed=round_seed(job.seed, 0, "eval"),
    )
