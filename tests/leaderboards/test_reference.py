"""The shipped reference: every cell of the paper's three tables, Sums checked, source named."""

from __future__ import annotations

import re

import pytest

from leaderboards import build_board, load_reference, render
from leaderboards.reference import ROUNDING, cell_mean, size_rows, sum_discrepancies
from mapf_env.suites import SUITES
from tests.leaderboards.handmade import rates, run

PAPER_SUITES = ("3agents", "4agents", "5agents")


def test_every_page_row_has_every_size_of_every_suite() -> None:
    ref = load_reference()
    page = [r for r in ref.rows if r.source == "page"]
    assert len(page) == 7, "the project page's tables have seven model rows"
    for row in page:
        assert set(row.suites) == set(PAPER_SUITES), row.label
        for suite in PAPER_SUITES:
            expected = {str(s) for s in SUITES[suite].sizes}
            assert set(row.sizes[suite]) == expected, (row.label, suite)
            for cell in row.sizes[suite].values():
                assert 0 <= cell.optimal_makespan <= cell.valid <= 100, (row.label, suite)
    for row in ref.rows:
        assert row.source in ref.sources, row.label
        if row.source != "page":
            assert row.sizes == {} and row.note and "Sums only" in row.note, row.label


def test_sums_agree_with_their_cells_or_are_listed_as_discrepancies() -> None:
    ref = load_reference()
    computed = sum_discrepancies(ref)
    assert list(ref.discrepancies) == computed, "the listed discrepancies are exactly the real ones"
    listed = {(d.row, d.suite, d.metric) for d in ref.discrepancies}
    checked = 0
    for row in ref.rows:
        for suite in row.sizes:
            for metric in ("valid", "optimal_makespan"):
                gap = abs(getattr(row.suites[suite], metric) - cell_mean(row, suite, metric))
                assert (gap <= ROUNDING) != ((row.label, suite, metric) in listed)
                checked += 1
    assert checked == 7 * 3 * 2
    # PAPER.md's check: the trained 3-agent row's 51.67 is the mean of its eight cells
    ours = next(r for r in ref.rows if r.designer == "self")
    assert cell_mean(ours, "3agents", "valid") == pytest.approx(51.67, abs=ROUNDING)


def test_the_source_names_the_project_page_commit_and_kinds_follow_the_page() -> None:
    ref = load_reference()
    assert "LARK-AI-Lab/trainee-to-trainer.github.io" in ref.source and "index.html" in ref.source
    assert re.search(r"commit [0-9a-f]{40}", ref.source)
    kinds = {r.label: r.kind for r in ref.rows}
    for label in ("GPT-5.4", "Grok-4.2", "Gemini-3.1-Pro", "Kimi-K2.5", "Qwen3-4B base"):
        assert kinds[label] == "policy", label
    designers = {r.designer: r for r in ref.rows if r.kind == "designer"}
    assert {"random", "self", "base"} <= set(designers)
    assert any("makespan" in note for note in ref.notes)


def test_reference_size_detail_puts_the_papers_cells_beside_ours() -> None:
    sizes = rates({s: (10, 6, 2, 4) for s in SUITES["3agents"].sizes})
    board = build_board([run("random", 0, sizes)], resamples=200, reference=True, details=["size"])
    text = render(board, "markdown", details=["size"])
    block = text[text.index("### 3agents by map size beside the paper's") :]
    block = block[: block.index("\n### ") if "\n### " in block else None]
    assert "valid / opt. makespan (%)" in block.splitlines()[0]
    assert "| random | this board | 60.0 / 40.0 |" in block
    for row in size_rows(load_reference(), "3agents"):
        cells = row.sizes["3agents"]
        assert f"| {row.label} | paper | {cells['3'].valid:.2f} / " in block, row.label
    assert "Paper rows with Sums only" in block
