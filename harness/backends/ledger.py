"""What a model backend spent besides its work, noted as it happens, until the loop takes it.

Every model load (a trainer, a generator, a server) and every note a backend makes on the way
(where the validation answers came from, prompts left out) goes here, and the loop takes them
once per round into the round's record (`harness.backends.base.ReportsOverhead`).
"""

from __future__ import annotations

from harness.backends.base import BackendOverhead
from run_records import LoadKind, ModelLoad

__all__ = ["LoadLedger"]


class LoadLedger:
    """The loads and notes since the loop last took them."""

    def __init__(self) -> None:
        self.loads: list[ModelLoad] = []
        self.notes: list[str] = []
        self.validation_seconds: float | None = None

    def load(
        self,
        kind: LoadKind,
        model: str,
        seconds: float,
        process_seconds: float | None = None,
        note: str | None = None,
    ) -> None:
        self.loads.append(ModelLoad(kind=kind, model=model, seconds=max(0.0, seconds),
                                    process_seconds=process_seconds, note=note))  # fmt: skip

    def note(self, text: str) -> None:
        self.notes.append(text)

    def take(self) -> BackendOverhead:
        """Everything noted so far, which is then forgotten."""
        taken = BackendOverhead(loads=tuple(self.loads), notes=tuple(self.notes),
                                validation_seconds=self.validation_seconds)  # fmt: skip
        self.loads, self.notes, self.validation_seconds = [], [], None
        return taken
