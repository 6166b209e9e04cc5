"""The board as Markdown (GitHub pipe tables), for a README or a pull request."""

from __future__ import annotations

from collections.abc import Sequence

from leaderboards.board import Board, Cut
from leaderboards.render.tables import TextTable, board_notes, board_tables, provenance_note


def render_markdown(board: Board, details: Sequence[Cut] = ()) -> str:
    """What the board is of (once, on top), its notes, then every table with its notes."""
    parts = [f"_{_cell(provenance_note(board))}_\n"]
    parts.extend(f"> {note.text}\n" for note in board_notes(board))
    parts.extend(_table(t) for t in board_tables(board, details))
    return "\n".join(parts)


def _table(table: TextTable) -> str:
    align = [":---" if i < table.text_columns else "---:" for i in range(len(table.columns))]
    lines = [f"### {_cell(table.title)}", "", _line(table.columns), _line(align)]
    lines.extend(_line(row) for row in table.rows)
    lines.append("")
    lines.extend(f"_{_cell(note)}_  " for note in table.notes)
    return "\n".join(lines) + "\n"


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
