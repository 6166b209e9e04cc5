"""EvalReport: verdicts folded into the rates and failure counts designers read."""

from __future__ import annotations

from mapf_env import load_suite, reference_answer, verify
from mapf_env.report import FAILURE_TYPES, EvalReport


def test_report_counts_rates_and_first_failures() -> None:
    items = load_suite("validation").items[:100]
    scored = []
    for k, item in enumerate(items):
        inst = item.instance
        answer = reference_answer(inst) if k % 2 else "I cannot solve this."
        scored.append((item.size, verify(inst, answer)))
    report = EvalReport.from_verdicts(scored)
    assert report.overall.n == 100 and report.overall.valid == 50 == report.overall.optimal
    assert report.failures["parse"] == 50
    assert set(report.failures) == set(FAILURE_TYPES)
    assert sum(c.n for c in report.per_size.values()) == 100
    for size, counts in report.per_size.items():
        assert counts.valid_rate == counts.valid / counts.n
        assert report.per_size_failures[size]["parse"] == counts.n - counts.valid
    assert EvalReport.model_validate_json(report.model_dump_json()) == report


def test_empty_report_has_zero_rates() -> None:
    report = EvalReport.from_verdicts([])
    assert report.overall.valid_rate == 0.0 and report.per_size == {}
    assert all(v == 0 for v in report.failures.values())


def test_report_counts_both_optima_where_the_keys_have_them() -> None:
    """A version-2 answer key judges each answer under both objectives; dropping the makespan
    minimum from one key whose answer is valid makes the makespan count unknown, not smaller."""
    items = load_suite("validation").items[:40]
    scored = [(item.size, verify(item.instance, reference_answer(item.instance))) for item in items]
    report = EvalReport.from_verdicts(scored)
    assert report.overall.optimal_soc == 40 == report.overall.optimal
    expected = sum(
        v.makespan == item.instance.optimum.min_makespan  # type: ignore[union-attr]
        for item, (_, v) in zip(items, scored, strict=True)
    )
    assert report.overall.optimal_makespan == expected
    assert report.overall.optimal_makespan_rate == expected / 40
    first = items[0].instance
    assert first.optimum is not None
    unkeyed = first.model_copy(
        update={"optimum": first.optimum.model_copy(update={"min_makespan": None})}
    )
    partial = EvalReport.from_verdicts([(first.size, verify(unkeyed, reference_answer(first)))])
    assert partial.overall.optimal_makespan is None and partial.overall.optimal_soc == 1
    assert partial.overall.optimal_makespan_rate is None
    invalid = EvalReport.from_verdicts([(first.size, verify(unkeyed, "no answer"))])
    assert invalid.overall.optimal_makespan == 0  # an invalid answer is never optimal
