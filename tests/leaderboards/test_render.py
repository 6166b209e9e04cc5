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
    BOARD_SCHEMA_VERSION,
    Board,
    LoadedRun,
    board_json_schema,
    build_board,
    load_runs,
    render,
    terminal_renderable,
)
from leaderboards.power import power_lines
from leaderboards.render.csv_table import FIELDS
from leaderboards.seeds import mean_over_seeds, seed_count, seed_ids
from tests.leaderboards.handmade import rates, run


@pytest.fixture(scope="module")
def board(compare_root: Path) -> Board:
    return build_board(load_runs([compare_root]), resamples=400, reference=True)


def test_csv_parses_into_tidy_rows(board: Board) -> None:
    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    assert rows and tuple(rows[0]) == FIELDS
    sections = {r["section"] for r in rows}
    assert sections == {"rate", "detail", "failure", "cost", "reference", "aggregate",
                        "improvement", "profile", "curve", "controls", "power"}  # fmt: skip
    rated = [r for r in rows if r["section"] == "rate" and r["designer"] == "uniform"]
    assert {r["suite"] for r in rated} == {"3agents", "overall"}
    assert {r["metric"] for r in rated} == {"valid", "optimal_makespan", "optimal_soc"}
    assert all(r["value"] != "" for r in rated), "the suites' keys carry both optima"
    uniform = rated
    assert all(r["baseline"] == "random" and r["delta_includes_zero"] in ("True", "False")
               for r in uniform)  # fmt: skip
    for r in uniform:
        assert float(r["ci_low"]) <= float(r["value"]) <= float(r["ci_high"])
    paper = [r for r in rows if r["section"] == "reference" and r["cut"] == "size"]
    assert {r["metric"] for r in paper} == {"valid", "optimal_makespan"}
    assert len(paper) == 7 * (8 + 7 + 6) * 2, "every per-size cell of the paper's three tables"
    iqm = [r for r in rows if r["section"] == "aggregate" and r["key"] == "iqm"]
    assert {(r["designer"], r["metric"]) for r in iqm} >= {
        ("uniform", "valid"),
        ("random", "valid"),
    }
    assert all(float(r["ci_low"]) <= float(r["value"]) <= float(r["ci_high"]) for r in iqm)
    (chance,) = [r for r in rows if r["section"] == "improvement" and r["metric"] == "valid"]
    assert chance["designer"] == "uniform" and chance["baseline"] == "random"
    assert 0 <= float(chance["value"]) <= 1
    profile = [r for r in rows if r["section"] == "profile" and r["designer"] == "uniform"
               and r["metric"] == "valid"]  # fmt: skip
    assert [r["key"] for r in profile] == [str(k) for k in range(101)]
    power = {r["key"]: r for r in rows if r["section"] == "power" and r["metric"] == "valid"}
    assert set(power) == {"detectable", "seed_sd", "instance_sd", "unpaired_detectable"}
    assert power["detectable"]["seeds"] == "2"
    assert power["detectable"]["paired"] == "True" and power["detectable"]["baseline"] == "random"


def test_json_round_trips_and_validates_against_the_shipped_schema(board: Board) -> None:
    text = render(board, "json")
    assert Board.model_validate_json(text) == board
    shipped = json.loads(
        resources.files("leaderboards.data").joinpath("board.schema.json").read_text("utf-8")
    )
    assert shipped == board_json_schema(), "regenerate with `harness leaderboard schema --out`"
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(json.loads(text), shipped)
    assert json.loads(text)["schema_version"] == BOARD_SCHEMA_VERSION == "5"
    assert board.aggregates and board.improvements and board.profiles and board.power
    assert board.curves and board.controls is not None


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
    assert "| random | cpu | mlp | seeds 0, 1 | valid |" in text


