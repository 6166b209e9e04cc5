"""A suite result's counts checked against its own per-instance verdicts.

A result carries both the verdict of every instance and the reports folded from them (counts
overall and per size, greedy and best-of, and the greedy failure counts). Readers show the
counts, so a record whose counts were edited -- or damaged -- would show numbers nobody
measured. The reports are folded again here from the verdicts, with the testbed's own fold
(`EvalReport.from_verdicts`), and every count must agree; re-scoring the stored answers is
`harness leaderboard verify`'s job and far slower, so this checks the record against itself.
Best-of failure counts cannot be checked: a verdict keeps only the greedy answer's failure.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Mapping

from mapf_env import EvalReport, FailureType, Verdict
from mapf_env.report import FAILURE_TYPES, RateCounts
from tasks.mapf_frozenlake.records import InstanceVerdict, SuiteResult

__all__ = ["COUNT_FIELDS", "tally_problem", "verdict_reports"]

COUNT_FIELDS = ("n", "valid", "optimal", "optimal_soc", "optimal_makespan")
"""The counts of every group of a report, in the order they are checked."""

_OPTIMAL_FLAGS = {
    "greedy": ("valid", ("optimal", "optimal_soc", "optimal_makespan")),
    "best_of": ("best_of_valid", ("best_of_optimal", "best_of_optimal_soc",
                                  "best_of_optimal_makespan")),
}  # fmt: skip
"""Per kind of answer: the verdict's validity flag, and the flags that require it."""


def verdict_reports(verdicts: tuple[InstanceVerdict, ...]) -> dict[str, EvalReport]:
    """The greedy and best-of reports the verdicts fold into (best-of without failures)."""
    return _reports(_distinct(verdicts))


def tally_problem(result: SuiteResult) -> str | None:
    """The first count of `result` its own verdicts contradict, as a phrase naming the size and
    field (`size 5 greedy valid is 7 but its per-instance verdicts give 6`); None when all agree.

    A suite holds thousands of verdicts but few distinct outcomes, so each distinct one is
    checked and folded once, with how often it occurs."""
    distinct = _distinct(result.verdicts)
    problem = next(_verdict_problems(result.verdicts, distinct), None)
    if problem is not None:
        return problem
    derived = _reports(distinct)
    for answers, report in (("greedy", result.greedy), ("best_of", result.best_of)):
        problem = next(_report_problems(answers, report, derived[answers]), None)
        if problem is not None:
            return problem
    return next(_failure_problems(result.greedy, derived["greedy"]), None)


Outcome = tuple[int, bool, str | None, bool, bool | None, bool | None, bool, bool, bool | None,
                bool | None]  # fmt: skip
"""A verdict without its instance: size, then the greedy and best-of flags (`_outcome`)."""


def _outcome(v: InstanceVerdict) -> Outcome:
    return (v.size, v.valid, v.failure, v.optimal, v.optimal_soc, v.optimal_makespan,
            v.best_of_valid, v.best_of_optimal, v.best_of_optimal_soc,
            v.best_of_optimal_makespan)  # fmt: skip


def _distinct(verdicts: tuple[InstanceVerdict, ...]) -> Counter[Outcome]:
    """Each distinct outcome and how many verdicts have it, in order of first occurrence."""
    return Counter(map(_outcome, verdicts))


def _reports(distinct: Counter[Outcome]) -> dict[str, EvalReport]:
    greedy = ((o[0], _verdict(*o[1:6]), times) for o, times in distinct.items())
    best_of = ((o[0], _verdict(o[6], None, *o[7:10]), times) for o, times in distinct.items())
    return {"greedy": EvalReport.from_counted(greedy), "best_of": EvalReport.from_counted(best_of)}


@functools.lru_cache(maxsize=1024)
def _verdict(
    valid: bool, failure: str | None, optimal: bool, soc: bool | None, makespan: bool | None
) -> Verdict:
    """The fold's view of a verdict; there are few distinct ones, so each is made once (a board
    folds every verdict of every run it reads)."""
    kind = FailureType(failure) if failure is not None else None
    return Verdict(valid=valid, failure=kind, detail="", optimal=optimal, optimal_soc=soc,
                   optimal_makespan=makespan)  # fmt: skip


