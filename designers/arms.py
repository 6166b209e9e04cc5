"""A task's arms, as the curriculum teachers see them: budget shares to move and difficulty
knobs to step, read from what the task declares on its knobs alone.

An arm is one value of the task's first cut (MAPF-FrozenLake: a map size; reasoning-gym: a
dataset) that has a share of the round's budget: a share knob declaring ``cut`` as that first
cut, one cell per value. Its *levers* are the cells beside its share (same parent path) of
knobs that declare which way is harder (MAPF-FrozenLake: ``sizes.3.hole_ratio`` and
``sizes.3.wait_ratio`` beside ``sizes.3.ratio``; reasoning-gym: ``datasets.chain_sum.level``
beside ``datasets.chain_sum.weight``). The validation report is read per arm through the task's
`rates`, whose first cut is the same one, so a teacher never names a domain's fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from designers.knob_drafts import knob_cells, put_cell
from tasks import Knob, Rates, Task

__all__ = [
    "Arm",
    "Lever",
    "arm_rates",
    "arms_problem",
    "as_draft",
    "bounded_shares",
    "budget_knob",
    "solved_rate",
    "task_arms",
    "toward",
]

Key = TypeVar("Key")


@dataclass(frozen=True)
class Lever:
    """One difficulty knob's cell beside an arm's share."""

    knob: Knob
    cell: tuple[Any, ...]

    @property
    def name(self) -> str:
        """The knob's own name, as a reason reads it (``hole_ratio``, ``level``)."""
        return str(self.cell[-1])


@dataclass(frozen=True)
class Arm:
    """A value of the first cut: its name as reports key it, its share's cell, its levers."""

    name: str
    share: tuple[Any, ...]
    levers: tuple[Lever, ...]


def budget_knob(task: Task[Any, Any]) -> Knob | None:
    """The share knob over the task's first cut, if the task declares one."""
    first = task.cuts[0] if task.cuts else None
    return next((k for k in task.knobs() if k.share and k.cut == first), None)


def arms_problem(task: Task[Any, Any], designer: str) -> str | None:
    """Why `designer` (a teacher) has no arms on `task`, in one line, or None."""
    if budget_knob(task) is not None:
        return None
    first = task.cuts[0] if task.cuts else "(none)"
    return (
        f"designer {designer!r} budgets per value of a task's first cut, and task {task.id!r} "
        f"declares no share knob over its first cut {first!r}: declare one, e.g. "
        f"Knob('<table>.*.<share>', 0, 1, ..., share=True, cut={first!r})"
    )


def task_arms(task: Task[Any, Any], config: BaseModel) -> tuple[Arm, ...]:
    """The arms of `config`, in its order, each with its levers (`arms_problem` first)."""
    budget = budget_knob(task)
    if budget is None:
        raise ValueError(arms_problem(task, "a teacher"))
    harder = [
        (knob, cell)
        for knob in task.knobs()
        if knob.harder is not None
        for cell in knob_cells(knob, config)
    ]
    return tuple(
        Arm(
            name=budget.cut_value(share[-2]),
            share=share,
            levers=tuple(Lever(k, cell) for k, cell in harder if cell[:-1] == share[:-1]),
        )
        for share in knob_cells(budget, config)
    )


def arm_rates(task: Task[Any, Any], report: BaseModel | None) -> Mapping[str, Rates]:
    """A report's rates per arm name (none for no report)."""
    return {} if report is None else task.rates(report).by_first_cut


def solved_rate(task: Task[Any, Any], rates: Rates) -> float:
    """The share of an arm's answers solved as the reward pays: optimal in the task's
    `reward_optimum` sense, else valid (a reward of validity alone, or an optimum unknown)."""
    kind = task.reward_optimum
    optimal = rates.optimal.get(kind) if kind is not None else None
    return rates.valid_rate if optimal is None else optimal


def as_draft(values: Mapping[tuple[Any, ...], float]) -> dict[Any, Any]:
    """A change set setting each cell to its value."""
    draft: dict[Any, Any] = {}
    for cell, value in values.items():
        put_cell(draft, cell, value)
    return draft


def toward(value: float, target: float, step: float) -> float:
    """`value` moved by at most `step` toward `target`, never past it."""
    if value < target:
        return min(target, value + step)
    return max(target, value - step)


def bounded_shares(weights: Mapping[Key, float], low: float, high: float) -> dict[Key, float]:
    """Shares proportional to `weights`, each clipped to [low, high], summing to 1.

    The shares are clip(c * w, low, high) for the one scale c that makes them sum to 1, found
    by bisection (the sum grows with c). Weights below `low` count as `low`, so a size at zero
    is lifted to the floor. Needs len(weights) * low <= 1 <= len(weights) * high.
    """
    n = len(weights)
    if not n * low <= 1.0 <= n * high:
        raise ValueError(f"{n} shares cannot all lie in [{low}, {high}] and sum to 1")
    floored = {s: max(w, low, 1e-12) for s, w in weights.items()}

    def total(scale: float) -> float:
        return sum(min(high, max(low, scale * w)) for w in floored.values())

    lo_scale, hi_scale = 0.0, high / min(floored.values())
    for _ in range(100):
        mid = (lo_scale + hi_scale) / 2
        lo_scale, hi_scale = (mid, hi_scale) if total(mid) < 1.0 else (lo_scale, mid)
    scale = (lo_scale + hi_scale) / 2
    return {s: min(high, max(low, scale * w)) for s, w in floored.items()}
