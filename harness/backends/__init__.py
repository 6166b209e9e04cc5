"""Training backends: who turns a round's dataset into a better policy (CPU learner, verl)."""

from harness.backends.base import (
    Backend,
    BackendUnavailable,
    RoundTraining,
    ServingBackend,
    serving,
)

__all__ = [
    "Backend",
    "BackendUnavailable",
    "RoundTraining",
    "ServingBackend",
    "serving",
]
