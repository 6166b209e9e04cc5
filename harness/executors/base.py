"""What every executor shares: the jobs of a comparison, and how one job runs wherever it lands.

A comparison is a set of independent jobs, one per (designer, seed), each with its own run
directory and backend. An executor decides only *where* they run (local processes, a Ray
cluster) and carries their progress events back; `run_job` is the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any, Protocol

from harness.backends.factory import make_backend
from harness.backends.registry import backend_spec
from harness.events import EventSender, Observers, RunEvent, RunObserver
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from harness.run_lock import WRITER_LOCK, RunLock
from harness.storage_errors import storage_error
from harness.tracking import make_trackers
from run_records import ResultRecord, RunDirError

OnEvent = Callable[[RunEvent], None]


@dataclass(frozen=True)
class Job:
    designer: str
    seed: int


@dataclass(frozen=True)
class RunOptions:
    """How runs are carried out, as opposed to what they compute (that is the experiment).

    None of these change a run's results, so a run may be resumed with other options.
    """

    resume: bool = False
    loggers: tuple[str, ...] = ()
    ray_address: str | None = None
    """verl backend: submit each training round as a job to this Ray cluster."""
    allow_design_failures: bool = False
    """Keep a designer whose every design step failed on the board (flagged), instead of
    leaving it unranked and failing the comparison. Recorded in the result."""


def plan(experiment: ExperimentConfig) -> list[Job]:
    """Every (designer, seed) job, designers first: the order of the records returned."""
    return [Job(d, s) for d in experiment.designers for s in experiment.seeds]


def run_job(
    experiment: ExperimentConfig,
    job: Job,
    root: Path,
    options: RunOptions,
    threads: int | None,
    send: Callable[[RunEvent], Any] | None = None,
) -> ResultRecord:
    """One run, in whatever process (or Ray worker) calls it; events go to `send`.

    A run that raises leaves `failure.json` saying why (boards and `harness runs list` show
    it); a later attempt that finishes removes it. A write the filesystem refused (a full disk,
    a read-only one) is raised as a one-line `StorageError`. The process holds the run's writer
    lock the whole time (`RunLocked` if another process holds it: nothing is written then).
    """
    run = RunDir(root, experiment, job.designer, job.seed)
    with RunLock(run.path, WRITER_LOCK):
        return _run_locked(experiment, job, run, options, threads, send)


def _run_locked(
    experiment: ExperimentConfig,
    job: Job,
    run: RunDir,
    options: RunOptions,
    threads: int | None,
    send: Callable[[RunEvent], Any] | None,
) -> ResultRecord:
    backend = make_backend(experiment, threads=threads, workdir=run.path,
                           ray_address=options.ray_address)  # fmt: skip
    watchers: list[RunObserver] = make_trackers(
        options.loggers, run.path, project=experiment.name, designer=job.designer,
        seed=job.seed, config=experiment.model_dump(mode="json"),
    )  # fmt: skip
    if send is not None:
        watchers.append(EventSender(send, job.designer, job.seed, experiment.rounds))
    observers = Observers(watchers)
    try:
        record = run_designer(experiment, job.designer, job.seed, backend, run,
                              resume=options.resume, observers=[observers], workers=1,
                              allow_design_failures=options.allow_design_failures)  # fmt: skip
    except RunDirError:
        raise  # the directory is not this run's to write into (another run, a damaged run.json)
    except Exception as err:  # an interrupt (KeyboardInterrupt, SystemExit) is not a failure
        refused = storage_error(
            err, run.path, backend_spec(experiment.backend).disk_per_run(experiment)
        )
        with suppress(OSError):  # a directory that cannot be written keeps the run's own error
            run.write_failure(refused or err)
        if refused is not None:
            raise refused from err
        raise
    finally:
        observers.close()
    run.clear_failure()
    return record


class ExecutorUnavailable(RuntimeError):
    """An executor that cannot run here (unknown name, its package missing, no cluster)."""


class RunsFailed(RuntimeError):
    """Some runs of a comparison raised; the others finished and are in `records`."""

    def __init__(self, failures: Sequence[tuple[Job, BaseException]],
                 records: Sequence[ResultRecord]) -> None:  # fmt: skip
        self.failures, self.records = tuple(failures), tuple(records)
        lines = [f"{job.designer} seed {job.seed}: {type(err).__name__}: {err}"
                 for job, err in self.failures]  # fmt: skip
        super().__init__(f"{len(lines)} run(s) failed:\n" + "\n".join(lines))


def collect(
    jobs: Sequence[Job], outcomes: Sequence[ResultRecord | BaseException]
) -> list[ResultRecord]:
    """The records in job order, or `RunsFailed` naming every run that raised."""
    failures = [(job, o) for job, o in zip(jobs, outcomes, strict=True)
                if isinstance(o, BaseException)]  # fmt: skip
    records = [o for o in outcomes if isinstance(o, ResultRecord)]
    if failures:
        raise RunsFailed(failures, records)
    return records


class EventQueue(Protocol):
    """Where workers put their events: a manager queue, or Ray's `ray.util.queue.Queue`.

    Both raise (a subclass of) `queue.Empty` when nothing arrives, so one drain serves both.
    """

    def get(self, block: bool = True, timeout: float | None = None) -> Any: ...

    def get_nowait(self) -> Any: ...


def wait_for_events(events: EventQueue, on_event: OnEvent | None, timeout: float = 0.2) -> None:
    """Block up to `timeout` for the next event, so a polling loop does not spin, then drain."""
    try:
        event = events.get(timeout=timeout)
    except Empty:
        return
    if on_event is not None:
        on_event(event)
    drain_events(events, on_event)


def drain_events(events: EventQueue, on_event: OnEvent | None) -> None:
    """Hand every event queued so far to `on_event` (or drop them when nobody listens)."""
    while True:
        try:
            event = events.get_nowait()
        except Empty:
            return
        if on_event is not None:
            on_event(event)


class Executor(Protocol):
    """Runs jobs somewhere and returns their records in the order given."""

    def run(
        self,
        experiment: ExperimentConfig,
        jobs: Sequence[Job],
        root: Path,
        options: RunOptions,
        on_event: OnEvent | None = None,
    ) -> list[ResultRecord]: ...
