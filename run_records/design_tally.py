"""Failed design steps counted over runs: the one tally the final table and the boards show.

A design step fails when the designer could not use its answer (no API key, a rate limit, no
usable change set after retries) and the loop kept the previous configuration. A designer
whose every step failed trained on the round-0 configuration throughout: its numbers are round
0's under its name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from run_records.reasons import reason_text
from run_records.schema import ResultRecord


@dataclass(frozen=True)
class DesignTally:
    """Failed design steps of one designer's runs, with their reasons, most common first."""

    failed: int
    steps: int
    reasons: dict[str, int]
    allowed: bool
    """Every run was started with --allow-design-failures."""

    @property
    def all_failed(self) -> bool:
        return self.steps > 0 and self.failed == self.steps

    @property
    def summary(self) -> str:
        """`2/19 design steps failed: rate limit (429)`."""
        return f"{self.failed}/{self.steps} design steps failed: {reason_text(self.reasons)}"


def tally_design_steps(records: Sequence[ResultRecord]) -> DesignTally | None:
    """The failed design steps of `records` (one designer's runs); None when none failed."""
    failed = [reason for record in records for _, reason in record.design_failures()]
    if not failed:
        return None
    counts = sorted(Counter(failed).items(), key=lambda item: (-item[1], item[0]))
    return DesignTally(
        failed=len(failed),
        steps=sum(record.design_steps() for record in records),
        reasons=dict(counts),
        allowed=all(record.allow_design_failures for record in records),
    )
