"""The verl backend's state after a round: ``verl_state.json`` (`harness.backends.model_state`)."""

from __future__ import annotations

from harness.backends.model_state import STATE_SCHEMA, ModelState, state_file

__all__ = ["STATE_FILE", "STATE_SCHEMA", "VerlState"]

STATE_FILE = state_file("verl")
VerlState = ModelState
