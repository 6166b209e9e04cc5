"""How answers failed: the share of each of the task's failure types (MAPF: the first failing
check), per designer and suite (greedy)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from leaderboards.board import FailureRow
from leaderboards.layouts import read_suite
from leaderboards.readers import LoadedRun


def failure_rows(
    designer: str, runs: Sequence[LoadedRun], suites: Sequence[str]
) -> list[FailureRow]:
    """Shares (percent) over all of the designer's greedy answers, seeds pooled."""
    rows = []
    task = runs[0].task
    for suite in suites:
        failed: Counter[str | None] = Counter()
        for run in runs:
            failed.update(read_suite(task, run.record.suites[suite]).failures)
        answers = sum(failed.values())
        valid = failed.pop(None, 0)
        counts = dict.fromkeys(task.failure_types, 0) | failed
        share = {k: round(100 * c / answers, 4) if answers else 0.0 for k, c in counts.items()}
        rows.append(
            FailureRow(
                designer=designer,
                suite=suite,
                answers=answers,
                valid=round(100 * valid / answers, 4) if answers else 0.0,
                shares={str(k): v for k, v in share.items()},
            )
        )
    return rows
