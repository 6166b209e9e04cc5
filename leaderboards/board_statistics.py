"""The board's statistics beyond the Sum cells, from its ranked groups (in the rows' order).

rliable's aggregates, profiles and P(improvement) (`leaderboards.task_scores`), validation curves
per round (`leaderboards.curves`), the controls (`leaderboards.controls`) and the detectable
difference (`leaderboards.power`). They run after the rows, whose means and resampled Sums
(`Group.means`, `Group.reps`) and paired deltas (`Group.paired`) they reuse.
"""

from __future__ import annotations

from typing import Any

from leaderboards.controls import board_controls
from leaderboards.curves import round_curves
from leaderboards.groups import Group
from leaderboards.power import board_power
from leaderboards.task_scores import (
    TaskScores,
    aggregates,
    improvements,
    profiles,
    task_scores,
)


def _against(
    scores: list[TaskScores], base: TaskScores | None
) -> list[tuple[TaskScores, TaskScores]]:
    """(row, baseline) for every other row of the baseline's kind."""
    if base is None:
        return []
    return [(s, base) for s in scores if s is not base and s.kind == base.kind]


def board_statistics(
    groups: list[Group], base: Group | None, suites: list[str], resamples: int
) -> dict[str, Any]:
    """`Board`'s aggregates, improvements, profiles, curves, controls and power fields."""
    scores = [task_scores(g, suites, resamples) for g in groups]
    by_group = {id(g): s for g, s in zip(groups, scores, strict=True)}
    mine = by_group[id(base)] if base is not None else None
    return {
        "aggregates": tuple(a for s in scores for a in aggregates(s)),
        "improvements": tuple(i for s, b in _against(scores, mine) for i in improvements(s, b)),
        "profiles": tuple(p for s in scores for p in profiles(s)),
        "curves": tuple(c for g in groups for c in round_curves(g)),
        "controls": board_controls(groups, suites, resamples),
        "power": board_power(groups, suites),
    }
