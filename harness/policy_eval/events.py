"""What an evaluation reports while it runs, and the running count behind it.

An instance is finished once all its samples are in (from the cache or the model); its first
answer is verified at once, so the progress view shows a live valid rate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from tasks import Suite, Task

EventKind = Literal["start", "instance", "suite", "done"]


@dataclass(frozen=True)
class EvalEvent:
    """`start` (per suite, cached answers counted), `instance` (one finished), `suite`
    (all of a suite's instances finished), `done` (the record is written at `path`)."""

    kind: EventKind
    suite: str
    done: int = 0
    total: int = 0
    valid: int = 0
    failed: int = 0
    cached: int = 0
    path: str | None = None

    @property
    def valid_rate(self) -> float | None:
        return self.valid / self.done if self.done else None

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind, **asdict(self), "valid_rate": self.valid_rate}


OnEvent = Callable[[EvalEvent], None]


@dataclass
class SuiteTally:
    """One suite's answers as they arrive: per item, its samples' texts."""

    task: Task[Any, Any]
    suite: Suite[Any]
    samples: int
    texts: list[dict[int, str]] = field(default_factory=list)
    done: int = 0
    valid: int = 0
    failed: int = 0
    cached: int = 0

    def __post_init__(self) -> None:
        self.texts = [{} for _ in self.suite.items]

    @property
    def total(self) -> int:
        return len(self.suite.items)

    def add(self, item: int, sample: int, text: str, *, failed: bool, cached: bool) -> bool:
        """Record one answer; True when it finished its instance."""
        self.failed += failed
        self.cached += cached
        answers = self.texts[item]
        answers[sample] = text
        if len(answers) < self.samples:
            return False
        self.done += 1
        self.valid += self.task.judge(self.suite.items[item].item, answers[0]).valid
        return True

    def event(self, kind: EventKind) -> EvalEvent:
        return EvalEvent(kind, self.suite.name, self.done, self.total, self.valid, self.failed,
                         self.cached)  # fmt: skip

    def answers(self) -> tuple[list[str], list[list[str]]]:
        """(first answer per item, all samples per item), every sample present."""
        ordered = [[texts[s] for s in range(self.samples)] for texts in self.texts]
        return [many[0] for many in ordered], ordered