def _verdict_problems(
    verdicts: tuple[InstanceVerdict, ...], distinct: Counter[Outcome]
) -> Iterator[str]:
    """Verdicts that contradict themselves: an optimal invalid answer, a valid answer with a
    failure (or an invalid one without), a failure that is none of the eight checks. Only
    distinct outcomes are checked; a bad one is named by its first instance."""
    for outcome in distinct:
        problems = list(_outcome_problems(outcome))
        if problems:
            first = next(v for v in verdicts if _outcome(v) == outcome)
            where = f"instance {_short(first.id)} (size {first.size})"
            yield from (f"{where} {problem}" for problem in problems)


def _outcome_problems(outcome: Outcome) -> Iterator[str]:
    _, valid, failure = outcome[:3]
    if failure is not None and failure not in FAILURE_TYPES:
        yield "greedy failure is not one of the eight checks"
    elif valid == (failure is not None):
        yield f"greedy valid is {_json(valid)} but its failure is {_json(failure)}"
    flags = {"greedy": (valid, zip(_OPTIMAL_FLAGS["greedy"][1], outcome[3:6], strict=True)),
             "best_of": (outcome[6], zip(_OPTIMAL_FLAGS["best_of"][1], outcome[7:10],
                                         strict=True))}  # fmt: skip
    for answers, (validity, named) in flags.items():
        if validity:
            continue
        for flag, value in named:
            if value:
                yield f"{answers} {flag} is true on an invalid answer"


def _report_problems(answers: str, report: EvalReport, derived: EvalReport) -> Iterator[str]:
    """Sizes and counts of `report` that `derived` (its verdicts' fold) does not give; a count
    no verdicts could give at all (more optimal than valid, more valid than answers) says so."""
    if sorted(report.per_size) != sorted(derived.per_size):
        yield (
            f"{answers} sizes are {_sizes(report.per_size)} but its per-instance verdicts have "
            f"sizes {_sizes(derived.per_size)}"
        )
        return
    groups = [(f"size {s}", report.per_size[s], derived.per_size[s]) for s in derived.per_size]
    for where, counts, right in [*groups, ("overall", report.overall, derived.overall)]:
        for field in COUNT_FIELDS:
            said, given = getattr(counts, field), getattr(right, field)
            if said != given:
                yield (
                    f"{where} {answers} {field} is {_json(said)}{_impossible(field, counts)} but "
                    f"its per-instance verdicts give {_json(given)}"
                )


def _impossible(field: str, counts: RateCounts) -> str:
    """', above valid (7)' when `field`'s count is one no verdicts could give, else ''."""
    value, bound, name = getattr(counts, field), counts.valid, "valid"
    if field == "valid":
        bound, name = counts.n, "the answers"
    if field == "n" or value is None or value <= bound:
        return ""
    return f", above {name} ({_json(bound)}),"


def _failure_problems(report: EvalReport, derived: EvalReport) -> Iterator[str]:
    """Greedy failure counts, overall and per size, that the verdicts do not give."""
    groups: list[tuple[str, Mapping[str, int], Mapping[str, int]]] = [
        ("overall", report.failures, derived.failures)
    ]
    for size in sorted({*report.per_size_failures, *derived.per_size_failures}):
        mine = report.per_size_failures.get(size, {})
        groups.append((f"size {size}", mine, derived.per_size_failures.get(size, {})))
    for where, said, given in groups:
        for name in sorted({*said, *given}):
            if said.get(name, 0) != given.get(name, 0):
                yield (
                    f"{where} greedy failures[{_short(name)}] is {_json(said.get(name, 0))} but "
                    f"its per-instance verdicts give {given.get(name, 0)}"
                )


def _sizes(per_size: Mapping[int, RateCounts]) -> str:
    return _short(",".join(str(s) for s in sorted(per_size)) or "none")


def _short(text: str, limit: int = 60) -> str:
    """A string from the record, cut so that a hostile one cannot flood the message."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json(value: object) -> str:
    """A flag or count as the record's JSON spells it."""
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else _short(str(value))
