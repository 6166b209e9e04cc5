"""What a finished round leaves for the next one: ``verl_state.json`` in the round's checkpoint.

The round loop saves the backend after every round and loads it on ``--resume``. For verl the
weights stay where verl wrote them (``verl/round-NNN/checkpoints/.../huggingface``); the state
file holds the round count, the optimiser steps so far, the running valid rate (the reward's
accuracy weight) and the model's path relative to the state file, so a run directory can be
moved as a whole. An ``hf_model`` link beside it is a convenience for people; only the JSON is
read back.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from envdesign_common import atomic_write_bytes

__all__ = ["STATE_FILE", "STATE_SCHEMA", "VerlState"]

STATE_FILE = "verl_state.json"
STATE_SCHEMA = 1


@dataclass(frozen=True, slots=True)
class VerlState:
    """The backend's progress after a round (see the module docstring)."""

    policy: str
    model: Path | None
    """The last round's Hugging Face directory; None before the first round."""
    rounds_done: int
    steps_done: int
    running_valid_rate: float
    running_updates: int

    def write(self, directory: Path, backend: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        relative = None if self.model is None else os.path.relpath(self.model, directory)
        state = {
            "schema_version": STATE_SCHEMA,
            "backend": backend,
            "policy": self.policy,
            "rounds_done": self.rounds_done,
            "steps_done": self.steps_done,
            "running_valid_rate": self.running_valid_rate,
            "running_updates": self.running_updates,
            "model": relative,
        }
        atomic_write_bytes(directory / STATE_FILE, json.dumps(state, indent=2).encode("utf-8"))
        link = directory / "hf_model"
        if relative is not None and not link.is_symlink():
            with contextlib.suppress(OSError):  # a convenience: the JSON is what load reads
                link.symlink_to(relative, target_is_directory=True)

    @classmethod
    def read(cls, directory: Path, backend: str) -> VerlState:
        """The state `write` left; ValueError for another backend's, FileNotFoundError where
        the model it points to is gone."""
        path = directory / STATE_FILE
        state = json.loads(path.read_text(encoding="utf-8"))
        if state.get("schema_version") != STATE_SCHEMA or state.get("backend") != backend:
            raise ValueError(f"{path} is not a verl backend state")
        model = None
        if state["model"] is not None:
            model = Path(os.path.normpath(directory / state["model"]))
            if not (model / "config.json").is_file():
                raise FileNotFoundError(
                    f"{path} points to {model}, which holds no Hugging Face model; was the "
                    "run's verl/ directory moved or deleted?"
                )
        return cls(
            policy=str(state["policy"]),
            model=model,
            rounds_done=int(state["rounds_done"]),
            steps_done=int(state["steps_done"]),
            running_valid_rate=float(state["running_valid_rate"]),
            running_updates=int(state["running_updates"]),
        )
