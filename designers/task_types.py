"""The type parameters of everything a designer reads and writes, for any task.

A design context, a round as history shows it, and a proposal hold the task's own models: its
configuration, what its generator achieved, and its validation report. Each is generic in them
(`DesignContext[RgConfig, RgStats, CutReport]`); unparametrized, each is MAPF-FrozenLake's,
the first task and the one the paper's designers read, so their code names no parameters.
"""

from __future__ import annotations

from pydantic import BaseModel
from typing_extensions import TypeVar

from mapf_env import EnvConfig, GenerationStats
from mapf_env.report import EvalReport

__all__ = ["ConfigT", "ReportT", "StatsT"]

ConfigT = TypeVar("ConfigT", bound=BaseModel, default=EnvConfig)
"""The task's configuration model: what a designer writes."""
StatsT = TypeVar("StatsT", bound=BaseModel, default=GenerationStats)
"""What the task's generator achieved against what was asked."""
ReportT = TypeVar("ReportT", bound=BaseModel, default=EvalReport)
"""The task's validation report: greedy answers folded."""