def test_html_is_one_self_contained_page_with_the_tables(board: Board) -> None:
    html = render(board, "html", details=["size"])
    assert html.startswith("<!DOCTYPE html>") and html.count("<table>") >= 5
    assert 'id="main-designer"' in html and 'id="detail-3agents-size"' in html
    assert '<td class="text">random</td>' in html and "51.67 / 31.67" in html
    assert "http://" not in html and "https://" not in html and "<script" not in html


def test_terminal_shows_the_tables_and_the_reference(board: Board) -> None:
    text = render(board, "terminal", details=["subset"], width=200)
    parts = ("Designers: Sum", "Minus baseline random", "rliable aggregates", "P(> random)",
             "Power: the smallest difference", "3agents by wait subset",
             "How greedy answers ended", "Designer cost", "reported, not reproduced")  # fmt: skip
    for part in parts:
        assert part in text
    positions = [text.index(part) for part in parts]
    assert positions == sorted(positions), "the Sum table first, the statistics after the deltas"
    assert ("controls: this board has no controls: 'matched' and 'harder' are not among the "
            "ranked runs") in text  # fmt: skip


def test_every_text_format_carries_the_statistics() -> None:
    """IQM and mean with intervals, P(improvement), normalised scores, sensitivity, power."""
    runs = [run(name, seed, rates({3: (100, base + 3 * seed, base // 2), 4: (100, base, 5)}))
            for name, base in (("random", 30), ("matched", 60), ("harder", 10), ("mine", 45))
            for seed in (0, 1)]  # fmt: skip
    board = build_board(runs, resamples=200, details=())
    titles = ("rliable aggregates over runs x cells", "Controls: overall Sum normalised",
              "Sensitivity: matched - random, harder - random, matched - harder",
              "Power: the smallest difference")  # fmt: skip
    for fmt in ("terminal", "markdown", "html"):
        text = render(board, fmt, width=250)
        for title in titles:
            assert title in text, (fmt, title)
        assert re.search(r"0\.\d\d \[0\.\d\d, 0\.\d\d\]", text), "a normalised score with CI"
        assert "+50.0 [" in text, "matched minus harder: 60.75 - 10.75"
    markdown = render(board, "markdown")
    assert re.search(r"\| mine \| valid \| 2 \| 2 \| [\d.]+ \[[\d.]+, [\d.]+\] \|", markdown)
    assert "| valid | paired vs random | 2 |" in markdown, "the power row: valid, 2 seeds"
    html = render(board, "html")
    for table_id in ("aggregates", "controls", "sensitivity", "power"):
        assert f'id="{table_id}"' in html
    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    normalised = {r["designer"]: r for r in rows if r["section"] == "normalised"
                  and r["metric"] == "valid"}  # fmt: skip
    assert float(normalised["mine"]["value"]) == pytest.approx((45.75 - 30.75) / (60.75 - 30.75))
    lines = {(r["designer"], r["baseline"]): r for r in rows
             if r["section"] == "sensitivity" and r["metric"] == "valid"}  # fmt: skip
    assert list(lines) == [("matched", "random"), ("harder", "random"), ("matched", "harder")]
    assert float(lines["matched", "random"]["delta"]) == pytest.approx(30.0)
    assert float(lines["harder", "random"]["delta"]) == pytest.approx(-20.0)
    assert float(lines["matched", "harder"]["delta"]) == pytest.approx(50.0)
    assert all(r["paired"] == "True" for r in lines.values())


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


# -- how seeds, intervals, marks and the meta line read ---------------------------------------

TEXT_FORMATS = ("terminal", "markdown", "html")


def _board(seeds: tuple[int, ...], mine: int, policy: bool = False) -> Board:
    """random (valid 30 + seed) and mine (valid `mine` + seed, SOC-optimal a third of it) on
    `seeds`; a zero-shot policy if asked."""
    runs = [run(name, seed, rates({3: (100, base + seed, base // 3), 4: (100, base, base // 6)}))
            for name, base in (("random", 30), ("mine", mine)) for seed in seeds]  # fmt: skip
    if policy:
        loaded = run("model", seeds[0], rates({3: (100, 50, 10), 4: (100, 50, 5)}))
        runs.append(LoadedRun(Path("hand/policies/model"),
                              loaded.record.model_copy(update={"kind": "policy"})))  # fmt: skip
    return build_board(runs, resamples=200, details=["size"])


def test_seed_words_say_a_count_or_name_the_ids() -> None:
    assert [seed_count(n) for n in (1, 3)] == ["1 seed", "3 seeds"]
    assert [seed_ids(ids) for ids in ([0], [0, 1, 2])] == ["seed 0", "seeds 0, 1, 2"]
    assert mean_over_seeds([0, 1, 2]) == "mean over seeds 0, 1, 2"
    assert mean_over_seeds([4]) == "seed 4 only"


def test_the_seeds_column_names_seeds_and_power_counts_them() -> None:
    one = _board((0,), 45)
    assert "| random | cpu | mlp | seed 0 | valid |" in render(one, "markdown")
    assert '<td class="text">seed 0</td>' in render(one, "html")
    assert re.search(r"│ random\s+│ cpu\s+│ mlp\s+│ seed 0 │", render(one, "terminal", width=250))
    two = _board((0, 1), 45)
    markdown = render(two, "markdown")
    assert "| random | cpu | mlp | seeds 0, 1 | valid |" in markdown
    assert ("| rate | pairing | n seeds | seed SD | instance SE | detectable | unpaired |"
            in markdown)  # fmt: skip
    assert "| valid | paired vs random | 2 |" in markdown, "a count, under a header that says so"
    (valid,) = [d for d in two.power if d.metric == "valid"]
    lines = power_lines([valid.model_copy(update={"seeds": 1})], 5.0)
    assert lines[1].startswith("  with 1 seed per designer: detects ")
    assert " seeds per designer (paired: random on the same seeds)" in lines[2]
    assert "1 seeds" not in " ".join(lines)


def test_one_seed_boards_promise_no_interval_and_explain_no_mark() -> None:
    board = _board((0,), 30)  # mine level with random: an interval would include 0
    for fmt in TEXT_FORMATS:
        text = render(board, fmt, details=["size"], width=250)
        assert "1 seed: no interval" in text, fmt
        assert "[95% CI]" not in text and "Intervals:" not in text, fmt
        assert "†" not in text, fmt
        assert "Designers: Sum (%), mean over seeds" in text and "+0.0" in text, fmt


def test_the_mark_legend_is_printed_only_under_marked_cells() -> None:
    apart = _board((0, 1), 60)  # every interval clear of 0 (and of 0.5)
    level = _board((0, 1), 30)  # mine is random's twin: every interval includes 0 (and 0.5)
    for fmt in TEXT_FORMATS:
        text = render(apart, fmt, width=250)
        assert "Designers: Sum (%), mean over seeds [95% CI]" in text, fmt
        assert "Minus baseline random (percentage points) [95% CI]" in text, fmt
        assert "IQM and mean (%) [95% CI]" in text, fmt
        assert "†" not in text, fmt
        marked = render(level, fmt, width=250)
        assert "+0.0 [+0.0, +0.0] †" in marked and "0.50 [0.50, 0.50] †" in marked, fmt
        assert "† the 95% interval includes 0: no clear difference" in marked, fmt
        assert "† the 95% interval includes 0.5: no clear difference" in marked, fmt


def test_the_meta_line_is_printed_once_per_rendering() -> None:
    board = _board((0, 1), 45, policy=True)
    line = "5 runs, greedy answers; envdesign-bench 0.0.test (abc); board schema 5"
    for fmt in TEXT_FORMATS:
        text = render(board, fmt, width=250)
        assert "Designers: Sum" in text and "Policies (zero-shot): Sum" in text, fmt
        assert text.count(line) == 1, fmt
        assert text.index(line) < text.index("Designers: Sum"), fmt
