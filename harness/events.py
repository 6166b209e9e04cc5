"""What a running loop tells the outside world: phases, optimiser steps, finished rounds.

The round loop reports through one small interface, `RunObserver`, so that everything that
watches a run -- the training-curve file in the run directory, TensorBoard or Weights & Biases,
the progress bars of a comparison running in other processes or on other machines -- plugs in
without the loop knowing any of them. `RunEvent` is the picklable summary of each call that
travels from a worker to the process that draws the progress bars.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from run_records import RoundResult, TrainStep
from tasks import ReportRates

Phase = Literal["generate", "train", "evaluate", "design", "benchmark", "done"]
ROUND_PHASES: tuple[Phase, ...] = ("generate", "train", "evaluate", "design")
"""The phases of one round, in order; `benchmark` and `done` follow the last round."""


class RunObserver(Protocol):
    """Receives a run's progress; every method must return quickly and never raise."""

    def phase(self, name: Phase, n: int) -> None:
        """Phase `name` of round `n` starts (`benchmark`/`done`: n is the number of rounds)."""
        ...

    def step(self, n: int, step: TrainStep) -> None:
        """One optimiser step of round `n` finished."""
        ...

    def round_done(self, result: RoundResult, rates: ReportRates) -> None:
        """Round `result.round` is finished and on disk; `rates` are its validation's, as the
        task reads its report (`Task.rates`)."""
        ...

    def close(self) -> None:
        """The run ended (finished or failed); flush and release what is held."""
        ...


class Observers:
    """Several observers behind one, called in order."""

    def __init__(self, observers: Sequence[RunObserver]) -> None:
        self.observers = tuple(observers)

    def phase(self, name: Phase, n: int) -> None:
        for o in self.observers:
            o.phase(name, n)

    def step(self, n: int, step: TrainStep) -> None:
        for o in self.observers:
            o.step(n, step)

    def round_done(self, result: RoundResult, rates: ReportRates) -> None:
        for o in self.observers:
            o.round_done(result, rates)

    def close(self) -> None:
        for o in self.observers:
            o.close()


class CurveFile:
    """Each optimiser step appended to its round's curves.jsonl as it happens."""

    def __init__(self, curves: Callable[[int], Path]) -> None:
        self.curves = curves

    def phase(self, name: Phase, n: int) -> None:
        pass

    def step(self, n: int, step: TrainStep) -> None:
        with self.curves(n).open("a", encoding="utf-8") as f:
            f.write(step.model_dump_json() + "\n")

    def round_done(self, result: RoundResult, rates: ReportRates) -> None:
        pass

    def close(self) -> None:
        pass


class PhaseClock:
    """Seconds of each phase of each round, from the loop's phase changes (an observer).

    A phase lasts until the next one starts; `lap` closes the running phase now and goes on
    timing it, so a round's record can hold its phases before the round is written.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.seconds: dict[int, dict[str, float]] = {}
        self._running: tuple[Phase, int, float] | None = None

    def phase(self, name: Phase, n: int) -> None:
        self.lap()
        self._running = None if name == "done" else (name, n, self.clock())

    def lap(self) -> None:
        if self._running is not None:
            name, n, since = self._running
            now = self.clock()
            spent = self.seconds.setdefault(n, {})
            spent[name] = spent.get(name, 0.0) + now - since
            self._running = (name, n, now)

    def of(self, n: int) -> dict[str, float]:
        """Round `n`'s phases so far (`benchmark`: n is the number of rounds)."""
        self.lap()
        return dict(self.seconds.get(n, {}))

    def step(self, n: int, step: TrainStep) -> None:
        pass

    def round_done(self, result: RoundResult, rates: ReportRates) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class RunEvent:
    """One progress report of one run, small and picklable.

    `valid_rate` is the step's rollout valid rate for `step` events and the validation valid
    rate for `round` events, whose `score` is the validation's mean score and `optimal` its
    rate optimal in each of the task's senses (`tasks.Rates.optimal`, in order, None where
    unknown); `epoch`/`epochs` place a step within its round; a `round` event's
    `design_failure` says why the round's design step could not design (None when it did).
    """

    designer: str
    seed: int
    kind: Literal["phase", "step", "round"]
    phase: Phase
    round: int
    rounds: int
    valid_rate: float | None = None
    score: float | None = None
    optimal: tuple[tuple[str, float | None], ...] = ()
    epoch: int | None = None
    design_failure: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and v != ()}


class EventSender:
    """Turns observer calls into `RunEvent`s and hands them to `send` (a queue's put)."""

    def __init__(self, send: Callable[[RunEvent], Any], designer: str, seed: int, rounds: int):
        self.send, self.designer, self.seed, self.rounds = send, designer, seed, rounds

    def _event(self, kind: Literal["phase", "step", "round"], phase: Phase, n: int,
               **data: Any) -> None:  # fmt: skip
        self.send(RunEvent(self.designer, self.seed, kind, phase, n, self.rounds, **data))

    def phase(self, name: Phase, n: int) -> None:
        self._event("phase", name, n)

    def step(self, n: int, step: TrainStep) -> None:
        self._event("step", "train", n, valid_rate=step.valid_rate, epoch=step.epoch)

    def round_done(self, result: RoundResult, rates: ReportRates) -> None:
        overall, proposal = rates.overall, result.proposal
        failed = proposal is not None and proposal.design_failed
        failure = proposal.failure_reason if proposal is not None and failed else None
        self._event("round", "design", result.round, valid_rate=overall.valid_rate,
                    score=overall.score, optimal=tuple(overall.optimal.items()),
                    design_failure=failure)  # fmt: skip

    def close(self) -> None:
        pass
