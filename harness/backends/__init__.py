"""Training backends: who turns a round's dataset into a better policy (CPU learner, verl)."""

from harness.backends.base import Backend, RoundTraining, TrainStep

__all__ = ["Backend", "RoundTraining", "TrainStep"]
