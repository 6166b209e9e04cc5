"""The local executor: a comparison's runs spread over this machine's processes.

Each run is independent, so each gets a process of its own, started here and watched from
here; each gets an equal share of the cores for torch and generates its data in-process rather
than opening a pool of its own. One process per run, rather than a pool, so that one run's
process dying (`os._exit` in a plug-in, the kernel's SIGKILL, a segfault) fails that run alone:
a pool becomes unusable once any of its workers dies, and cannot say which run it was running.

A run's progress events, then its record or its error, come back through one pipe of its own,
in order, and are handed to `on_event` in the calling process, which is the one that draws the
progress bars; no other process sits between them, so there is no event process to lose. The
workers end with the calling process however it ends (`parent_watch`); on SIGINT and SIGTERM
it stops them itself before it exits.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import traceback
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnContext
from multiprocessing.process import BaseProcess
from pathlib import Path

from harness.events import RunEvent
from harness.executors.base import (
    Job,
    OnEvent,
    RemoteTraceback,
    RunOptions,
    WorkerDied,
    collect,
    record_lost,
    run_job,
)
from harness.executors.parent_watch import die_with_parent
from harness.experiment import ExperimentConfig
from run_records import ResultRecord

Outcome = ResultRecord | BaseException
STOP_S = 10
"""How long a terminated worker has to end before it is killed."""


def available_cores() -> int:
    """Cores this process may use (the affinity mask, where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class LocalExecutor:
    """Up to `workers` runs at once (default: one per core, at most one per job; one at a time
    for a backend whose runs may not share a machine, as verl's would its GPUs).

    A run that raises, or whose process dies, does not stop the others; `RunsFailed` names it
    once all have ended.
    """

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers

    def at_once(self, experiment: ExperimentConfig, runs: int) -> int:
        """How many of `runs` runs go at once (what the disk budget counts with, too)."""
        default = available_cores() if experiment.backend_spec.shares_machine else 1
        return max(1, min(self.workers or default, runs))

    def run(
        self,
        experiment: ExperimentConfig,
        jobs: Sequence[Job],
        root: Path,
        options: RunOptions,
        on_event: OnEvent | None = None,
    ) -> list[ResultRecord]:
        limit = self.at_once(experiment, len(jobs))
        threads = max(1, available_cores() // limit)
        context = multiprocessing.get_context("spawn")
        waiting = list(enumerate(jobs))
        running: dict[int, Worker] = {}
        outcomes: list[Outcome] = [RuntimeError("not run")] * len(jobs)
        try:
            while waiting or running:
                while waiting and len(running) < limit:
                    i, job = waiting.pop(0)
                    running[i] = Worker(context, experiment, job, root, options, threads)
                wait([w.conn for w in running.values()])  # a message, or a worker's end
                for i, worker in list(running.items()):
                    ended = worker.receive(on_event)
                    if ended is not None:
                        outcomes[i] = ended
                        del running[i]
                        if isinstance(ended, WorkerDied):
                            record_lost(experiment, root, jobs[i], ended)
        except BaseException:  # Ctrl-C, SIGTERM, a failing on_event: stop every worker
            stop_workers([w.process for w in running.values()])
            raise
        return collect(jobs, outcomes)


class Worker:
    """One run in a process of its own, and the parent's end of the pipe it reports through."""

    def __init__(self, context: SpawnContext, experiment: ExperimentConfig, job: Job, root: Path,
                 options: RunOptions, threads: int) -> None:  # fmt: skip
        self.conn, child = context.Pipe(duplex=False)
        self.process = context.Process(
            target=work,
            args=(child, os.getpid(), experiment, job, root, options, threads),
            name=f"harness-run-{job.designer}-seed-{job.seed}",
        )
        self.process.start()
        child.close()  # the worker holds the only write end: its end reads as end-of-file here

    def receive(self, on_event: OnEvent | None) -> Outcome | None:
        """Hand on every event that has arrived; the run's outcome once it has ended (its
        record, its error, or `WorkerDied` when the process ended without sending either)."""
        while self.conn.poll():
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                return self._died()
            except Exception as err:  # an error whose pickle does not load here
                self._join()
                return RuntimeError(f"the run's outcome could not be read back: {err}")
            kind, payload, *more = message
            if kind == "event":
                if on_event is not None:
                    on_event(payload)
                continue
            self._join()
            if kind == "error":  # the traceback of the worker, where the error happened
                payload.__cause__ = RemoteTraceback(more[0])
            return payload  # type: ignore[no-any-return]
        return None

    def _died(self) -> WorkerDied:
        self._join()
        return WorkerDied.from_exitcode(self.process.exitcode)

    def _join(self) -> None:
        self.conn.close()
        self.process.join(STOP_S)
        if self.process.is_alive():  # sent its outcome but hangs in exit (a stuck thread)
            stop_workers([self.process])


def work(conn: Connection, parent: int, experiment: ExperimentConfig, job: Job, root: Path,
         options: RunOptions, threads: int) -> None:  # fmt: skip
    """A worker process: run the job, sending its events, then its record or its error."""
    die_with_parent(parent)

    def send(event: RunEvent) -> None:
        conn.send(("event", event))

    try:
        record = run_job(experiment, job, root, options, threads, send)
    except BaseException as err:  # an interrupt too: the parent decides what it means
        conn.send(("error", portable(err), "".join(traceback.format_exception(err))))
    else:
        conn.send(("record", record))
    finally:
        conn.close()


def portable(err: BaseException) -> BaseException:
    """`err` as it can cross to the parent: itself where it pickles and loads back, else a
    `RuntimeError` with its type and message (its traceback travels beside it as text)."""
    try:
        pickle.loads(pickle.dumps(err))
    except Exception:
        return RuntimeError(f"{type(err).__name__}: {err}")
    return err


def stop_workers(processes: Sequence[BaseProcess]) -> None:
    """End these runs now: terminated (and killed if they have not ended `STOP_S` seconds
    later).

    A terminated run loses only its unfinished round: every file is written atomically and a
    round counts only once its record is on disk, so `--resume` continues after its last
    finished round.
    """
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=STOP_S)
        if process.is_alive():
            process.kill()
            process.join(timeout=STOP_S)
