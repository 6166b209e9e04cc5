"""The board in the terminal: rich tables."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from leaderboards.board import Board, Cut
from leaderboards.render.tables import TextTable, board_tables


def terminal_renderable(board: Board, details: Sequence[Cut] = ()) -> RenderableType:
    """Every table of the board, with its notes, as one rich renderable."""
    parts: list[RenderableType] = []
    if board.baseline_note:
        parts.append(Text(f"note: {board.baseline_note}", style="yellow"))
    for table in board_tables(board, details):
        parts.append(_rich(table))
        parts.extend(Text(note, style="dim") for note in table.notes)
        parts.append(Text(""))
    return Group(*parts)


def render_terminal(board: Board, details: Sequence[Cut] = (), width: int = 160) -> str:
    """The terminal rendering as plain text (for a file)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, soft_wrap=False)
    console.print(terminal_renderable(board, details))
    return buffer.getvalue()


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
