"""A backend's answers, scored: its validation report and its benchmark results.

The backend only answers; `run_records.scoring` judges, the same way for every source of answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.backends.base import Backend
from mapf_env import BenchmarkSuite, EvalReport, Instance, load_suite, stratified
from run_records import ScoredSuite, SuiteAnswers, judge, score_answers


def validation_report(backend: Backend, instances: Sequence[Instance], seed: int) -> EvalReport:
    """Greedy answers on `instances`, folded into valid/optimal rates and failure counts."""
    answers = backend.respond(instances, samples=1, greedy=True, seed=seed)
    return EvalReport.from_verdicts(
        (inst.size, judge(inst, texts[0])) for inst, texts in zip(instances, answers, strict=True)
    )


def benchmark_suite(
    backend: Backend, suite: BenchmarkSuite, best_of: int, seed: int
) -> ScoredSuite:
    """The backend's greedy answer and `best_of` samples on every item, and their scores."""
    instances = [item.instance for item in suite.items]
    greedy = backend.respond(instances, samples=1, greedy=True, seed=seed)
    sampled = backend.respond(instances, samples=best_of, greedy=False, seed=seed + 1)
    answers = SuiteAnswers.of(suite, [texts[0] for texts in greedy], sampled)
    return score_answers(suite, answers, best_of)


def experiment_suite(name: str, limit: int | None) -> BenchmarkSuite:
    """Shipped suite `name` as an experiment evaluates it: whole, or its stratified subset of
    `limit` instances (what `leaderboards` rebuilds to re-score the stored answers)."""
    return stratified(load_suite(name), limit)
