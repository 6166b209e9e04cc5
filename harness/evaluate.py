"""Scoring a backend's answers: the testbed's verifier, the same for every backend."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from harness.backends.base import Backend
from harness.records import InstanceVerdict, SuiteResult
from mapf_env import BenchmarkSuite, EvalReport, Instance, Verdict, verify
from mapf_env.verifier import AnswerKeyError


def judge(instance: Instance, answer: str) -> Verdict:
    """`verify`, with a corrupted answer key turned into a loud, named error."""
    try:
        return verify(instance, answer)
    except AnswerKeyError as err:
        raise AnswerKeyError(f"instance {instance.id}: {err}") from None


def validation_report(backend: Backend, instances: Sequence[Instance], seed: int) -> EvalReport:
    """Greedy answers on `instances`, folded into valid/optimal rates and failure counts."""
    answers = backend.respond(instances, samples=1, greedy=True, seed=seed)
    return EvalReport.from_verdicts(
        (inst.size, judge(inst, texts[0])) for inst, texts in zip(instances, answers, strict=True)
    )


def suite_result(backend: Backend, suite: BenchmarkSuite, best_of: int, seed: int) -> SuiteResult:
    """Greedy and best-of-n results on a benchmark suite, with every instance's verdict."""
    instances = [item.instance for item in suite.items]
    greedy = backend.respond(instances, samples=1, greedy=True, seed=seed)
    sampled = backend.respond(instances, samples=best_of, greedy=False, seed=seed + 1)
    return score_suite(suite, [texts[0] for texts in greedy], sampled, best_of)


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
