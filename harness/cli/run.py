"""`harness run` and `harness compare`: the train -> eval -> design loop from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from designers import DesignerNotReady, UnknownDesigner, designer_names
from harness.backends.factory import BackendUnavailable
from harness.cli.common import (
    CpusPerRunOption,
    DryRunOption,
    ExecutorOption,
    GpusPerRunOption,
    JsonOption,
    LoggerOption,
    OutOption,
    QuietOption,
    RayAddressOption,
    ResumeOption,
    SetOption,
    WorkersOption,
    fail,
)
from harness.cli.progress import ProgressView
from harness.compare import compare
from harness.executors import ExecutorUnavailable, RunOptions, RunsFailed, make_executor, plan
from harness.experiment import ExperimentConfig
from harness.run_dir import RunDirError
from harness.summary import comparison_table
from harness.tracking import LoggerUnavailable, check_loggers
from mapf_env import ConfigError

console = Console()
CHECKOUT_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def preset_path(preset: str) -> Path:
    """A preset name (configs/<name>.yaml, here or in the source checkout) or a file path."""
    for candidate in (Path(preset), Path("configs") / f"{preset}.yaml",
                      CHECKOUT_CONFIGS / f"{preset}.yaml"):  # fmt: skip
        if candidate.is_file():
            return candidate
    raise fail(f"no preset {preset!r}: give a YAML path or a name in configs/ (e.g. quick)")


def _experiment(config: Path, overrides: list[str]) -> ExperimentConfig:
    try:
        experiment = ExperimentConfig.load(config, overrides)
    except ConfigError as err:
        raise fail(str(err)) from None
    known = set(designer_names())
    for name in experiment.designers:
        if name.split(":")[0] not in known:
            raise fail(f"unknown designer {name!r}; `harness designers list` shows them")
    return experiment


class Where:
    """The run options every run command shares (output, executor, loggers, modes).

    `--ray-address` names the cluster of the Ray executor; with the local executor and backend
    verl it names the cluster each training round is submitted to as a Ray job.
    """

    def __init__(self, out: Path, resume: bool, loggers: list[str] | None, quiet: bool,
                 as_json: bool, *, executor: str, workers: int | None, ray_address: str | None,
                 cpus_per_run: float | None, gpus_per_run: float | None,
                 backend: str = "cpu") -> None:  # fmt: skip
        self.out, self.quiet, self.as_json = out, quiet, as_json
        submit_to = ray_address if executor == "local" and backend == "verl" else None
        self.options = RunOptions(resume=resume, loggers=tuple(loggers or ()),
                                  ray_address=submit_to)  # fmt: skip
        try:
            check_loggers(self.options.loggers)
            self.executor = make_executor(executor, workers=workers,
                                          ray_address=None if submit_to else ray_address,
                                          cpus_per_run=cpus_per_run,
                                          gpus_per_run=gpus_per_run)  # fmt: skip
        except (ExecutorUnavailable, LoggerUnavailable, ValueError) as err:
            raise fail(str(err)) from None


def dry_run(experiment: ExperimentConfig, out: Path, executor: str,
            ray_address: str | None) -> None:  # fmt: skip
    """Print what the runs would launch (verl: every command of round 0), run nothing."""
    if experiment.backend != "verl":
        print(f"# dry run of {experiment.name!r}: backend {experiment.backend} trains inside "
              f"the harness process; it launches no commands. Runs:")  # fmt: skip
        for job in plan(experiment):
            print(f"{job.designer} / seed {job.seed}")
        return
    from harness.backends.verl.dry_run import dry_run as verl_dry_run
    from harness.backends.verl.runtime import VerlRuntime

    submit_to = ray_address if executor == "local" else None
    try:
        print(verl_dry_run(experiment, out, VerlRuntime(ray_address=submit_to)), end="")
    except BackendUnavailable as err:
        raise fail(str(err)) from None


USER_ERRORS = (RunDirError, DesignerNotReady, UnknownDesigner, BackendUnavailable,
               LoggerUnavailable, ExecutorUnavailable)  # fmt: skip
"""Errors that mean the input was wrong: one line, no traceback."""


def _run(experiment: ExperimentConfig, where: Where) -> None:
    view = ProgressView(console, plan(experiment), experiment.rounds, quiet=where.quiet,
                        as_json=where.as_json)  # fmt: skip
    try:
        with view:
            records = compare(experiment, where.out, executor=where.executor,
                              options=where.options, on_event=view)  # fmt: skip
    except USER_ERRORS as err:
        raise fail(str(err)) from None
    except RunsFailed as err:
        if err.records and not where.as_json:
            console.print(comparison_table(list(err.records)))
        if all(isinstance(e, USER_ERRORS) for _, e in err.failures):
            raise fail(str(err)) from None
        raise
    if where.as_json:
        for r in records:
            print(json.dumps({"designer": r.designer, "seed": r.seed, "result": str(where.out)}))
        return
    console.print(comparison_table(records))
    console.print(f"runs written under {where.out / experiment.name}/")


def _launch(experiment: ExperimentConfig, dry: bool, out: Path, resume: bool,
            loggers: list[str] | None, quiet: bool, as_json: bool, *, executor: str,
            workers: int | None, ray_address: str | None, cpus_per_run: float | None,
            gpus_per_run: float | None) -> None:  # fmt: skip
    """What `run` and `compare` do once they have the experiment: print the plan, or run it."""
    if dry:
        dry_run(experiment, out, executor, ray_address)
        return
    where = Where(out, resume, loggers, quiet, as_json, executor=executor, workers=workers,
                  ray_address=ray_address, cpus_per_run=cpus_per_run,
                  gpus_per_run=gpus_per_run, backend=experiment.backend)  # fmt: skip
    _run(experiment, where)


def run_cmd(
    config: Annotated[Path, typer.Argument(help="Experiment YAML (see configs/).")],
    set_: SetOption = None,
    out: OutOption = Path("runs"),
    resume: ResumeOption = False,
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_run: CpusPerRunOption = None,
    gpus_per_run: GpusPerRunOption = None,
    logger: LoggerOption = None,
    quiet: QuietOption = False,
    as_json: JsonOption = False,
    dry_run_: DryRunOption = False,
) -> None:
    """Run an experiment file: every designer x seed it names."""
    _launch(_experiment(config, set_ or []), dry_run_, out, resume, logger, quiet, as_json,
            executor=executor, workers=workers, ray_address=ray_address,
            cpus_per_run=cpus_per_run, gpus_per_run=gpus_per_run)  # fmt: skip


def compare_cmd(
    designers: Annotated[str, typer.Option(help="Comma-separated designer names.")],
    preset: Annotated[str, typer.Option(help="A configs/ preset or YAML path.")] = "quick",
    seeds: Annotated[int, typer.Option(help="Seeds 0..N-1.")] = 1,
    backend: Annotated[str | None, typer.Option(help="cpu or verl.")] = None,
    set_: SetOption = None,
    out: OutOption = Path("runs"),
    resume: ResumeOption = False,
    workers: WorkersOption = None,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_run: CpusPerRunOption = None,
    gpus_per_run: GpusPerRunOption = None,
    logger: LoggerOption = None,
    quiet: QuietOption = False,
    as_json: JsonOption = False,
    dry_run_: DryRunOption = False,
) -> None:
    """Compare designers on a preset: `harness compare --designers random,hand,evidence`."""
    names = [d.strip() for d in designers.split(",") if d.strip()]
    if not names:
        raise fail("--designers needs at least one name")
    if seeds < 1:
        raise fail("--seeds must be at least 1")
    overrides = [f"designers=[{', '.join(json.dumps(n) for n in names)}]",
                 f"seeds=[{', '.join(str(s) for s in range(seeds))}]",
                 *([f"backend={backend}"] if backend else []), *(set_ or [])]  # fmt: skip
    _launch(_experiment(preset_path(preset), overrides), dry_run_, out, resume, logger, quiet,
            as_json, executor=executor, workers=workers, ray_address=ray_address,
            cpus_per_run=cpus_per_run, gpus_per_run=gpus_per_run)  # fmt: skip
