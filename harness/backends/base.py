"""The `Backend` interface: what the round loop needs of a trainer.

A backend owns a policy. The loop asks it to start fresh from a seed, train one round on a
dataset of solved instances, answer instances as text (greedy, or n samples for best-of-n), save
and load its state for resume, and -- where it can -- serve the current or base checkpoint as
an OpenAI-compatible endpoint for the `self` / `base` designers. Answers are always text in the
prompt's format, so every backend is scored by the same parser, verifier and reward.

A backend whose `endpoint` starts a server (vLLM on the GPUs training also needs) is a
`ServingBackend`: the loop asks it only for the endpoints the designer reads, inside `serving`,
which calls its `release` when the design step ends, however it ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from designers import Endpoint, ServedModel
from mapf_env import Instance
from run_records import MachineRecord, ModelLoad, TrainingSummary, TrainStep, one_line


class BackendUnavailable(RuntimeError):
    """The experiment names a backend this installation cannot run."""


class RoundTraining(BaseModel):
    """What training one round did."""

    model_config = ConfigDict(frozen=True)

    steps: tuple[TrainStep, ...]
    epochs: int
    samples: int
    seconds: float
    summary: TrainingSummary | None = Field(
        default=None,
        description="The round in numbers (`run_records.training_summary.summarise`), which the "
        "round record keeps and the designer's T module can show; None from a backend that "
        "gives none, or a round that took no step.",
    )


class BackendOverhead(BaseModel):
    """What a backend spent besides optimiser steps since it was last asked (`take_overhead`)."""

    model_config = ConfigDict(frozen=True)

    loads: tuple[ModelLoad, ...] = ()
    validation_seconds: float | None = Field(
        default=None,
        description="Seconds the trainer spent validating the round's model inside training "
        "(verl's own validation, whose answers the round's report reads); None: none.",
    )
    notes: tuple[str, ...] = Field(
        default=(),
        description="One line each, e.g. where the validation answers came from and why.",
    )


@runtime_checkable
class Backend(Protocol):
    name: str

    def initialise(self, seed: int) -> None:
        """A fresh policy (and its frozen base copy) from `seed`."""
        ...

    def train_round(
        self,
        instances: Sequence[Any],
        *,
        epochs: int,
        seed: int,
        on_step: Callable[[TrainStep], None] | None = None,
    ) -> RoundTraining:
        """GRPO on the task's items, as `Task.generate` made them, for `epochs` epochs."""
        ...

    def respond(
        self, instances: Sequence[Any], *, samples: int = 1, greedy: bool = True, seed: int = 0
    ) -> list[list[str]]:
        """Text answers per item: one greedy answer, or `samples` sampled ones."""
        ...

    def save(self, directory: Path) -> None: ...

    def load(self, directory: Path) -> None: ...

    def endpoint(self, which: Literal["policy", "base"]) -> Endpoint | None:
        """An OpenAI-compatible server for the `self`/`base` designers, or None if unsupported."""
        ...


@runtime_checkable
class ServingBackend(Backend, Protocol):
    """A backend whose `endpoint` starts a server that holds resources until `release`."""

    def release(self) -> None:
        """Stop every server `endpoint` started (idempotent)."""
        ...


@runtime_checkable
class DescribesMachine(Protocol):
    """A backend that can say how it computes; its record goes into every `ResultRecord`."""

    def machine(self) -> MachineRecord:
        """Precision, CPU, kernels, versions and threads of this backend's computation."""
        ...


@runtime_checkable
class ReportsOverhead(Protocol):
    """A backend that loads models in processes of its own and says what they cost."""

    def take_overhead(self) -> BackendOverhead:
        """The loads and notes since the last call (which are then forgotten)."""
        ...

    def target_record(self) -> dict[str, Any]:
        """What the backend runs on that changes how it computes (JSON-safe; e.g. the verl
        version and the attention implementation), for every round's record."""
        ...


def require_solved(instances: Sequence[Instance]) -> None:
    """ValueError unless every instance carries its answer key: the reward reads its optima."""
    if any(i.optimum is None for i in instances):
        raise ValueError("train_round needs solved instances (the reward reads their optima)")


def overhead_of(backend: Backend) -> BackendOverhead:
    """`backend`'s overhead since last asked; nothing for a backend that runs in this process
    (the CPU learner loads no model)."""
    return backend.take_overhead() if isinstance(backend, ReportsOverhead) else BackendOverhead()


def target_of(backend: Backend) -> dict[str, Any] | None:
    """What `backend` runs on that changes how it computes, for the round's record: its own
    target record (verl), else the fingerprint of a backend that computes one in this process
    (the CPU learner), so a run resumed on a machine that computes differently shows where it
    changed; None for a backend that says neither. Asked only where a round trained: working it
    out can probe the trainer's Python, which a run resumed after its last round never needs."""
    if isinstance(backend, ReportsOverhead):
        return backend.target_record()
    if isinstance(backend, DescribesMachine):
        fingerprint = backend.machine().fingerprint
        return None if fingerprint is None else {"fingerprint": fingerprint}
    return None


def machine_of(backend: Backend) -> MachineRecord | None:
    """`backend`'s machine record, or None for a backend that does not describe one (verl:
    its GPU numerics are not described yet)."""
    return backend.machine() if isinstance(backend, DescribesMachine) else None


class ServerUnavailable(RuntimeError):
    """A model server a designer needs could not be started (it exited, never got ready, or its
    port was taken); the first line of the message says which and why."""


@dataclass(frozen=True)
class Served:
    """What `serving` could start: the endpoints, and one line per server that failed."""

    endpoints: dict[ServedModel, Endpoint]
    failures: dict[ServedModel, str]


@contextmanager
def serving(backend: Backend, wanted: Iterable[ServedModel]) -> Iterator[Served]:
    """The `wanted` endpoints for the length of the block, released when it ends.

    Backends that serve nothing give no endpoints (the designer then says what it lacks); a
    server that fails to start (`ServerUnavailable`) is a failure of this design step, not of
    the run: its first line is in `Served.failures`, its log in the backend's files.
    """
    endpoints: dict[ServedModel, Endpoint] = {}
    failures: dict[ServedModel, str] = {}
    try:
        for which in wanted:
            try:
                endpoint = backend.endpoint(which)
            except ServerUnavailable as err:
                failures[which] = one_line(err)
                continue
            if endpoint is not None:
                endpoints[which] = endpoint
        yield Served(endpoints, failures)
    finally:
        if isinstance(backend, ServingBackend):
            backend.release()
