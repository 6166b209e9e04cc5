"""A backend's answers, scored by the task: its validation report and its benchmark results.

The backend only answers; the task judges (`Task.report`, and `Task.score_suite` through
`run_records.score_answers`), the same way for every source of answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from harness.backends.base import Backend
from run_records import ScoredSuite, SuiteAnswers, score_answers
from tasks import Suite, SuiteItem, Task, stratified


def validation_report(
    task: Task[Any, Any], backend: Backend, items: Sequence[SuiteItem[Any]], seed: int
) -> BaseModel:
    """Greedy answers on `items`, folded by the task into its report (rates, failures)."""
    answers = backend.respond([item.item for item in items], samples=1, greedy=True, seed=seed)
    return task.report(items, [texts[0] for texts in answers])


def benchmark_suite(
    task: Task[Any, Any], backend: Backend, suite: Suite[Any], best_of: int, seed: int
) -> ScoredSuite:
    """The backend's greedy answer and `best_of` samples on every item, and their scores."""
    items = [item.item for item in suite.items]
    greedy = backend.respond(items, samples=1, greedy=True, seed=seed)
    sampled = backend.respond(items, samples=best_of, greedy=False, seed=seed + 1)
    answers = SuiteAnswers.of(suite, [texts[0] for texts in greedy], sampled)
    return score_answers(task, suite, answers, best_of)


def experiment_suite(task: Task[Any, Any], name: str, limit: int | None) -> Suite[Any]:
    """The task's suite `name` as an experiment evaluates it: whole, or its stratified subset
    of `limit` items (what `leaderboards` rebuilds to re-score the stored answers)."""
    return stratified(task.suite(name), task.cuts, limit)
