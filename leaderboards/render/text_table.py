"""`TextTable`: a table as plain text (title, columns, rows, notes), what every renderer draws."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TextTable:
    title: str
    columns: list[str]
    rows: list[list[str]]
    text_columns: int = 1
    """Leading columns that hold text (left-aligned); the rest are numbers."""
    notes: list[str] = field(default_factory=list)
    id: str = ""
