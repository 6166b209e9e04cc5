"""The board's statistics beyond the Sum cells.

Per ranked designer (`designer_statistics`, computed with the rest of its part:
`leaderboards.designer_parts`): rliable's aggregates, its profile and P(improvement) over the
baseline (`leaderboards.cell_scores`), and its validation curves per round
(`leaderboards.curves`). Across designers (`board_statistics`): the controls
(`leaderboards.controls`) and the detectable difference (`leaderboards.power`); the controls
reuse the rows' means, resampled Sums and paired deltas, which each part returns
(`leaderboards.sums.Drawn`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leaderboards.board import Aggregate, Improvement, Profile, RoundCurve
from leaderboards.cell_scores import CellScores, aggregates, improvements, profiles
from leaderboards.controls import board_controls
from leaderboards.curves import round_curves
from leaderboards.groups import Group
from leaderboards.power import board_power
from leaderboards.sums import Drawn


@dataclass(frozen=True)
class DesignerStatistics:
    """One ranked designer's rows of the board's statistics."""

    aggregates: list[Aggregate]
    profiles: list[Profile]
    improvements: list[Improvement]
    """Against the baseline; none for the baseline itself or a row of another kind."""
    curves: list[RoundCurve]


def designer_statistics(
    g: Group, scores: CellScores, base_scores: CellScores | None
) -> DesignerStatistics:
    """`g`'s statistics from its task scores (and the baseline's, to compare it with)."""
    return DesignerStatistics(
        aggregates=aggregates(scores),
        profiles=profiles(scores),
        improvements=improvements(scores, base_scores) if base_scores is not None else [],
        curves=round_curves(g),
    )


def board_statistics(
    groups: list[Group],
    each: Sequence[DesignerStatistics],
    drawn: Sequence[Drawn],
    suites: list[str],
    resamples: int,
) -> dict[str, Any]:
    """`Board`'s aggregates, improvements, profiles, curves (`each`: the ranked `groups`'
    statistics, in the rows' order), controls (from `drawn`: what each of them resampled, in
    the same order) and power fields."""
    return {
        "aggregates": tuple(a for s in each for a in s.aggregates),
        "improvements": tuple(i for s in each for i in s.improvements),
        "profiles": tuple(p for s in each for p in s.profiles),
        "curves": tuple(c for s in each for c in s.curves),
        "controls": board_controls(groups, drawn, suites, resamples),
        "power": board_power(groups, suites),
    }
