"""`CutRecords`: the whole record side of a task, to inherit, for a task without a record
vocabulary of its own (reports and suite results per cut, `tasks.records`; their text for an
LLM designer, `tasks.report_text`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from envdesign_common.yaml_text import dump_yaml
from tasks.base import BoardRate, ReportRates, Suite, SuiteItem, VerdictTable
from tasks.records import (
    CutReport,
    CutSuiteResult,
    Judging,
    cut_board_rates,
    cut_result_problem,
    cut_verdict_table,
    fold,
    report_rates,
    score_suite,
)
from tasks.report_text import report_breakdown, report_lines

__all__ = ["CutRecords"]


class CutRecords:
    """The record side of a task, to inherit: `report_model`, `result_model`, `report`,
    `score_suite`, `rates`, `suite_rates`, and what boards read (`board_rates`, `cut_titles`,
    `result_problem`, `verdict_table`) (`tasks.records`), `config_yaml` (every field of the
    configuration, as YAML), and `describe_report` and `report_headline`
    (`tasks.report_text`), and a reward of validity alone (`reward_optimum` None; a task whose
    reward pays an optimum names it). The class it is mixed into gives the rest of the `Task`
    protocol, its cuts, taxonomy and judge included."""

    report_model: type[BaseModel] = CutReport
    result_model: type[BaseModel] = CutSuiteResult
    reward_optimum: str | None = None

    @property
    def board_rates(self: Judging) -> tuple[BoardRate, ...]:
        return cut_board_rates(self.optimal_kinds)

    @property
    def cut_titles(self: Judging) -> dict[str, str]:
        return {cut: cut for cut in self.cuts}

    def result_problem(self: Judging, result: BaseModel) -> str | None:
        return cut_result_problem(self, CutSuiteResult.model_validate(result))

    def verdict_table(self: Judging, result: BaseModel) -> VerdictTable:
        return cut_verdict_table(self, CutSuiteResult.model_validate(result))

    def report(self: Judging, items: Sequence[SuiteItem[Any]], answers: Sequence[str]) -> CutReport:
        judged = zip(items, answers, strict=True)
        return fold(self, ((it.cuts, self.judge(it.item, answer)) for it, answer in judged))

    def score_suite(
        self: Judging,
        suite: Suite[Any],
        greedy: Sequence[str],
        sampled: Sequence[Sequence[str]],
        best_of: int,
    ) -> CutSuiteResult:
        return score_suite(self, suite, greedy, sampled, best_of)

    def rates(self: Judging, report: BaseModel) -> ReportRates:
        return report_rates(self, CutReport.model_validate(report))

    def suite_rates(self: Judging, result: BaseModel, *, best_of: bool = False) -> ReportRates:
        read = CutSuiteResult.model_validate(result)
        return report_rates(self, read.best_of if best_of else read.greedy)

    def config_yaml(self, config: BaseModel) -> str:
        return dump_yaml(config.model_dump(mode="json"))

    def describe_report(self: Judging, report: BaseModel) -> str:
        return report_breakdown(self, CutReport.model_validate(report))

    def report_headline(self: Judging, report: BaseModel) -> str:
        return report_lines(self, CutReport.model_validate(report))
