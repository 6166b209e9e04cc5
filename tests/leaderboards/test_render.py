"""Every renderer on a board built from a real tiny comparison."""

from __future__ import annotations

import csv
import io
import json
import re
from importlib import resources
from pathlib import Path

import pytest
from rich.console import Console

from leaderboards import (
    Board,
    board_json_schema,
    build_board,
    load_runs,
    render,
    terminal_renderable,
)
from leaderboards.render.tidy import FIELDS
from tests.leaderboards.handmade import rates, run


@pytest.fixture(scope="module")
def board(compare_root: Path) -> Board:
    return build_board(load_runs([compare_root]), resamples=400, reference=True)


def test_csv_parses_into_tidy_rows(board: Board) -> None:
    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    assert rows and tuple(rows[0]) == FIELDS
    sections = {r["section"] for r in rows}
    assert sections == {"rate", "detail", "failure", "cost", "reference"}
    rated = [r for r in rows if r["section"] == "rate" and r["designer"] == "uniform"]
    assert {r["suite"] for r in rated} == {"3agents", "overall"}
    assert {r["metric"] for r in rated} == {"valid", "optimal_makespan", "optimal_soc"}
    unknown = [r for r in rated if r["value"] == ""]  # n/a: a suite version without that optimum
    assert all(r["metric"] == "optimal_makespan" and r["note"].startswith("n/a: ")
               for r in unknown)  # fmt: skip
    uniform = [r for r in rated if r["value"] != ""]
    assert all(r["baseline"] == "random" and r["delta_includes_zero"] in ("True", "False")
               for r in uniform)  # fmt: skip
    for r in uniform:
        assert float(r["ci_low"]) <= float(r["value"]) <= float(r["ci_high"])
    paper = [r for r in rows if r["section"] == "reference" and r["cut"] == "size"]
    assert {r["metric"] for r in paper} == {"valid", "optimal_makespan"}
    assert len(paper) == 7 * (8 + 7 + 6) * 2, "every per-size cell of the paper's three tables"


def test_json_round_trips_and_validates_against_the_shipped_schema(board: Board) -> None:
    text = render(board, "json")
    assert Board.model_validate_json(text) == board
    shipped = json.loads(
        resources.files("leaderboards.data").joinpath("board.schema.json").read_text("utf-8")
    )
    assert shipped == board_json_schema(), "regenerate with `harness leaderboard schema --out`"
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(json.loads(text), shipped)
    assert json.loads(text)["schema_version"] == "2"


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


OPEN_INTERVAL = re.compile(r"\[[+-]?\d+\.\d,(?![^\]]*\])")
"""An interval whose closing bracket is not on the same line: it was wrapped."""


def test_size_details_at_140_columns_split_tables_instead_of_wrapping_intervals() -> None:
    sizes = rates({s: (20, 4 + s, 2 + s // 2) for s in range(3, 11)})
    runs = [run(name, seed, sizes, **{"4agents": sizes, "5agents": sizes})
            for name in ("random", "llm:openai/gpt-4o-mini") for seed in (0, 1)]  # fmt: skip
    board = build_board(runs, resamples=200, details=["size"])
    buffer = io.StringIO()
    Console(file=buffer, width=140, color_system=None).print(terminal_renderable(board, ["size"]))
    text = buffer.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 140
    assert not [line for line in text.splitlines() if OPEN_INTERVAL.search(line)], text
    assert re.search(r"\d+\.\d \[\d+\.\d, \d+\.\d\]", text), "intervals are drawn"
    assert "3agents by map size: rate (%) [95% CI] (continued)" in text
    for key in map(str, range(3, 11)):  # every size column is still there, in one of the parts
        assert re.search(rf"┃\s+{key} ┃", text), key
    wide = render(board, "terminal", details=["size"], width=400)
    assert "(continued)" not in wide, "a table that fits is drawn whole"
