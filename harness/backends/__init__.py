"""Training backends: who turns a round's dataset into a better policy (cpu, trl, verl)."""

from harness.backends.base import (
    Backend,
    BackendUnavailable,
    RoundTraining,
    Served,
    ServerUnavailable,
    ServingBackend,
    serving,
)

__all__ = [
    "Backend",
    "BackendUnavailable",
    "RoundTraining",
    "Served",
    "ServerUnavailable",
    "ServingBackend",
    "serving",
]
