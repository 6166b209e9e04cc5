"""The local executor: a comparison's runs spread over this machine's processes.

Each run is independent, so runs go to a process pool; each process gets an equal share of the
cores for torch and generates its data in-process rather than opening a pool of its own.
Progress events travel back through a manager queue and are handed to `on_event` in the
calling process, which is the one that draws the progress bars. The workers and the manager
end with the calling process however it ends (`parent_watch`); on SIGINT and SIGTERM it stops
them itself before it exits.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.managers import SyncManager
from pathlib import Path

from harness.backends.registry import backend_spec
from harness.executors.base import (
    EventQueue,
    Job,
    OnEvent,
    RunOptions,
    collect,
    drain_events,
    run_job,
    wait_for_events,
)
from harness.executors.parent_watch import die_with_parent
from harness.experiment import ExperimentConfig
from run_records import ResultRecord


def available_cores() -> int:
    """Cores this process may use (the affinity mask, where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class LocalExecutor:
    """Up to `workers` runs at once (default: one per core, at most one per job; one at a time
    for a backend whose runs may not share a machine, as verl's would its GPUs).

    A run that raises does not stop the others; `RunsFailed` names it once all have ended.
    """

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers

    def at_once(self, experiment: ExperimentConfig, runs: int) -> int:
        """How many of `runs` runs go at once (what the disk budget counts with, too)."""
        default = available_cores() if backend_spec(experiment.backend).shares_machine else 1
        return max(1, min(self.workers or default, runs))

    def run(
        self,
        experiment: ExperimentConfig,
        jobs: Sequence[Job],
        root: Path,
        options: RunOptions,
        on_event: OnEvent | None = None,
    ) -> list[ResultRecord]:
        workers = self.at_once(experiment, len(jobs))
        threads = max(1, available_cores() // workers)
        context = multiprocessing.get_context("spawn")
        me = (os.getpid(),)  # every process started here ends with this one
        manager = SyncManager(ctx=context)
        manager.start(die_with_parent, me)
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=die_with_parent,
                                   initargs=me)  # fmt: skip
        with manager, pool:
            events = manager.Queue()
            futures: dict[Future[ResultRecord], int] = {
                pool.submit(run_job, experiment, job, root, options, threads, events.put): i
                for i, job in enumerate(jobs)
            }
            outcomes: list[ResultRecord | BaseException] = [RuntimeError("not run")] * len(jobs)
            try:
                self._wait(futures, outcomes, events, on_event)
            except BaseException:  # Ctrl-C, SIGTERM, a failing on_event: stop every worker
                stop_workers(pool)
                raise
        return collect(jobs, outcomes)

    @staticmethod
    def _wait(
        futures: dict[Future[ResultRecord], int],
        outcomes: list[ResultRecord | BaseException],
        events: EventQueue,
        on_event: OnEvent | None,
    ) -> None:
        """Hand events to `on_event` until every run has ended; outcomes in job order."""
        pending = set(futures)
        while pending:
            wait_for_events(events, on_event)
            done = {f for f in pending if f.done()}
            for future in done:
                outcomes[futures[future]] = future.exception() or future.result()
            pending -= done
        drain_events(events, on_event)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool's runs now: queued ones never start, running ones are terminated (and
    killed if they have not ended 10 seconds later).

    `shutdown` alone would wait for every running run to finish its whole loop. A terminated
    run loses only its unfinished round: every file is written atomically and a round counts
    only once its record is on disk, so `--resume` continues after its last finished round.
    """
    processes = list(getattr(pool, "_processes", {}).values())  # no public handle to them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join(timeout=10)
