"""The controls preset end to end at a tiny budget: random, matched and harder through the CLI.

`harness compare --preset controls` runs the real path (preset, registry, round loop, CPU
backend, records) with a couple of rounds and a handful of samples; the checks read the
records on disk, not the command's table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from designers.builtin import benchmark_mix
from harness_cli import app
from mapf_env import EnvConfig
from run_records import ResultRecord
from tasks.mapf_frozenlake.board_view import BOARD_RATES

runner = CliRunner()
CONTROLS = ["random", "matched", "harder"]
TINY = ["--seeds", "1", "--set", "rounds=3", "--set", "samples_per_round=40",
        "--set", "epochs_per_round=1", "--set", "benchmarks=[validation]",
        "--set", "best_of=1"]  # fmt: skip


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ResultRecord]]:
    """The preset run once through the CLI at the tiny budget: designer -> seed 0's record."""
    out = tmp_path_factory.mktemp("controls") / "runs"
    result = runner.invoke(app, ["compare", "--preset", "controls", "--out", str(out), "--quiet",
                                 *TINY], env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 0, result.output
    found = {}
    for designer in CONTROLS:
        path = out / "controls" / designer / "seed-0" / "result.json"
        found[designer] = ResultRecord.model_validate_json(path.read_text(encoding="utf-8"))
    board = runner.invoke(app, ["leaderboard", "show", str(out), "--format", "json"])
    assert board.exit_code == 0, board.output
    BOARDS.append(json.loads(board.output))
    yield found


BOARDS: list[dict[str, Any]] = []
"""The board the fixture built from the preset's runs (filled once per module)."""


def test_the_board_brackets_the_runs_with_the_controls(records: dict[str, ResultRecord]) -> None:
    (board,) = BOARDS
    assert sorted(row["designer"] for row in board["rows"]) == sorted(CONTROLS)
    controls = board["controls"]
    assert (controls["zero"], controls["positive"], controls["negative"]) == (
        "random", "matched", "harder")  # fmt: skip
    overall = {row["designer"]: row["overall"] for row in board["rows"]}
    for metric, line in controls["sensitivity"].items():
        gap = overall["matched"][metric]["mean"] - overall["harder"][metric]["mean"]
        assert line["mean"] == pytest.approx(gap, abs=1e-3)
    assert set(controls["sensitivity"]) == {m for m in overall["matched"] if overall["matched"][m]}
    scores = {(s["designer"], s["metric"]): s["score"] for s in controls["normalised"]}
    for metric in controls["sensitivity"]:  # every rate scored for all three, or said why not
        scored = {designer for designer, m in scores if m == metric}
        short = next(r.short for r in BOARD_RATES if r.key == metric)
        why_not = f"no normalised {short} score"
        assert scored == set(CONTROLS) or why_not in (controls["note"] or ""), controls["note"]
    for (designer, metric), score in scores.items():
        zero, one = overall["random"][metric]["mean"], overall["matched"][metric]["mean"]
        assert score == pytest.approx((overall[designer][metric]["mean"] - zero) / (one - zero),
                                      abs=1e-3)  # fmt: skip
    assert {a["designer"] for a in board["aggregates"]} == set(CONTROLS)


def test_every_control_finished_under_its_name(records: dict[str, ResultRecord]) -> None:
    for name, record in records.items():
        assert record.designer == name and record.seed == 0
        assert len(record.rounds) == 3 and list(record.suites) == ["validation"]
        assert record.design_failures() == []


def test_matched_trains_on_the_benchmark_mix_every_round(records: dict[str, ResultRecord]) -> None:
    record = records["matched"]
    assert record.initial_source == "designer"
    mix = EnvConfig(sizes=benchmark_mix().sizes, n_agents=2, samples=40)
    assert [r.config for r in record.rounds] == [mix] * 3


def test_random_keeps_its_start_and_harder_grows(records: dict[str, ResultRecord]) -> None:
    kept = records["random"]
    assert kept.initial_source == "shared"
    assert len({r.config.model_dump_json() for r in kept.rounds}) == 1
    grown = records["harder"]
    assert grown.rounds[0].config == kept.rounds[0].config  # both start from the shared draw
    for before, after in zip(grown.rounds, grown.rounds[1:], strict=False):
        old, new = before.config.sizes, after.config.sizes
        assert sum(new[s].ratio for s in (8, 9, 10)) > sum(old[s].ratio for s in (8, 9, 10))
        assert all(new[s].hole_ratio >= old[s].hole_ratio for s in old)
        assert sum(new[s].hole_ratio for s in new) > sum(old[s].hole_ratio for s in old)
        assert all(new[s].wait_ratio >= old[s].wait_ratio for s in old)
