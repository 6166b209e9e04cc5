"""Scoring answers to a benchmark suite: the testbed's verifier, the same for every source.

Answers are scored and stored by one path: `score_answers` (answers from anywhere: a backend,
a zero-shot policy, a bundle being verified) gives a `ScoredSuite`, and `store_scored` writes
every suite's answers beside the record-to-be (`run_records.answers`) and returns the results
and checksums the record carries. The answers are on disk before the record that names them, so
a crash never leaves a result without them. It lives with the records because a verdict's
meaning is part of the record contract: a board re-scoring a bundle must judge exactly as the
run did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mapf_env import BenchmarkSuite, EvalReport, Instance, Verdict, verify
from mapf_env.verifier import AnswerKeyError
from run_records.answers import AnswersError, SuiteAnswers, write_answers
from run_records.schema import InstanceVerdict, SuiteResult

__all__ = ["ScoredSuite", "judge", "score_answers", "score_suite", "store_scored"]


@dataclass(frozen=True)
class ScoredSuite:
    """A suite's result and the answers it was scored from."""

    result: SuiteResult
    answers: SuiteAnswers


def judge(instance: Instance, answer: str) -> Verdict:
    """`verify`, with a corrupted answer key turned into a loud, named error."""
    try:
        return verify(instance, answer)
    except AnswerKeyError as err:
        raise AnswerKeyError(f"instance {instance.id}: {err}") from None


def score_answers(suite: BenchmarkSuite, answers: SuiteAnswers, best_of: int) -> ScoredSuite:
    """Score stored or given answers; they must be the suite's items, in the suite's order."""
    expected = [item.instance.id or "" for item in suite.items]
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
    result = score_suite(suite, answers.greedy, answers.sampled, best_of)
    return ScoredSuite(result, answers)


def store_scored(
    directory: Path, scored: Mapping[str, ScoredSuite]
) -> tuple[dict[str, SuiteResult], dict[str, str]]:
    """Write each suite's answers under `directory` (before its record is written); the
    results by suite and the answers files' sha256 by suite, for the record."""
    checksums = {name: write_answers(directory, suite.answers) for name, suite in scored.items()}
    return {name: suite.result for name, suite in scored.items()}, checksums


def score_suite(
    suite: BenchmarkSuite, greedy: Sequence[str], sampled: Sequence[Sequence[str]], best_of: int
) -> SuiteResult:
    """A suite's result from given answers: one greedy answer and `best_of` samples per item.

    Shared by the round loop (a backend's answers) and `harness eval` (a zero-shot policy's).
    """
    rows, greedy_scored, best_scored = [], [], []
    for item, first, many in zip(suite.items, greedy, sampled, strict=True):
        verdict = judge(item.instance, first)
        best = _best(item.instance, many)
        greedy_scored.append((item.size, verdict))
        best_scored.append((item.size, best))
        rows.append(
            InstanceVerdict(
                id=item.instance.id or "",
                size=item.size,
                subset=item.subset,
                hole_ratio=item.hole_ratio,
                valid=verdict.valid,
                optimal=bool(verdict.optimal),
                failure=verdict.failure.value if verdict.failure else None,
                cost=verdict.cost,
                optimal_cost=verdict.optimal_cost,
                best_of_valid=best.valid,
                best_of_optimal=bool(best.optimal),
                optimal_soc=verdict.optimal_soc,
                optimal_makespan=verdict.optimal_makespan,
                best_of_optimal_soc=best.optimal_soc,
                best_of_optimal_makespan=best.optimal_makespan,
            )
        )
    return SuiteResult(
        suite=suite.name,
        n_agents=suite.n_agents,
        greedy=EvalReport.from_verdicts(greedy_scored),
        best_of=EvalReport.from_verdicts(best_scored),
        best_of_n=best_of,
        verdicts=tuple(rows),
        suite_version=suite.version,
        content_sha256=suite.content_sha256,
    )


def _best(instance: Instance, answers: Sequence[str]) -> Verdict:
    """The best of several answers: optimal over valid over invalid, cheaper first.

    Best-of-n asks whether *some* sample succeeds, so each objective's flag is whether any
    sample is optimal under it (the makespan-optimal sample need not be the SOC-optimal one).
    """
    verdicts = [judge(instance, a) for a in answers]
    best = min(
        verdicts,
        key=lambda v: (not v.optimal, not v.valid, v.cost if v.cost is not None else 1 << 30),
    )
    return replace(
        best,
        optimal_soc=_any_of(v.optimal_soc for v in verdicts),
        optimal_makespan=_any_of(v.optimal_makespan for v in verdicts),
    )


def _any_of(flags: Iterable[bool | None]) -> bool | None:
    """True if any flag is True; else None if any is unknown; else False."""
    seen = list(flags)
    if any(seen):
        return True
    return None if None in seen else False
