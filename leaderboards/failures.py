"""How answers failed: the share of each first failing check, per designer and suite (greedy)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from operator import attrgetter

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
        failed = Counter(map(attrgetter("failure"), verdicts))
        failed.pop(None, None)
        counts = dict.fromkeys(FAILURE_TYPES, 0) | failed
        share = {k: round(100 * c / answers, 4) if answers else 0.0 for k, c in counts.items()}
        valid = sum(map(attrgetter("valid"), verdicts))
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
