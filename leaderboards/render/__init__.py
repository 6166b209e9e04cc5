"""Renderers: terminal (rich), Markdown, CSV, JSON and HTML, all from one `Board`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from leaderboards.board import Board, Cut
from leaderboards.render.csv_table import render_csv
from leaderboards.render.html import render_html, template_environment
from leaderboards.render.markdown import render_markdown
from leaderboards.render.tables import TextTable, board_tables
from leaderboards.render.terminal import render_terminal, terminal_renderable

Format = Literal["terminal", "markdown", "csv", "json", "html"]
FORMATS: tuple[str, ...] = get_args(Format)


def render(board: Board, fmt: Format, details: Sequence[Cut] = (), width: int = 160) -> str:
    """The board as text in `fmt`; `details` picks the cut tables drawn (text formats).

    CSV and JSON hold every cut the board was built with (`build_board` computes all three by
    default).
    """
    if fmt == "terminal":
        return render_terminal(board, details, width)
    if fmt == "markdown":
        return render_markdown(board, details)
    if fmt == "csv":
        return render_csv(board)
    if fmt == "json":
        return board.model_dump_json(indent=2) + "\n"
    if fmt == "html":
        return render_html(board, details)
    raise ValueError(f"unknown format {fmt!r}; formats are {', '.join(FORMATS)}")


__all__ = [
    "FORMATS",
    "Format",
    "TextTable",
    "board_tables",
    "render",
    "render_csv",
    "render_html",
    "render_markdown",
    "render_terminal",
    "template_environment",
    "terminal_renderable",
]
