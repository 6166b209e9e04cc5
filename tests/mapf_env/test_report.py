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
