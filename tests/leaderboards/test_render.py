"""Every renderer on a board built from a real tiny comparison."""

from __future__ import annotations

import csv
import io
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from leaderboards import Board, board_json_schema, build_board, load_runs, render
from leaderboards.render.tidy import FIELDS


@pytest.fixture(scope="module")
def board(compare_root: Path) -> Board:
    return build_board(load_runs([compare_root]), resamples=400, reference=True)


def test_csv_parses_into_tidy_rows(board: Board) -> None:
    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    assert rows and tuple(rows[0]) == FIELDS
    sections = {r["section"] for r in rows}
    assert sections == {"rate", "detail", "failure", "cost", "reference"}
    uniform = [r for r in rows if r["section"] == "rate" and r["designer"] == "uniform"]
    assert {r["suite"] for r in uniform} == {"3agents", "overall"}
    assert all(r["baseline"] == "random" and r["delta_includes_zero"] in ("True", "False")
               for r in uniform)  # fmt: skip
    for r in uniform:
        assert float(r["ci_low"]) <= float(r["value"]) <= float(r["ci_high"])


def test_json_round_trips_and_validates_against_the_shipped_schema(board: Board) -> None:
    text = render(board, "json")
    assert Board.model_validate_json(text) == board
    shipped = json.loads(
        resources.files("leaderboards.data").joinpath("board.schema.json").read_text("utf-8")
    )
    assert shipped == board_json_schema(), "regenerate with `harness leaderboard schema --out`"
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(json.loads(text), shipped)
    assert json.loads(text)["schema_version"] == "1"


def test_markdown_tables_have_a_consistent_shape(board: Board) -> None:
    text = render(board, "markdown", details=["size", "subset", "hole"])
    blocks = [b for b in re.split(r"\n(?=### )", text) if b.startswith("### ")]
    titles = [b.splitlines()[0] for b in blocks]
    assert any("Designers" in t for t in titles) and any("by hole ratio" in t for t in titles)
    assert any("reported, not reproduced" in t for t in titles)
    for block in blocks:
        table = [line for line in block.splitlines() if line.startswith("|")]
        widths = {line.count(" | ") for line in table}
        assert len(widths) == 1, block
        assert re.fullmatch(r"\|( (:---|---:) \|)+", table[1]), table[1]
    assert "| random | cpu | mlp | 0,1 | valid |" in text


def test_html_is_one_self_contained_page_with_the_tables(board: Board) -> None:
    html = render(board, "html", details=["size"])
    assert html.startswith("<!DOCTYPE html>") and html.count("<table>") >= 5
    assert 'id="main-designer"' in html and 'id="detail-3agents-size"' in html
    assert '<td class="text">random</td>' in html and "51.67 / 31.67" in html
    assert "http://" not in html and "https://" not in html and "<script" not in html


def test_terminal_shows_the_tables_and_the_reference(board: Board) -> None:
    text = render(board, "terminal", details=["subset"], width=200)
    parts = ("Designers: Sum", "Minus baseline random", "3agents by wait subset",
             "How greedy answers ended", "Designer cost", "reported, not reproduced")  # fmt: skip
    for part in parts:
        assert part in text
