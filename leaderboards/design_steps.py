"""Design steps that failed: counted per designer over its runs, and whether it is ranked.

A design step fails when the designer could not use its answer (no API key, a rate limit, no
usable change set after retries) and the loop kept the previous configuration. A designer with
some failed steps is flagged with the count and its most common reasons; one whose every step
failed trained on its starting configuration throughout, so its numbers are that
configuration's under its name: boards leave it unranked unless its runs were started with
--allow-design-failures. A zero-shot policy is flagged the same way for its requests that got
no answer (a broken server), and left unranked when none did. The notes call it the starting
configuration (the one round 1 trained on), as boards and the site number rounds from 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from leaderboards.board import DesignFailures
from run_records import RequestFailures, ResultRecord, reason_text, tally_design_steps


def design_failures(records: Sequence[ResultRecord]) -> DesignFailures | None:
    """The failed design steps of `records` (one designer's runs), or for zero-shot records
    their failed requests; None when none failed."""
    if records and all(r.kind == "policy" for r in records):
        return request_failures(records)
    tally = tally_design_steps(records)
    if tally is None:
        return None
    return DesignFailures(failed=tally.failed, steps=tally.steps, reasons=tally.reasons,
                          allowed=tally.allowed, summary=tally.summary)  # fmt: skip


def request_failures(records: Sequence[ResultRecord]) -> DesignFailures | None:
    """A zero-shot policy's failed requests, as a flag; never `allowed`, so a policy whose
    every request failed is left unranked (its 0% measured the server, not the model)."""
    pooled = RequestFailures.pooled(r.failed_requests for r in records)
    if pooled is None:
        return None
    return DesignFailures(failed=pooled.failed, steps=pooled.requests, reasons=pooled.reasons,
                          allowed=False, summary=pooled.summary, unit="requests")  # fmt: skip


def unranked_note(designer: str, flag: DesignFailures) -> str:
    """The one line a board prints for a designer (or zero-shot policy) it leaves unranked."""
    if flag.unit == "requests":
        return (
            f"{designer}: not ranked: all {flag.steps} requests failed after their retries "
            f"({reason_text(flag.reasons)}); its score measured the server, not the model "
            "(fix the endpoint and rerun harness eval)"
        )
    return (
        f"{designer}: not ranked: {flag.failed}/{flag.steps} design steps failed "
        f"({reason_text(flag.reasons)}); its runs trained on the starting configuration "
        "throughout (--allow-design-failures shows it, flagged)"
    )


def flag_note(designer: str, flag: DesignFailures) -> str:
    """What a flagged row's note says: the count and reasons, and why it is shown at all."""
    note = f"{designer}: {flag.summary}"
    if flag.unit == "requests":
        return note + " (their instances count as unanswered)"
    if flag.all_failed:
        note += (
            "; shown because its runs were started with --allow-design-failures: they trained "
            "on the starting configuration throughout"
        )
    return note
