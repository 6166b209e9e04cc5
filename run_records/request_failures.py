"""Requests of a zero-shot evaluation that failed after their retries, with the real reasons.

A failed request has no answer, so it is scored as an unparsable one; a policy whose server was
broken would otherwise show a plain 0% under the model's name. The record keeps the count and
the reasons so boards can flag the row, and leave it unranked when every request failed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from run_records.reasons import reason_text


class RequestFailures(BaseModel):
    """Failed requests of one zero-shot record: how many of how many, and why."""

    model_config = ConfigDict(frozen=True)

    failed: int = Field(ge=0, description="Requests that failed after their retries.")
    requests: int = Field(ge=0, description="Requests the record's answers came from.")
    reasons: dict[str, int] = Field(description="Failed requests per reason, most common first.")

    @property
    def all_failed(self) -> bool:
        return self.requests > 0 and self.failed == self.requests

    @property
    def summary(self) -> str:
        """`3/10 requests failed: no complete answer within 5 s`."""
        return f"{self.failed}/{self.requests} requests failed: {reason_text(self.reasons)}"

    @classmethod
    def of(cls, requests: int, reasons: Iterable[str]) -> RequestFailures:
        """From the reason of each failed request (none: nothing failed)."""
        counts = sorted(Counter(reasons).items(), key=lambda item: (-item[1], item[0]))
        return cls(failed=sum(n for _, n in counts), requests=requests, reasons=dict(counts))

    @classmethod
    def pooled(cls, tallies: Iterable[RequestFailures | None]) -> RequestFailures | None:
        """Several records' requests as one; None when none of them failed (None entries:
        a checkpoint's or a designer run's record, count no request)."""
        present = [t for t in tallies if t is not None]
        if not any(t.failed for t in present):
            return None
        reasons: Counter[str] = Counter()
        for tally in present:
            reasons.update(tally.reasons)
        counts = sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
        return cls(failed=sum(t.failed for t in present),
                   requests=sum(t.requests for t in present), reasons=dict(counts))  # fmt: skip
