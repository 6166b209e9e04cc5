"""A comparison: every designer x seed run of an experiment, spread over local processes.

Each run is independent (its own run directory, backend and seeds), so runs go to a process
pool; each process gets an equal share of the cores for torch and generates its data in-process
rather than opening a pool of its own. Progress events travel back through a queue.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any

from harness.backends.factory import make_backend
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.records import ResultRecord
from harness.run_dir import RunDir

Event = tuple[str, int, str, int]
"""(designer, seed, phase, round) as reported by a running job."""


@dataclass(frozen=True)
class Job:
    designer: str
    seed: int


def plan(experiment: ExperimentConfig) -> list[Job]:
    return [Job(d, s) for d in experiment.designers for s in experiment.seeds]


def run_job(
    experiment: ExperimentConfig,
    job: Job,
    root: Path,
    resume: bool,
    threads: int,
    events: Any = None,
) -> ResultRecord:
    """One run, in whatever process calls it."""

    def report(phase: str, n: int) -> None:
        if events is not None:
            events.put((job.designer, job.seed, phase, n))

    backend = make_backend(experiment, threads=threads)
    run = RunDir(root, experiment, job.designer, job.seed)
    return run_designer(experiment, job.designer, job.seed, backend, run, resume=resume,
                        report=report, workers=1)  # fmt: skip


def compare(
    experiment: ExperimentConfig,
    root: Path,
    *,
    resume: bool = False,
    workers: int | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> list[ResultRecord]:
    """Run every job of `experiment`; records in plan order."""
    jobs = plan(experiment)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    workers = max(1, min(workers or cores, len(jobs)))
    threads = max(1, cores // workers)
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, ProcessPoolExecutor(workers, mp_context=context) as pool:
        events = manager.Queue()
        futures: dict[Future[ResultRecord], int] = {
            pool.submit(run_job, experiment, job, root, resume, threads, events): i
            for i, job in enumerate(jobs)
        }
        records: list[ResultRecord | None] = [None] * len(jobs)
        pending = set(futures)
        while pending:
            _drain(events, on_event)
            done = {f for f in pending if f.done()}
            for future in done:
                records[futures[future]] = future.result()
            pending -= done
            if pending:
                _wait(events, on_event)
        _drain(events, on_event)
    return [r for r in records if r is not None]


def _drain(events: Any, on_event: Callable[[Event], None] | None) -> None:
    while True:
        try:
            event = events.get_nowait()
        except Empty:
            return
        if on_event is not None:
            on_event(event)


def _wait(events: Any, on_event: Callable[[Event], None] | None) -> None:
    """Block briefly for the next event so the loop does not spin."""
    try:
        event = events.get(timeout=0.2)
    except Empty:
        return
    if on_event is not None:
        on_event(event)
