"""What a finished round of a model-training backend leaves for the next one.

The round loop saves the backend after every round and loads it on ``--resume``. The weights
stay where the backend wrote them (verl: ``verl/round-NNN/checkpoints/.../huggingface``; trl:
``trl/round-NNN/model``); the state file, ``<backend>_state.json`` in the round's checkpoint,
holds the round count, the optimiser steps so far, the running valid rate (the reward's
accuracy weight), the model's path relative to the state file (so a run directory can be moved
as a whole) and, where the backend gives it, the model's checksum, which the backend checks on
load. An ``hf_model`` link beside it is a convenience for people; only the JSON is read back.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from envdesign_common import atomic_write_bytes

__all__ = ["STATE_SCHEMA", "ModelState", "state_file"]

STATE_SCHEMA = 1


def state_file(backend: str) -> str:
    """The state's file name for `backend` (``verl_state.json``)."""
    return f"{backend}_state.json"


@dataclass(frozen=True, slots=True)
class ModelState:
    """The backend's progress after a round (see the module docstring)."""

    policy: str
    model: Path | None
    """The last round's Hugging Face directory; None before the first round."""
    rounds_done: int
    steps_done: int
    running_valid_rate: float
    running_updates: int
    model_sha256: str | None = None
    """The model directory's checksum (`checksums.directory_sha256`); None: not kept."""

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
            "model_sha256": self.model_sha256,
        }
        atomic_write_bytes(
            directory / state_file(backend), json.dumps(state, indent=2).encode("utf-8")
        )
        link = directory / "hf_model"
        if relative is not None and not link.is_symlink():
            with contextlib.suppress(OSError):  # a convenience: the JSON is what load reads
                link.symlink_to(relative, target_is_directory=True)

    @classmethod
    def read(cls, directory: Path, backend: str) -> ModelState:
        """The state `write` left; ValueError for another backend's, FileNotFoundError where
        the model it points to is gone."""
        path = directory / state_file(backend)
        state = json.loads(path.read_text(encoding="utf-8"))
        if state.get("schema_version") != STATE_SCHEMA or state.get("backend") != backend:
            raise ValueError(f"{path} is not a {backend} backend state")
        model = None
        if state["model"] is not None:
            model = Path(os.path.normpath(directory / state["model"]))
            if not (model / "config.json").is_file():
                raise FileNotFoundError(
                    f"{path} points to {model}, which holds no Hugging Face model; was the "
                    f"run's {backend}/ directory moved or deleted?"
                )
        return cls(
            policy=str(state["policy"]),
            model=model,
            rounds_done=int(state["rounds_done"]),
            steps_done=int(state["steps_done"]),
            running_valid_rate=float(state["running_valid_rate"]),
            running_updates=int(state["running_updates"]),
            model_sha256=state.get("model_sha256"),
        )
