"""MAPF-FrozenLake's answers scored: the validation report and a suite's result.

Judging is the testbed's verifier (`verify`: the eight checks, then both optima), the same for
every source of answers -- a backend, a zero-shot policy, a bundle being verified -- so a
re-scored suite equals the stored one field by field. A verdict keeps the instance's cuts as
the shipped suite holds them (its nominal hole ratio, not the one counted on its grid).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from mapf_env import EvalReport, Instance, Verdict, load_suite, verify
from mapf_env.instance import Objective, size_name
from mapf_env.report import RateCounts
from mapf_env.verifier import AnswerKeyError
from tasks.base import Rates, ReportRates, Suite, SuiteItem
from tasks.mapf_frozenlake.records import InstanceVerdict, SuiteResult

__all__ = ["RATE_NAMES", "judge", "rates", "report", "score_suite"]

RATE_NAMES = {Objective.MAKESPAN: "makespan", Objective.SOC: "SOC"}
"""Each objective's optimal rate as summaries name it (`Rates.optimal`): makespan first, the
paper's "opt."."""


def judge(instance: Instance, answer: str) -> Verdict:
    """`verify`, with a corrupted answer key turned into a loud, named error."""
    try:
        return verify(instance, answer)
    except AnswerKeyError as err:
        raise AnswerKeyError(f"instance {instance.id}: {err}") from None


def report(items: Sequence[SuiteItem[Instance]], answers: Sequence[str]) -> EvalReport:
    """Greedy answers folded into valid/optimal rates per map size and failure counts."""
    return EvalReport.from_verdicts(
        (it.item.size, judge(it.item, answer)) for it, answer in zip(items, answers, strict=True)
    )


def score_suite(
    suite: Suite[Instance], greedy: Sequence[str], sampled: Sequence[Sequence[str]], best_of: int
) -> SuiteResult:
    """A suite's result from one greedy answer and `best_of` samples per item."""
    shipped = load_suite(suite.name)
    cells = {item.instance.id: item for item in shipped.items}
    rows, greedy_scored, best_scored = [], [], []
    for item, first, many in zip(suite.items, greedy, sampled, strict=True):
        cell = cells[item.id]
        verdict = judge(item.item, first)
        best = _best(item.item, many)
        greedy_scored.append((cell.size, verdict))
        best_scored.append((cell.size, best))
        rows.append(
            InstanceVerdict(
                id=item.id,
                size=cell.size,
                subset=cell.subset,
                hole_ratio=cell.hole_ratio,
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
        n_agents=shipped.n_agents,
        greedy=EvalReport.from_verdicts(greedy_scored),
        best_of=EvalReport.from_verdicts(best_scored),
        best_of_n=best_of,
        verdicts=tuple(rows),
        suite_version=suite.version,
        content_sha256=suite.checksum,
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


def counts_rates(counts: RateCounts) -> Rates:
    """One group's counts as rates: makespan first (the paper's "opt."), then SOC; a valid
    answer scores 1."""
    optimal = {
        RATE_NAMES[Objective.MAKESPAN]: counts.optimal_makespan_rate,
        RATE_NAMES[Objective.SOC]: counts.optimal_soc_rate,
    }
    return Rates(n=counts.n, valid_rate=counts.valid_rate, score=counts.valid_rate,
                 optimal=optimal)  # fmt: skip


def rates(report: EvalReport) -> ReportRates:
    """`report`'s rates overall and per map size (the first cut; the paper's Sum is their
    mean)."""
    by_size = {size_name(size): counts_rates(c) for size, c in report.per_size.items()}
    return ReportRates(counts_rates(report.overall), by_size)
