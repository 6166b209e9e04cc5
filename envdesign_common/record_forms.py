"""The error a record model raises for a record of a form this version does not read.

Records say what they were computed with (a suite version, the counts a report holds); a
record of a form this version has no reader for is refused rather than read as something it is
not. Its message is one line -- what the record is, that this version cannot read it, and how
to make a record this version reads -- and its pydantic error type, `OLDER_RECORD`, lets the
reader of a run's files (`run_records.run_files`) file it as a record of another version, not
as a damaged file.
"""

from __future__ import annotations

from pydantic_core import PydanticCustomError

OLDER_RECORD = "older_record"
"""The pydantic error type of `older_record`; its context holds ``what`` and ``remedy``."""


def older_record(what: str, remedy: str) -> PydanticCustomError:
    """The validation error for a record that is `what` (a phrase: "a suite result scored on
    ..."), which this version cannot read, with the `remedy` that makes a readable one."""
    return PydanticCustomError(
        OLDER_RECORD,
        "{what}, which this version cannot read; {remedy}",
        {"what": what, "remedy": remedy},
    )
