"""What the verl backend's processes cost besides their work: model loads, noted as they happen.

Every process the backend starts loads a model before it does anything useful; the round's
record says how long each took (`harness.backends.base.ModelLoad`), so the share of a round
spent loading is measured rather than guessed. Where each load ends:

* training: when verl's file logger opens its file. Both supported verl lines open it in
  ``RayPPOTrainer.fit()``, right after ``init_workers()`` (Ray, the FSDP actor and reference
  loads, the rollout engine); verl logs no timing of its own for that phase. The backend sees
  the file at its next poll: an empty file's modification time is its creation time, a file
  already written to is taken as created when seen (within one poll interval). Resuming a
  round's checkpoint happens after that point and so counts as training.
* evaluation: the generator's own clock (`generate.GenerateTimings`), from its start, vLLM's
  import included, to the engine built.
* serving: from ``vllm serve``'s start to ``/health`` and ``/v1/models`` answering.
"""

from __future__ import annotations

import time
from pathlib import Path

from harness.backends.ledger import LoadLedger

__all__ = ["LoadLedger", "TrainerReady"]


class TrainerReady:
    """When a training process finished loading: its file logger's file appeared."""

    def __init__(self, metrics: Path) -> None:
        self.metrics = metrics
        self.started = time.time()
        self.ready: float | None = None

    def check(self) -> None:
        """Look for the file (call it at every poll and once when the process ended)."""
        if self.ready is not None:
            return
        try:
            stat = self.metrics.stat()
        except OSError:
            return
        now = time.time()
        self.ready = min(now, max(self.started, stat.st_mtime)) if stat.st_size == 0 else now

    def seconds(self) -> float | None:
        """Start to loaded; None while (or if) verl never got that far."""
        return None if self.ready is None else self.ready - self.started
