"""What a run keeps of a task's answers, for a task without a record vocabulary of its own.

A run writes two kinds of scores: the validation report after every round (what designers
read) and each benchmark suite's result at the end (what boards rank). A task names the models
of both (`Task.report_model`, `Task.result_model`); records store them as they are and read
them back through the task, so MAPF-FrozenLake keeps its own (per-size counts, both optima,
the eight checks). Any other task can take these: counts overall and per value of each cut,
the task's failure types, its optimal kinds, and the mean score -- everything `Judgement`
says -- and one verdict per suite item with its cut values, so a board can cut the results
without re-running anything.

`fold` and `score_suite` are the only way these are made, in the loop, in `harness eval` and
when a bundle is re-scored, so a re-scored suite equals the stored one field by field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from tasks.base import BoardRate, Judgement, Rates, ReportRates, Suite, SuiteItem, VerdictTable

__all__ = [
    "CutCounts",
    "CutReport",
    "CutSuiteResult",
    "ItemVerdict",
    "Judging",
    "counts_rates",
    "cut_board_rates",
    "cut_result_problem",
    "cut_verdict_table",
    "fold",
    "report_rates",
    "score_suite",
]


class Judging(Protocol):
    """What folding and scoring read of a task: its cuts, its taxonomy, and its judge."""

    cuts: tuple[str, ...]
    failure_types: tuple[str, ...]
    optimal_kinds: tuple[str, ...]

    def judge(self, item: Any, answer: str) -> Judgement: ...


class CutCounts(BaseModel):
    """Answers of one group: how many, how many valid, the sum of their scores, and how many
    were optimal in each of the task's senses (None where an item had no known optimum)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = 0
    valid: int = 0
    score: float = 0.0
    optimal: dict[str, int | None] = Field(default_factory=dict)

    @property
    def valid_rate(self) -> float:
        return self.valid / self.n if self.n else 0.0

    @property
    def mean_score(self) -> float:
        return self.score / self.n if self.n else 0.0


class CutReport(BaseModel):
    """Answers folded overall and per value of each cut, and failures by the task's types."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    overall: CutCounts = Field(default_factory=CutCounts)
    by_cut: dict[str, dict[str, CutCounts]] = Field(
        default_factory=dict, description="Per cut (dataset, level, ...), per value."
    )
    failures: dict[str, int] = Field(
        default_factory=dict, description="Answers of each failure type (zeros included)."
    )


class ItemVerdict(BaseModel):
    """One suite item's outcome: its greedy answer judged, and the best of its n samples."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    cuts: dict[str, str]
    valid: bool
    score: float
    failure: str | None
    optimal: dict[str, bool | None] = Field(default_factory=dict)
    best_of_valid: bool
    best_of_score: float = Field(description="The highest score of the n samples.")
    best_of_optimal: dict[str, bool | None] = Field(
        default_factory=dict, description="Per optimal kind: whether some sample is optimal."
    )


class CutSuiteResult(BaseModel):
    """A suite's reports (greedy and best-of-n) and its per-item verdicts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: str
    suite_version: int
    content_sha256: str
    best_of_n: int
    greedy: CutReport
    best_of: CutReport
    verdicts: tuple[ItemVerdict, ...]


def fold(task: Judging, judged: Iterable[tuple[Mapping[str, str], Judgement]]) -> CutReport:
    """(cut values, judgement) pairs folded into a report of `task`'s cuts and types."""
    rows: dict[tuple[str, str], list[Judgement]] = {}
    every: list[Judgement] = []
    for cuts, judgement in judged:
        every.append(judgement)
        for cut in task.cuts:
            rows.setdefault((cut, cuts[cut]), []).append(judgement)
    by_cut: dict[str, dict[str, CutCounts]] = {cut: {} for cut in task.cuts}
    for (cut, value), group in rows.items():
        by_cut[cut][value] = _counts(task, group)
    failures = dict.fromkeys(task.failure_types, 0)
    for judgement in every:
        if judgement.failure is not None:
            failures[judgement.failure] = failures.get(judgement.failure, 0) + 1
    return CutReport(overall=_counts(task, every), by_cut=by_cut, failures=failures)


def score_suite(
    task: Judging,
    suite: Suite[Any],
    greedy: Sequence[str],
    sampled: Sequence[Sequence[str]],
    best_of: int,
) -> CutSuiteResult:
    """A suite's result from one greedy answer and `best_of` samples per item."""
    verdicts, greedy_judged, best_judged = [], [], []
    for item, first, many in zip(suite.items, greedy, sampled, strict=True):
        judgement = task.judge(item.item, first)
        best = _best(task, item, many)
        greedy_judged.append((item.cuts, judgement))
        best_judged.append((item.cuts, best))
        verdicts.append(
            ItemVerdict(
                id=item.id,
                cuts=dict(item.cuts),
                valid=judgement.valid,
                score=judgement.score,
                failure=judgement.failure,
                optimal=dict(judgement.optimal),
                best_of_valid=best.valid,
                best_of_score=best.score,
                best_of_optimal=dict(best.optimal),
            )
        )
    return CutSuiteResult(
        suite=suite.name,
        suite_version=suite.version,
        content_sha256=suite.checksum,
        best_of_n=best_of,
        greedy=fold(task, greedy_judged),
        best_of=fold(task, best_judged),
        verdicts=tuple(verdicts),
    )


