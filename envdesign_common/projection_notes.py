"""A value that projection changed, and why: the note every task's projection writes.

A designer's draft is merged onto the current configuration and projected onto the valid ones;
whatever that changes (a value clipped to its bounds, shares renormalised, a locked field
ignored) is recorded as one note, so a designer, a record and a board can all say what the
designer asked for and what it got.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ProjectionNote"]


class ProjectionNote(BaseModel):
    """One value the projection (or merge) changed, and why."""

    model_config = ConfigDict(frozen=True)

    field: str = Field(description="Dotted path, e.g. 'sizes.7x7.hole_ratio'.")
    before: float | int | str | None
    after: float | int | str | None
    reason: str

    def __str__(self) -> str:
        return f"{self.field}: {self.before!r} -> {self.after!r} ({self.reason})"
