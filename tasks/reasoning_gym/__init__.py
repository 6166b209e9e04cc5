"""reasoning-gym, the second task family: its procedural datasets behind the `Task` interface.

A designer mixes the chosen datasets (`RgSettings.datasets`, by default `PRESET`) by weight and
sets each one's curriculum level; generation, curricula and scoring are reasoning-gym's own.
Modules: `settings` (what the experiment fixes), `config` (what a designer writes, and the
generator's statistics), `catalog` (the only module touching reasoning-gym), `items` (the item
and its seeds), `generation`, `projection`, `judging` (prompt and verdict), `suites` (the fixed
suites and their shipped checksums, ``suites.json``), `manifest` (computes those checksums),
`describe` (text for LLM designers), `task` (the `Task`).

Importing this package never imports reasoning-gym (`catalog` reads it inside functions): the
spec's `build` does, and a missing package is reported with the extra that installs it
(``envdesign-bench[reasoning-gym]``).
"""

from __future__ import annotations

from tasks.base import TaskSpec
from tasks.reasoning_gym.items import RgItem
from tasks.reasoning_gym.settings import PRESET, RgSettings
from tasks.reasoning_gym.task import TASK_ID, ReasoningGym

__all__ = ["PRESET", "SPEC", "TASK_ID", "ReasoningGym", "RgItem", "RgSettings"]


SPEC = TaskSpec(
    id=TASK_ID,
    description=ReasoningGym.description,
    build=ReasoningGym,
    settings=RgSettings,
    extra="reasoning-gym",
)
