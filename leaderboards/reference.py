"""The paper's reported figures, shipped as package data: shown beside runs, never mixed in."""

from __future__ import annotations

from functools import cache
from importlib import resources

from leaderboards.board import ReferenceBoard

REFERENCE_FILE = "reference_paper.json"


@cache
def load_reference() -> ReferenceBoard:
    """The reported board of arXiv 2606.17682 (labelled "reported, not reproduced")."""
    text = resources.files("leaderboards.data").joinpath(REFERENCE_FILE).read_text("utf-8")
    return ReferenceBoard.model_validate_json(text)
