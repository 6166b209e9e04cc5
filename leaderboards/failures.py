"""How answers failed: the share of each first failing check, per designer and suite (greedy)."""

from __future__ import annotations

from collections.abc import Sequence

from leaderboards.board import FailureRow
from leaderboards.readers import LoadedRun
from mapf_env.report import FAILURE_TYPES


def failure_rows(
    designer: str, runs: Sequence[LoadedRun], suites: Sequence[str]
) -> list[FailureRow]:
    """Shares (percent) over all of the designer's greedy answers, seeds pooled."""
    rows = []
    for suite in suites:
        verdicts = [v for run in runs for v in run.record.suites[suite].verdicts]
        answers = len(verdicts)
        counts = dict.fromkeys(FAILURE_TYPES, 0)
        for v in verdicts:
            if v.failure is not None:
                counts[v.failure] = counts.get(v.failure, 0) + 1
        share = {k: round(100 * c / answers, 4) if answers else 0.0 for k, c in counts.items()}
        valid = sum(v.valid for v in verdicts)
        rows.append(
            FailureRow(
                designer=designer,
                suite=suite,
                answers=answers,
                valid=round(100 * valid / answers, 4) if answers else 0.0,
                shares=share,
            )
        )
    return rows
