"""What a policy did on a set of instances, in the shape designers read: `EvalReport`.

The harness scores validation responses with `verify` and folds the verdicts into one report:
valid and optimal rates overall and per map size, and how many answers failed each of the
eight checks. The report is pure data (JSON round trip) so it can sit in run directories and
in designer prompts alike.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from mapf_env.verifier import FailureType, Verdict

FAILURE_TYPES: tuple[str, ...] = tuple(f.value for f in FailureType)


class RateCounts(BaseModel):
    """Answers, valid answers and optimal answers of one group.

    `optimal` counts answers optimal under each instance's own objective (the one its prompt
    asks for and the training reward pays: SOC on the shipped suites). `optimal_soc` and
    `optimal_makespan` count them under each objective separately, the makespan one being the
    paper's "opt."; each is None when some valid answer's instance lacks that exact minimum
    (training instances carry only their own objective's), because a count that skips unknown
    answers would read as a rate it is not.
    """

    model_config = ConfigDict(frozen=True)

    n: int = 0
    valid: int = 0
    optimal: int = 0
    optimal_soc: int | None = Field(default=None, description="SOC-optimal answers.")
    optimal_makespan: int | None = Field(
        default=None, description="Makespan-optimal answers (the paper's definition)."
    )

    @property
    def valid_rate(self) -> float:
        return self.valid / self.n if self.n else 0.0

    @property
    def optimal_rate(self) -> float:
        return self.optimal / self.n if self.n else 0.0

    @property
    def optimal_soc_rate(self) -> float | None:
        return _rate(self.optimal_soc, self.n)

    @property
    def optimal_makespan_rate(self) -> float | None:
        return _rate(self.optimal_makespan, self.n)


def _rate(count: int | None, n: int) -> float | None:
    if count is None:
        return None
    return count / n if n else 0.0


def _known_sum(values: Iterable[int | None]) -> int | None:
    """The sum, or None when any part is unknown."""
    total = 0
    for value in values:
        if value is None:
            return None
        total += value
    return total


class EvalReport(BaseModel):
    """Valid/optimal rates overall and per size, and failure counts by check."""

    model_config = ConfigDict(frozen=True)

    overall: RateCounts = Field(default_factory=RateCounts)
    per_size: dict[int, RateCounts] = Field(default_factory=dict)
    failures: dict[str, int] = Field(
        default_factory=lambda: dict.fromkeys(FAILURE_TYPES, 0),
        description="Answers whose first failing check was each of the eight (zeros included).",
    )
    per_size_failures: dict[int, dict[str, int]] = Field(default_factory=dict)

    @classmethod
    def from_verdicts(cls, scored: Iterable[tuple[int, Verdict]]) -> EvalReport:
        """Fold (map size, verdict) pairs into a report."""
        return cls.from_counted((size, verdict, 1) for size, verdict in scored)

    @classmethod
    def from_counted(cls, counted: Iterable[tuple[int, Verdict, int]]) -> EvalReport:
        """Fold (map size, verdict, how many answers had it) into a report: a reader that
        re-folds thousands of stored verdicts meets few distinct ones, so it counts them first."""
        counts: dict[int, list[int | None]] = {}
        failures = dict.fromkeys(FAILURE_TYPES, 0)
        per_size_failures: dict[int, dict[str, int]] = {}
        for size, verdict, times in counted:
            row = counts.setdefault(size, [0, 0, 0, 0, 0])
            row[0] = _add(row[0], 1, times)
            row[1] = _add(row[1], verdict.valid, times)
            row[2] = _add(row[2], bool(verdict.optimal), times)
            row[3] = _add(row[3], verdict.optimal_soc, times)
            row[4] = _add(row[4], verdict.optimal_makespan, times)
            if verdict.failure is not None:
                failures[verdict.failure.value] += times
                by_type = per_size_failures.setdefault(size, dict.fromkeys(FAILURE_TYPES, 0))
                by_type[verdict.failure.value] += times
        per_size = {
            s: RateCounts(n=c[0] or 0, valid=c[1] or 0, optimal=c[2] or 0,
                          optimal_soc=c[3], optimal_makespan=c[4])
            for s, c in sorted(counts.items())
        }  # fmt: skip
        groups = per_size.values()
        overall = RateCounts(
            n=sum(c.n for c in groups),
            valid=sum(c.valid for c in groups),
            optimal=sum(c.optimal for c in groups),
            optimal_soc=_known_sum(c.optimal_soc for c in groups) if groups else None,
            optimal_makespan=_known_sum(c.optimal_makespan for c in groups) if groups else None,
        )
        return cls(
            overall=overall,
            per_size=per_size,
            failures=failures,
            per_size_failures=dict(sorted(per_size_failures.items())),
        )


def _add(count: int | None, value: bool | int | None, times: int) -> int | None:
    """A running count (`times` answers of `value` more) that turns unknown for good once one
    part is unknown."""
    return None if count is None or value is None else count + int(value) * times
