"""What every executor shares: the jobs of a comparison, and how one job runs wherever it lands.

A comparison is a set of independent jobs, one per (designer, seed), each with its own run
directory and backend. An executor decides only *where* they run (local processes, a Ray
cluster) and carries their progress events back; `run_job` is the same everywhere.

A failure stays inside its run: a run that raises leaves `failure.json` and `failure.log` (its
traceback) itself; a run whose process vanished (`os._exit` in a plug-in, the kernel's SIGKILL,
a segfault, a dead Ray worker) cannot, so the executor records it (`record_lost`) and the
other runs go on.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any, Protocol

from harness.backends.factory import make_backend
from harness.events import EventSender, Observers, RunEvent, RunObserver
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from harness.run_lock import WRITER_LOCK, RunLock
from harness.storage_errors import storage_error
from harness.tracking import make_trackers
from run_records import RUN_FILE, ResultRecord, RunDirError

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
        return _run_locked(experiment, job, run, options, threads,
                           None if send is None else _Lossy(send))  # fmt: skip


class _Lossy:
    """`send`, until it first fails; then nothing. Progress is a view of the run, not part of
    it: a lost channel (its process gone) must not fail a run that is computing fine -- the
    command that reads the channel notices the loss and stops the runs itself."""

    def __init__(self, send: Callable[[RunEvent], Any]) -> None:
        self.send: Callable[[RunEvent], Any] | None = send

    def __call__(self, event: RunEvent) -> None:
        if self.send is None:
            return
        try:
            self.send(event)
        except Exception:
            self.send = None


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
        if (interrupt := interrupt_behind(err)) is not None:
            raise interrupt from None  # Ctrl-C that broke a library's cleanup on its way out
        refused = storage_error(err, run.path, experiment.backend_spec.disk_per_run(experiment))
        with suppress(OSError):  # a directory that cannot be written keeps the run's own error
            run.write_failure(refused or err)
        if refused is not None:
            raise refused from err
        raise
    finally:
        observers.close()
    run.clear_failure()
    return record


def interrupt_behind(err: BaseException) -> BaseException | None:
    """The interrupt `err` was raised while handling, if any: Ctrl-C in the middle of
    `torch.save` makes its zip writer fail as it closes, and that error, not the interrupt,
    reaches the run -- which was interrupted, not failed."""
    seen: set[int] = set()
    cause = err.__context__
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt | SystemExit):
            return cause
        seen.add(id(cause))
        cause = cause.__context__
    return None


class ExecutorUnavailable(RuntimeError):
    """An executor that cannot run here (unknown name, its package missing, no cluster)."""


class WorkerDied(RuntimeError):
    """The process (or Ray worker) running a run ended without a result or an exception."""

    def __init__(self, how: str) -> None:
        super().__init__(f"its worker process {how} without a result; finished rounds are kept")
        self.how = how

    def __reduce__(self) -> tuple[type[WorkerDied], tuple[str]]:
        return type(self), (self.how,)

    @classmethod
    def from_exitcode(cls, code: int | None) -> WorkerDied:
        """`exited with code 3`, or `was killed by SIGKILL` (a negative code: the signal)."""
        if code is None or code >= 0:
            return cls(f"exited with code {code}")
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return cls(f"was killed by {name}")


class EventsLost(RuntimeError):
    """The channel carrying the runs' progress is gone (the process holding it ended), so the
    command can no longer follow its runs; they are stopped as on an interrupt."""


class RemoteTraceback(Exception):
    """A traceback from the process that ran a run, attached as the `__cause__` of the error it
    sent back, so printing that error prints where it happened (as `concurrent.futures` does)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


def record_lost(experiment: ExperimentConfig, root: Path, job: Job, err: WorkerDied) -> None:
    """Write `failure.json` and `failure.log` for a run whose process vanished, from the
    process that started it: the worker cannot any more. The dead worker's writer lock went
    with it; the lock is taken here so that nothing else writes the run meanwhile."""
    run = RunDir(root, experiment, job.designer, job.seed)
    log = (
        f"{err}\n\nNo traceback: the process ended without raising (os._exit, a signal such "
        "as the kernel's SIGKILL or out-of-memory killer, or a crash in native code). Anything "
        "it printed went to the command's terminal.\n"
    )
    with suppress(RunDirError, OSError), RunLock(run.path, WRITER_LOCK):
        if (run.path / RUN_FILE).exists():
            run.write_failure(err, log)


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
    """Where Ray tasks put their events: `ray.util.queue.Queue` (or any queue like it).

    It raises (a subclass of) `queue.Empty` when nothing arrives, as `queue.Queue` does.
    """

    def get(self, block: bool = True, timeout: float | None = None) -> Any: ...

    def get_nowait(self) -> Any: ...


def wait_for_events(events: EventQueue, on_event: OnEvent | None, timeout: float = 0.2) -> None:
    """Block up to `timeout` for the next event, so a polling loop does not spin, then drain.
    `EventsLost` when the queue itself is gone."""
    try:
        event = events.get(timeout=timeout)
    except Empty:
        return
    except Exception as err:
        raise lost(err) from err
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
        except Exception as err:
            raise lost(err) from err
        if on_event is not None:
            on_event(event)


def lost(err: Exception) -> EventsLost:
    return EventsLost(
        f"the process carrying the runs' progress ended ({type(err).__name__}), so the runs "
        "could no longer be followed"
    )


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
