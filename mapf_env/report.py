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
    """Answers, valid answers and optimal answers of one group."""

    model_config = ConfigDict(frozen=True)

    n: int = 0
    valid: int = 0
    optimal: int = 0

    @property
    def valid_rate(self) -> float:
        return self.valid / self.n if self.n else 0.0

    @property
    def optimal_rate(self) -> float:
        return self.optimal / self.n if self.n else 0.0


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
        counts: dict[int, list[int]] = {}
        failures = dict.fromkeys(FAILURE_TYPES, 0)
        per_size_failures: dict[int, dict[str, int]] = {}
        for size, verdict in scored:
            row = counts.setdefault(size, [0, 0, 0])
            row[0] += 1
            row[1] += verdict.valid
            row[2] += bool(verdict.optimal)
            if verdict.failure is not None:
                failures[verdict.failure.value] += 1
                by_type = per_size_failures.setdefault(size, dict.fromkeys(FAILURE_TYPES, 0))
                by_type[verdict.failure.value] += 1
        per_size = {
            s: RateCounts(n=c[0], valid=c[1], optimal=c[2]) for s, c in sorted(counts.items())
        }
        overall = RateCounts(
            n=sum(c.n for c in per_size.values()),
            valid=sum(c.valid for c in per_size.values()),
            optimal=sum(c.optimal for c in per_size.values()),
        )
        return cls(
            overall=overall,
            per_size=per_size,
            failures=failures,
            per_size_failures=dict(sorted(per_size_failures.items())),
        )
