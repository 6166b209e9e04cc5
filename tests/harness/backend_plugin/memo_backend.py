"""An outside backend, installed as a plug-in: a learner that memorises the map sizes it trained on.

`MemoBackend` answers an instance with the optimal plan once it has trained on at least
`memo.instances_per_size` instances of that map size, and with an empty plan before; so a run
with it learns, round by round, exactly the sizes its designer gave it. It is a whole backend in
one small module, declared by `SPEC` with its own settings section (``memo:``), and registered
through the ``harness.backends`` entry-point group as any plug-in would be.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from designers import Endpoint
from harness.backends import RoundTraining
from harness.backends.spec import BackendSpec
from mapf_env import Instance, reference_answer
from run_records import TrainStep


class MemoSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    instances_per_size: int = Field(10, ge=1, description="Instances of a size before it is known.")


class MemoBackend:
    name = "memo"

    def __init__(self, settings: MemoSettings) -> None:
        self.settings = settings
        self.seen: Counter[int] = Counter()

    def initialise(self, seed: int) -> None:
        self.seen = Counter()

    def train_round(
        self,
        instances: Sequence[Instance],
        *,
        epochs: int,
        seed: int,
        on_step: Callable[[TrainStep], None] | None = None,
    ) -> RoundTraining:
        self.seen.update(inst.size for inst in instances)
        known = sum(self.knows(inst) for inst in instances) / max(1, len(instances))
        step = TrainStep(step=0, epoch=0, reward=known, valid_rate=known, kl=0.0, loss=0.0,
                         seconds=0.0)  # fmt: skip
        if on_step is not None:
            on_step(step)
        return RoundTraining(steps=(step,), epochs=epochs, samples=len(instances), seconds=0.0)

    def knows(self, instance: Instance) -> bool:
        return self.seen[instance.size] >= self.settings.instances_per_size

    def respond(
        self, instances: Sequence[Instance], *, samples: int = 1, greedy: bool = True, seed: int = 0
    ) -> list[list[str]]:
        return [[reference_answer(i) if self.knows(i) else "[]"] * samples for i in instances]

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "memo.json").write_text(json.dumps(dict(self.seen)))

    def load(self, directory: Path) -> None:
        seen = json.loads((directory / "memo.json").read_text())
        self.seen = Counter({int(size): n for size, n in seen.items()})

    def endpoint(self, which: Literal["policy", "base"]) -> Endpoint | None:
        return None


def build(experiment: Any, **_: Any) -> MemoBackend:
    return MemoBackend(experiment.settings_of(MemoSettings))


SPEC = BackendSpec(
    name="memo",
    description="memorises the map sizes it trained on (a plug-in backend for tests)",
    build=build,
    settings=MemoSettings,
)
