"""A round's overhead budget for its record: the loop's phase times and the backend's loads.

The loop times its phases (`PhaseClock`); the backend says which models it loaded and what it
noted (`harness.backends.base.overhead_of`: nothing for the CPU learner, which loads no model).
The record keeps both (`RoundTimings`), so `harness runs show` can say what share of a round
went into model loads, optimiser steps, evaluation and the design step.
"""

from __future__ import annotations

from harness.backends.base import Backend, RoundTraining, overhead_of, target_of
from harness.events import PhaseClock
from run_records import RoundResult, RoundTimings


def accounted(
    result: RoundResult, clock: PhaseClock, backend: Backend, training: RoundTraining
) -> RoundResult:
    """`result` with its timings and the backend's target, taken at the end of the round."""
    overhead = overhead_of(backend)
    timings = RoundTimings(
        phases=clock.of(result.round),
        step_seconds=sum(step.seconds for step in training.steps),
        loads=overhead.loads,
        validation_seconds=overhead.validation_seconds,
        notes=overhead.notes,
    )
    return result.model_copy(update={"timings": timings, "target": target_of(backend)})


def benchmark_timings(clock: PhaseClock, backend: Backend, rounds: int) -> RoundTimings:
    """The final benchmarks' phase and the loads they took (`rounds`: the run's round count)."""
    overhead = overhead_of(backend)
    return RoundTimings(phases=clock.of(rounds), loads=overhead.loads, notes=overhead.notes)