def _counts(task: Judging, group: Sequence[Judgement]) -> CutCounts:
    optimal: dict[str, int | None] = {}
    for kind in task.optimal_kinds:
        flags = [j.optimal.get(kind) for j in group if j.valid]
        optimal[kind] = None if None in flags else sum(bool(f) for f in flags)
    return CutCounts(
        n=len(group),
        valid=sum(j.valid for j in group),
        score=sum(j.score for j in group),
        optimal=optimal,
    )


def _best(task: Judging, item: SuiteItem[Any], answers: Sequence[str]) -> Judgement:
    """The best of several answers: valid first, then the higher score. Best-of-n asks whether
    *some* sample succeeds, so each optimal flag is whether any sample is optimal in that sense
    (None when none is and some sample's optimum is unknown)."""
    judged = [task.judge(item.item, answer) for answer in answers]
    if not judged:
        raise ValueError(f"item {item.id}: best of no answers")
    best = max(judged, key=lambda j: (j.valid, j.score))
    optimal: dict[str, bool | None] = {}
    for kind in task.optimal_kinds:
        flags = [j.optimal.get(kind) for j in judged]
        optimal[kind] = True if any(flags) else None if None in flags else False
    return Judgement(best.valid, best.score, best.failure, optimal, best.detail)


def counts_rates(counts: CutCounts) -> Rates:
    """One group's counts as rates."""
    n = counts.n
    optimal = {k: None if c is None else (c / n if n else 0.0) for k, c in counts.optimal.items()}
    return Rates(n=n, valid_rate=counts.valid_rate, score=counts.mean_score, optimal=optimal)


def report_rates(task: Judging, report: CutReport) -> ReportRates:
    """`report`'s rates overall and per value of `task`'s first cut."""
    first = report.by_cut.get(task.cuts[0], {}) if task.cuts else {}
    return ReportRates(counts_rates(report.overall),
                       {value: counts_rates(c) for value, c in first.items()})  # fmt: skip


def cut_board_rates(optimal_kinds: Sequence[str]) -> tuple[BoardRate, ...]:
    """The rates a board shows of a task whose results are `CutSuiteResult`: validity, then
    one optimal rate per optimal kind."""
    valid = BoardRate("valid", "valid", "valid", "valid rate: the task's judge gives full marks")
    optimal = (
        BoardRate(f"optimal_{kind.lower()}", f"opt. {kind}", f"opt. {kind}",
                  f"valid and optimal in the task's {kind} sense", optimal=kind)
        for kind in optimal_kinds
    )  # fmt: skip
    return (valid, *optimal)


def cut_result_problem(task: Judging, result: CutSuiteResult) -> str | None:
    """`Task.result_problem`: every item carries the task's cuts, and the reports are what its
    verdicts fold into (a board shows both); best-of failures cannot be checked, as a verdict
    keeps only the greedy answer's failure."""
    missing = _missing_cuts(task, result)
    if missing is not None:
        return missing
    for answers, stored in (("greedy", result.greedy), ("best_of", result.best_of)):
        folded = fold(task, ((v.cuts, _judgement(v, answers)) for v in result.verdicts))
        if folded.model_dump(exclude={"failures"}) != stored.model_dump(exclude={"failures"}):
            return f"its {answers} counts are not what its per-item verdicts give"
        if answers == "greedy" and folded.failures != stored.failures:
            return "its greedy failure counts are not what its per-item verdicts give"
    return None


def _missing_cuts(task: Judging, result: CutSuiteResult) -> str | None:
    missing = [v.id for v in result.verdicts if set(v.cuts) != set(task.cuts)]
    if not missing:
        return None
    return f"item {missing[0]} does not carry exactly the cuts {', '.join(task.cuts)}"


def cut_verdict_table(task: Judging, result: CutSuiteResult) -> VerdictTable:
    """`result` item by item (`Task.verdict_table`); ValueError for an item without the task's
    cuts."""
    missing = _missing_cuts(task, result)
    if missing is not None:
        raise ValueError(missing)
    rows = sorted(result.verdicts, key=lambda v: v.id)
    flags: dict[str, dict[str, tuple[bool, ...]]] = {}
    unavailable: dict[str, str] = {}
    for answers in ("greedy", "best_of"):
        judged = [_judgement(v, answers) for v in rows]
        flags[answers] = {"valid": tuple(j.valid for j in judged)}
        for rate in cut_board_rates(task.optimal_kinds)[1:]:
            kind = str(rate.optimal)
            values = [j.valid and j.optimal.get(kind) for j in judged]
            if None in values:
                unavailable[rate.key] = (
                    f"records hold no known {kind} optimum for some items, so no "
                    f"{kind}-optimal rate."
                )
            else:
                flags[answers][rate.key] = tuple(bool(v) for v in values)
    for answers in flags:
        for key in unavailable:
            flags[answers].pop(key, None)
    return VerdictTable(
        ids=tuple(v.id for v in rows),
        cuts={cut: tuple(v.cuts[cut] for v in rows) for cut in task.cuts},
        flags=flags,
        failures=tuple(v.failure for v in rows),
        unavailable=unavailable,
        version=result.suite_version,
        checksum=result.content_sha256,
    )


def _judgement(verdict: ItemVerdict, answers: str) -> Judgement:
    """A stored verdict as the judgement it records, for one kind of answer."""
    if answers == "greedy":
        return Judgement(verdict.valid, verdict.score, verdict.failure, verdict.optimal)
    return Judgement(verdict.best_of_valid, verdict.best_of_score, None, verdict.best_of_optimal)
