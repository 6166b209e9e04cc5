"""Scoring answers to a suite: the task's own judge, the same for every source of answers.

Answers are scored and stored by one path: `score_answers` (answers from anywhere: a backend,
a zero-shot policy, a bundle being verified) gives a `ScoredSuite` through the task's
`score_suite`, and `store_scored` writes every suite's answers beside the record-to-be
(`run_records.answers`) and returns the results and checksums the record carries. The answers
are on disk before the record that names them, so a crash never leaves a result without them.
It lives with the records because a verdict's meaning is part of the record contract: a board
re-scoring a bundle must judge exactly as the run did.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from run_records.answers import AnswersError, SuiteAnswers, write_answers
from tasks import Suite, Task

__all__ = ["ScoredSuite", "score_answers", "store_scored"]


@dataclass(frozen=True)
class ScoredSuite:
    """A suite's result (the task's `result_model`) and the answers it was scored from."""

    result: BaseModel
    answers: SuiteAnswers


def score_answers(
    task: Task[Any, Any], suite: Suite[Any], answers: SuiteAnswers, best_of: int
) -> ScoredSuite:
    """Score stored or given answers; they must be the suite's items, in the suite's order."""
    expected = [item.id for item in suite.items]
    if answers.ids != expected:
        wrong = next(
            (f"answer {n} is for {got!r} where the suite has {want!r}"
             for n, (got, want) in enumerate(zip(answers.ids, expected, strict=False))
             if got != want),
            f"{len(answers.ids)} answers for {len(expected)} instances",
        )  # fmt: skip
        raise AnswersError(f"answers to suite {suite.name} do not fit it: {wrong}")
    short = next((item for item in answers.items if len(item.samples) != best_of), None)
    if short is not None:
        raise AnswersError(
            f"answers to suite {suite.name}: instance {short.id} has {len(short.samples)} "
            f"samples where best of {best_of} needs {best_of}"
        )
    result = task.score_suite(suite, answers.greedy, answers.sampled, best_of)
    return ScoredSuite(result, answers)


def store_scored(
    directory: Path, scored: Mapping[str, ScoredSuite]
) -> tuple[dict[str, Any], dict[str, str]]:
    """Write each suite's answers under `directory` (before its record is written); the
    results by suite and the answers files' sha256 by suite, for the record."""
    checksums = {name: write_answers(directory, suite.answers) for name, suite in scored.items()}
    return {name: suite.result for name, suite in scored.items()}, checksums
