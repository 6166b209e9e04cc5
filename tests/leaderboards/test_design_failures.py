"""Failed design steps on the board: counted, flagged in every format, unranked when all failed.

The runs are hand-built (`handmade.designed`): each design step either designed or failed with a
reason, so the counts the board must show are known.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from leaderboards import Board, LeaderboardError, LoadedRun, build_board, render
from leaderboards.design_steps import reason_text
from tests.leaderboards.handmade import designed, rates, run

FAST = 200
ANSWERS = rates({3: (20, 10, 5), 4: (20, 8, 2)})
GOOD = rates({3: (20, 16, 9), 4: (20, 12, 6)})
UNRANKED = (
    "gpt: not ranked: 19/19 design steps failed (missing credentials); its runs trained on the "
    "starting configuration throughout (--allow-design-failures shows it, flagged)"
)


def _runs(gpt: list[list[str | None]], allow: bool = False) -> list[LoadedRun]:
    """random (designs every step) and gpt (failing where `gpt` names a reason), seeds 0, 1."""
    runs = [designed(run("random", seed, ANSWERS), [None] * 9) for seed in (0, 1)]
    runs += [designed(run("gpt", seed, GOOD), steps, allow) for seed, steps in enumerate(gpt)]
    return runs


def _csv_design(board: Board) -> list[dict[str, str]]:
    rows = csv.DictReader(io.StringIO(render(board, "csv")))
    return [r for r in rows if r["section"] == "design"]


def test_some_failed_steps_flag_the_designer_in_every_format() -> None:
    steps: list[list[str | None]] = [[None] * 9 + ["rate limit"], [None] * 8 + ["rate limit"]]
    board = build_board(_runs(steps), resamples=FAST)
    gpt = next(r for r in board.rows if r.designer == "gpt")
    flag = gpt.design_failures
    assert flag is not None and (flag.failed, flag.steps) == (2, 19) and flag.ranked
    assert flag.summary == "2/19 design steps failed: rate limit"
    assert gpt.delta_overall is not None, "a flagged designer is still ranked against the baseline"
    assert next(r for r in board.rows if r.designer == "random").design_failures is None
    line = "‡ gpt: 2/19 design steps failed: rate limit"
    for fmt in ("terminal", "markdown", "html"):
        text = render(board, fmt)
        assert line in text, fmt
        assert "gpt ‡" in text and "random ‡" not in text, fmt
    design = {(r["metric"], r["key"]): r for r in _csv_design(board)}
    assert design["failed_steps", ""]["value"] == "2"
    assert design["design_steps", ""]["value"] == "19"
    assert design["failed_steps", "rate limit"]["value"] == "2"
    assert design["ranked", ""]["value"] == "True" and design["ranked", ""]["note"] == flag.summary
    data = json.loads(render(board, "json"))
    row = next(r for r in data["rows"] if r["designer"] == "gpt")
    assert row["design_failures"]["summary"] == flag.summary and data["unranked"] == []
    assert Board.model_validate_json(render(board, "json")) == board


def test_a_designer_whose_every_step_failed_is_not_ranked() -> None:
    steps: list[list[str | None]] = [["missing credentials"] * 10, ["missing credentials"] * 9]
    board = build_board(_runs(steps), resamples=FAST)
    assert [r.designer for r in board.rows] == ["random"]
    (unranked,) = board.unranked
    assert unranked.designer == "gpt" and unranked.seeds == (0, 1)
    assert unranked.note == UNRANKED
    assert not any(d.designer == "gpt" for d in board.details)
    assert not any(f.designer == "gpt" for f in board.failures)
    assert any(c.designer == "gpt" for c in board.costs), "what it spent is still shown"
    assert "Minus baseline" not in render(board, "markdown"), "no deltas without a ranked rival"
    for fmt in ("terminal", "markdown", "html"):
        text = render(board, fmt, width=400)
        assert UNRANKED in text, fmt
        assert "gpt ‡" not in text, fmt
    assert "| gpt |" not in render(board, "markdown").split("Designer cost")[0]
    design = {(r["metric"], r["key"]): r for r in _csv_design(board)}
    assert design["ranked", ""]["value"] == "False" and design["ranked", ""]["note"] == UNRANKED
    assert design["failed_steps", "missing credentials"]["value"] == "19"
    rates_of_gpt = [r for r in csv.DictReader(io.StringIO(render(board, "csv")))
                    if r["designer"] == "gpt" and r["section"] in ("rate", "detail")]  # fmt: skip
    assert rates_of_gpt == []
    data = json.loads(render(board, "json"))
    assert data["unranked"][0]["note"] == UNRANKED
    assert Board.model_validate_json(render(board, "json")) == board


def test_allow_design_failures_shows_it_flagged() -> None:
    steps: list[list[str | None]] = [["missing credentials"] * 10, ["missing credentials"] * 9]
    board = build_board(_runs(steps, allow=True), resamples=FAST)
    gpt = next(r for r in board.rows if r.designer == "gpt")
    assert gpt.design_failures is not None and gpt.design_failures.all_failed
    assert board.unranked == () and gpt.delta_overall is not None
    line = (
        "‡ gpt: 19/19 design steps failed: missing credentials; shown because its runs were "
        "started with --allow-design-failures: they trained on the starting configuration "
        "throughout"
    )
    for fmt in ("terminal", "markdown", "html"):
        assert line in render(board, fmt, width=400), fmt


def test_allowing_only_some_runs_does_not_rank_it() -> None:
    runs = _runs([["missing credentials"] * 3, ["missing credentials"] * 3])
    runs[2] = designed(runs[2], ["missing credentials"] * 3, allow=True)
    board = build_board(runs, resamples=FAST)
    assert [u.designer for u in board.unranked] == ["gpt"]


def test_an_unranked_baseline_gives_no_deltas_or_an_error_when_asked_for() -> None:
    runs = [designed(run("random", s, ANSWERS), ["rate limit"] * 2) for s in (0, 1)]
    runs += [designed(run("gpt", s, GOOD), [None] * 2) for s in (0, 1)]
    board = build_board(runs, resamples=FAST)
    assert board.baseline is None and board.baseline_note == (
        "baseline 'random' is not ranked (4/4 design steps failed: rate limit): no deltas"
    )
    with pytest.raises(LeaderboardError, match="pass --baseline with a ranked designer"):
        build_board(runs, baseline="random", strict_baseline=True, resamples=FAST)


def test_a_flag_names_the_most_common_reasons_first() -> None:
    assert reason_text({"rate limit": 3, "timeout": 2, "bad yaml": 1}) == (
        "rate limit ×3, timeout ×2 and 1 other reason"
    )
    steps: list[list[str | None]] = [["timeout", "rate limit", "rate limit", None], [None] * 4]
    board = build_board(_runs(steps), resamples=FAST)
    flag = next(r for r in board.rows if r.designer == "gpt").design_failures
    assert flag is not None and list(flag.reasons) == ["rate limit", "timeout"]
    assert flag.summary == "3/8 design steps failed: rate limit ×2, timeout ×1"
