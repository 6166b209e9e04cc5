"""`harness run` and `harness compare`: the train -> eval -> design loop from the command line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from designers import DesignerNotReady, UnknownDesigner
from envdesign_common.field_errors import ConfigError
from harness.backends.factory import BackendUnavailable
from harness.backends.registry import backend_names, backend_spec, unknown_backend_line
from harness.compare import compare
from harness.dry_run import dry_run as run_dry
from harness.executors import (
    EventsLost,
    ExecutorUnavailable,
    RunOptions,
    RunsFailed,
    make_executor,
    plan,
)
from harness.experiment import ExperimentConfig, Override
from harness.interrupts import as_interrupted, interrupts_raise
from harness.preflight import PreflightFailed, preflight
from harness.presets import resolve_preset
from harness.run_dir import experiment_dir, format_traceback
from harness.storage_errors import StorageError
from harness.tracking import LoggerUnavailable, check_loggers
from harness_cli.common import (
    AllowDesignFailuresOption,
    CpusPerRunOption,
    Debug,
    DebugOption,
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
    fail_lines,
    roster_overrides,
    runs_at_once,
    show_traceback,
)
from harness_cli.comparison import comparison
from harness_cli.outcome import (
    failed_line,
    interrupted_lines,
    resume_line,
    stopped_lines,
    undesigned,
)
from harness_cli.progress import ProgressView
from run_records import ResultRecord, RunDirError

console = Console()


def preset_path(preset: str) -> Path:
    """A preset shipped in the installed package (`harness.presets`) by name, or a YAML path."""
    try:
        return resolve_preset(preset)
    except ConfigError as err:
        raise fail(str(err)) from None


def load_experiment(config: Path, overrides: Sequence[str | Override]) -> ExperimentConfig:
    """The experiment file with `overrides` applied; a bad field exits with one line each."""
    try:
        experiment = ExperimentConfig.load(config, overrides)
    except ConfigError as err:
        raise fail(str(err)) from None
    return experiment


class Where:
    """The run options every run command shares (output, executor, loggers, modes).

    `--ray-address` names the cluster of the Ray executor; with the local executor and backend
    verl it names the cluster each training round is submitted to as a Ray job.
    """

    def __init__(self, out: Path, resume: bool, loggers: list[str] | None, quiet: bool,
                 as_json: bool, *, executor: str, workers: int | None, ray_address: str | None,
                 cpus_per_run: float | None, gpus_per_run: float | None,
                 backend: str = "cpu", allow_design_failures: bool = False) -> None:  # fmt: skip
        self.out, self.quiet, self.as_json = out, quiet, as_json
        submits = backend_spec(backend).submits_rounds_to_ray
        submit_to = ray_address if executor == "local" and submits else None
        self.options = RunOptions(resume=resume, loggers=tuple(loggers or ()),
                                  ray_address=submit_to,
                                  allow_design_failures=allow_design_failures)  # fmt: skip
        try:
            check_loggers(self.options.loggers)
            self.executor = make_executor(executor, workers=workers,
                                          ray_address=None if submit_to else ray_address,
                                          cpus_per_run=cpus_per_run,
                                          gpus_per_run=gpus_per_run)  # fmt: skip
        except (ExecutorUnavailable, LoggerUnavailable, ValueError) as err:
            raise fail(str(err)) from None


def dry_run(experiment: ExperimentConfig, out: Path, executor: str, ray_address: str | None,
            workers: int | None) -> None:  # fmt: skip
    """Print each run as the loop would begin it and what it would launch (verl: every command
    of round 0), run nothing.

    The disk budget counts the runs that go at once: the local executor's workers, or every
    run on a Ray cluster (whose tasks share the run directories' filesystem).
    """
    local = executor == "local"
    at_once = runs_at_once(experiment, workers) if local else len(plan(experiment))
    try:
        text = run_dry(
            experiment, out, concurrent=at_once, ray_address=ray_address if local else None
        )
    except BackendUnavailable as err:
        raise fail(str(err)) from None
    print(text, end="")


USER_ERRORS = (RunDirError, DesignerNotReady, UnknownDesigner, BackendUnavailable,
               LoggerUnavailable, ExecutorUnavailable, StorageError)  # fmt: skip
"""Errors that mean the input (or the disk it names) was wrong: one line, no traceback."""


def _run(experiment: ExperimentConfig, where: Where) -> None:
    jobs = plan(experiment)
    view = ProgressView(console, jobs, experiment.rounds, quiet=where.quiet,
                        as_json=where.as_json)  # fmt: skip
    try:
        with interrupts_raise(), view:
            records = compare(experiment, where.out, executor=where.executor,
                              options=where.options, on_event=view)  # fmt: skip
    except PreflightFailed as err:
        raise fail_lines(err.problems) from None
    except USER_ERRORS as err:
        raise fail(str(err)) from None
    except KeyboardInterrupt as err:
        stop = as_interrupted(err)
        _say(interrupted_lines(stop.signal_name, experiment, jobs, where.out))
        raise typer.Exit(stop.exit_code) from None
    except EventsLost as err:
        show_traceback(format_traceback(err))
        _say(stopped_lines(f"error: {err}", experiment, jobs, where.out))
        raise typer.Exit(1) from None
    except RunsFailed as err:
        lines = [failed_line(experiment, job, e, where.out) for job, e in err.failures]
        if where.as_json:  # a script reads every run's outcome, finished or failed
            _json_results(err.records, where.out)
            for (job, _), line in zip(err.failures, lines, strict=True):
                print(json.dumps({"designer": job.designer, "seed": job.seed, "failed": line}))
        elif err.records:
            console.print(comparison(list(err.records), experiment.task_object))
        if all(isinstance(e, USER_ERRORS) for _, e in err.failures):
            raise fail_lines(str(err).splitlines()) from None
        for _, failure in err.failures:
            show_traceback(format_traceback(failure))
        failed = fail_lines(lines, code=1)
        _say([resume_line()])
        raise failed from None
    if where.as_json:
        _json_results(records, where.out)
    else:
        console.print(comparison(records, experiment.task_object))
        console.print(f"runs written under {experiment_dir(where.out, experiment)}/",
                      markup=False, highlight=False, soft_wrap=True)  # fmt: skip
    never = undesigned(records, where.options.allow_design_failures)
    if never:
        raise fail_lines(never, code=1)


def _json_results(records: Sequence[ResultRecord], out: Path) -> None:
    for r in records:
        print(json.dumps({"designer": r.designer, "seed": r.seed, "result": str(out)}))


def _say(lines: list[str]) -> None:
    """Print lines as written (paths and names may hold brackets), unwrapped."""
    for line in lines:
        console.print(escape(line), soft_wrap=True)


def _launch(experiment: ExperimentConfig, dry: bool, out: Path, resume: bool,
            loggers: list[str] | None, quiet: bool, as_json: bool, *, executor: str,
            workers: int | None, ray_address: str | None, cpus_per_run: float | None,
            gpus_per_run: float | None, allow_design_failures: bool) -> None:  # fmt: skip
    """What `run` and `compare` do once they have the experiment: print the plan, or run it
    (`compare` checks every run before it starts any)."""
    if dry:
        try:
            preflight(experiment, out, ray_address=ray_address, dry_run=True)
        except PreflightFailed as err:
            raise fail_lines(err.problems) from None
        dry_run(experiment, out, executor, ray_address, workers)
        return
    where = Where(out, resume, loggers, quiet, as_json, executor=executor, workers=workers,
                  ray_address=ray_address, cpus_per_run=cpus_per_run,
                  gpus_per_run=gpus_per_run, backend=experiment.backend,
                  allow_design_failures=allow_design_failures)  # fmt: skip
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
    allow_design_failures: AllowDesignFailuresOption = False,
    debug: DebugOption = False,
) -> None:
    """Run an experiment file: every designer x seed it names."""
    Debug.on = Debug.on or debug
    _launch(load_experiment(config, set_ or []), dry_run_, out, resume, logger, quiet, as_json,
            executor=executor, workers=workers, ray_address=ray_address,
            cpus_per_run=cpus_per_run, gpus_per_run=gpus_per_run,
            allow_design_failures=allow_design_failures)  # fmt: skip


def compare_cmd(
    designers: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated designer entries (gpt, gpt@V3, gpt@V6+details); default: "
            "the preset's."
        ),
    ] = None,
    preset: Annotated[
        str,
        typer.Option(help="A shipped preset (quick, ablation_context, ...) or a YAML path."),
    ] = "quick",
    seeds: Annotated[
        int | None, typer.Option(help="Seeds 0..N-1; default: the preset's seeds.")
    ] = None,
    backend: Annotated[
        str | None, typer.Option(help="cpu, trl, verl or a plug-in backend.")
    ] = None,
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
    allow_design_failures: AllowDesignFailuresOption = False,
    debug: DebugOption = False,
) -> None:
    """Compare designers on a preset: `harness compare --designers random,hand,evidence`, or
    the preset's own designers and seeds: `harness compare --preset ablation_context`."""
    Debug.on = Debug.on or debug
    roster = roster_overrides(designers, seeds)
    if backend is not None and backend not in backend_names():
        raise fail(f"--backend {backend}: {unknown_backend_line(backend)}")
    chosen = [Override(("backend",), backend, f"--backend {backend}")] if backend else []
    overrides: list[str | Override] = [*roster, *chosen, *(set_ or [])]
    _launch(load_experiment(preset_path(preset), overrides), dry_run_, out, resume, logger, quiet,
            as_json, executor=executor, workers=workers, ray_address=ray_address,
            cpus_per_run=cpus_per_run, gpus_per_run=gpus_per_run,
            allow_design_failures=allow_design_failures)  # fmt: skip
