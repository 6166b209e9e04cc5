"""The board as one self-contained HTML page (inline CSS, no scripts, nothing fetched).

The page is drawn from jinja2 templates shipped with the package (`leaderboards/templates`);
`_tables.html.j2` holds the table macro, so a larger site can reuse it by extending
`board.html.j2` or importing the macro.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leaderboards.board import Board, Cut
from leaderboards.render.tables import board_notes, board_tables, provenance_note


def template_environment() -> Any:
    """The jinja2 environment over the package's templates (autoescaped)."""
    try:
        import jinja2
    except ImportError as err:  # pragma: no cover - jinja2 is a dependency
        raise ImportError("HTML boards need jinja2: pip install 'jinja2>=3.1'") from err
    return jinja2.Environment(
        loader=jinja2.PackageLoader("leaderboards", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def render_html(
    board: Board, details: Sequence[Cut] = (), title: str = "Designer leaderboard"
) -> str:
    template = template_environment().get_template("board.html.j2")
    text: str = template.render(
        board=board,
        title=title,
        tables=board_tables(board, details),
        notes=board_notes(board),
        provenance=provenance_note(board),
    )
    return text
