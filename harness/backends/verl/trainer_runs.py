"""One round's trainer, run until the round's last step is saved: attempts, curves, loads.

A crashed attempt is rerun with the same command and resumes from the round's latest
checkpoint (``trainer.resume_mode=auto``); an attempt that saved nothing new is not tried again,
nor is one past `VerlRuntime.train_attempts`. While an attempt runs its curves are polled into
`report`, and when it ends its model load (`loads.TrainerReady`) is noted in the ledger, so a
round's record counts every load its crashes cost. An interrupted Ray job submission asks Ray
to stop the job, which would otherwise run on without it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from harness.backends import processes as process
from harness.backends.processes import Launch
from harness.backends.verl.batch_plan import BatchPlan
from harness.backends.verl.curves import RoundCurves
from harness.backends.verl.loads import LoadLedger, TrainerReady
from harness.backends.verl.overrides import RoundInputs, latest_step
from harness.backends.verl.runtime import VerlRuntime
from run_records import TrainStep


@dataclass(frozen=True)
class TrainerRun:
    """What running one round's trainer needs."""

    inputs: RoundInputs
    plan: BatchPlan
    curves: RoundCurves
    report: Callable[[TrainStep], None]
    launch: Callable[[Path], tuple[Launch, str | None]]
    """The command for an attempt writing the given metrics file, and its Ray job's id."""
    stop_job: Callable[[str], Launch]
    runtime: VerlRuntime
    ledger: LoadLedger
    model: str
    """The model the round starts from (for the ledger)."""


def train_until_saved(run: TrainerRun) -> None:
    """Run the trainer until the round's last step is saved, rerunning it after a crash."""
    inputs, total = run.inputs, run.plan.total_steps
    saved = latest_step(inputs.checkpoint_dir)
    if saved == total:
        run.ledger.note(f"round {inputs.round} was trained by an earlier harness process")
        return
    first = run.curves.attempts_so_far() + 1
    run.curves.metrics_dir.mkdir(parents=True, exist_ok=True)  # verl's file logger will not
    for attempt in range(first, first + run.runtime.train_attempts):
        launch, code = _attempt(run, attempt, first)
        now = latest_step(inputs.checkpoint_dir)
        if now == total:
            return
        last = attempt == first + run.runtime.train_attempts - 1
        if last or (attempt > first and now == saved):
            what = f"verl training of round {inputs.round} (attempt {attempt}, last saved "
            what += f"step {now} of {total})"
            raise process.failure(what, code, launch.log)
        saved = now


def _attempt(run: TrainerRun, attempt: int, first: int) -> tuple[Launch, int]:
    """One run of the trainer, its curves reported as they come and its model load noted."""
    metrics = run.curves.metrics_file(attempt)
    launch, job = run.launch(metrics)
    ready = TrainerReady(metrics)

    def tick() -> None:
        ready.check()
        for step in run.curves.poll(attempt):
            run.report(step)

    started = time.perf_counter()
    code = process.run(
        launch,
        tick=tick,
        interval_s=run.runtime.poll_s,
        grace_s=run.runtime.stop_grace_s,
        on_abort=None if job is None else partial(_stop_job, run, job),
    )
    wall = time.perf_counter() - started
    notes = [f"attempt {attempt}: resumed from a checkpoint"] if attempt > first else []
    notes += ["a Ray job: includes its wait for the cluster"] if job is not None else []
    loaded = ready.seconds()
    if loaded is None:
        notes.append(f"verl exited (code {code}) before it began training")
    run.ledger.load("training", run.model, wall if loaded is None else loaded, wall,
                    "; ".join(notes) or None)  # fmt: skip
    return launch, code


def _stop_job(run: TrainerRun, job: str) -> None:
    """Ask Ray to stop a job whose ``ray job submit`` was interrupted; ``--no-wait``: the
    request is sent, Ray stops the job on its own."""
    with contextlib.suppress(Exception):
        process.run(run.stop_job(job), interval_s=run.runtime.poll_s)
