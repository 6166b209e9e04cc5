"""The board in the terminal: rich tables, split by columns rather than wrapped when narrow.

A cell such as `51.7 [48.2, 55.0]` wrapped over two lines no longer reads as one interval, so a
table wider than the console is drawn as several: each repeats the text columns (designer,
rate, ...) and takes as many number columns as fit. On a console that cannot write Unicode (a
POSIX locale) the marks become ASCII ones, told apart as their legends still say (rich already
draws the borders in ASCII there).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from leaderboards.board import Board, Cut
from leaderboards.render.cells import DESIGN_MARK, ZERO_MARK
from leaderboards.render.tables import TextTable, board_notes, board_tables, provenance_note

ASCII_MARKS = str.maketrans({ZERO_MARK: "+", DESIGN_MARK: "#"})
"""Each mark as one ASCII character of the same width, for consoles that cannot write it."""


def terminal_renderable(board: Board, details: Sequence[Cut] = ()) -> RenderableType:
    """What the board is of (once), its notes, then every table with its notes, as one rich
    renderable."""
    parts: list[RenderableType] = [Text(provenance_note(board), style="dim")]
    parts.extend(
        Text(note.text, style="yellow" if note.warning else "dim") for note in board_notes(board)
    )
    for table in board_tables(board, details):
        parts.append(_Fitted(table))
        parts.extend(Text(note, style="dim") for note in table.notes)
        parts.append(Text(""))
    return _AsciiMarks(Group(*parts))


def render_terminal(board: Board, details: Sequence[Cut] = (), width: int = 160) -> str:
    """The terminal rendering as plain text (for a file)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, soft_wrap=False)
    console.print(terminal_renderable(board, details))
    return buffer.getvalue()


@dataclass(frozen=True)
class _AsciiMarks:
    """`inner` as it is, or with the marks in ASCII where the console's encoding is not UTF."""

    inner: RenderableType

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not options.ascii_only:
            yield self.inner
            return
        for segment in console.render(self.inner, options):
            text = segment.text.translate(ASCII_MARKS)
            yield Segment(text, segment.style, segment.control)


@dataclass(frozen=True)
class _Fitted:
    """A table drawn at the console's width: split into parts when it would not fit."""

    table: TextTable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for part in split_columns(self.table, options.max_width):
            yield _rich(part)


def split_columns(table: TextTable, width: int) -> list[TextTable]:
    """`table` as parts no wider than `width` (each keeps the text columns), in column order."""
    widths = [max(cell_len(c) for c in [col, *(row[i] for row in table.rows)])
              for i, col in enumerate(table.columns)]  # fmt: skip
    fixed = table.text_columns
    used = sum(w + 3 for w in widths[:fixed]) + 1  # each column: padding 2, its border 1
    chunks: list[list[int]] = [[]]
    room = used
    for i in range(fixed, len(widths)):
        if chunks[-1] and room + widths[i] + 3 > width:
            chunks.append([])
            room = used
        chunks[-1].append(i)
        room += widths[i] + 3
    if len(chunks) == 1:
        return [table]
    return [
        TextTable(
            title=table.title if k == 0 else f"{table.title} (continued)",
            columns=[*table.columns[:fixed], *(table.columns[i] for i in chunk)],
            rows=[[*row[:fixed], *(row[i] for i in chunk)] for row in table.rows],
            text_columns=fixed,
            id=table.id,
        )
        for k, chunk in enumerate(chunks)
    ]


def _rich(table: TextTable) -> Table:
    """Text columns keep their width (up to 24 characters) when the terminal is narrow."""
    out = Table(title=Text(table.title, style="bold"), title_justify="left", show_lines=False)
    for i, column in enumerate(table.columns):
        text = i < table.text_columns
        widest = max([len(column), *(len(row[i]) for row in table.rows)])
        out.add_column(
            Text(column),
            justify="left" if text else "right",
            style="bold" if i == 0 else None,
            min_width=min(widest, 24) if text else None,
        )
    for row in table.rows:
        out.add_row(*(Text(cell) for cell in row))  # Text: brackets are not markup
    return out
