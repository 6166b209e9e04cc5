"""An outside backend that serves any task: a learner that recalls the questions it trained on.

`RecallBackend` answers an item with the task's reference answer once it has trained on an item
with the same prompt, and with nothing before, so what it scores depends only on what its
designer generated. It reads items only through the task (its prompt and reference answer), so
it declares every task (``tasks=None``) and runs the loop on reasoning-gym as on
MAPF-FrozenLake.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from designers import Endpoint
from harness.backends import RoundTraining
from harness.backends.spec import BackendSpec
from run_records import TrainStep
from tasks import Task


class RecallBackend:
    name = "recall"

    def __init__(self, task: Task[Any, Any]) -> None:
        self.task = task
        self.known: set[str] = set()

    def key(self, item: Any) -> str:
        return json.dumps(self.task.prompt(item), sort_keys=True)

    def initialise(self, seed: int) -> None:
        self.known = set()

    def train_round(
        self,
        instances: Sequence[Any],
        *,
        epochs: int,
        seed: int,
        on_step: Callable[[TrainStep], None] | None = None,
    ) -> RoundTraining:
        before = sum(self.key(item) in self.known for item in instances) / max(1, len(instances))
        self.known.update(self.key(item) for item in instances)
        step = TrainStep(step=0, epoch=0, reward=before, valid_rate=before, kl=0.0, loss=0.0,
                         seconds=0.0)  # fmt: skip
        if on_step is not None:
            on_step(step)
        return RoundTraining(steps=(step,), epochs=epochs, samples=len(instances), seconds=0.0)

    def respond(
        self, instances: Sequence[Any], *, samples: int = 1, greedy: bool = True, seed: int = 0
    ) -> list[list[str]]:
        return [[self.answer(item)] * samples for item in instances]

    def answer(self, item: Any) -> str:
        known = self.key(item) in self.known
        return (self.task.reference_answer(item) or "") if known else ""

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "recall.json").write_text(json.dumps(sorted(self.known)))

    def load(self, directory: Path) -> None:
        self.known = set(json.loads((directory / "recall.json").read_text()))

    def endpoint(self, which: Literal["policy", "base"]) -> Endpoint | None:
        return None


def build(experiment: Any, **_: Any) -> RecallBackend:
    return RecallBackend(experiment.task_object)


SPEC = BackendSpec(
    name="recall",
    description="recalls the prompts it trained on, for any task (a plug-in backend for tests)",
    build=build,
    tasks=None,
)
