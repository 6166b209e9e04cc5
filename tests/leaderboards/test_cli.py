"""`harness leaderboard show`, `publish` and `schema` through the real CLI."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from designers import DesignerNotReady
from harness.executors import Job, RunOptions, run_job
from harness.experiment import ExperimentConfig
from harness_cli import app
from leaderboards import Board

runner = CliRunner()
WIDE = {"COLUMNS": "200"}


def test_show_prints_the_board_and_writes_every_format(compare_root: Path, tmp_path: Path) -> None:
    shown = runner.invoke(app, ["leaderboard", "show", str(compare_root), "--resamples", "200",
                                "--suite-detail", "size"], env=WIDE)  # fmt: skip
    assert shown.exit_code == 0, shown.output
    assert "random" in shown.output and "uniform" in shown.output and "by map size" in shown.output
    for fmt in ("markdown", "csv", "json", "html", "terminal"):
        out = tmp_path / f"board.{fmt}"
        result = runner.invoke(app, ["leaderboard", "show", str(compare_root), "--format", fmt,
                                     "--out", str(out), "--resamples", "200"])  # fmt: skip
        assert result.exit_code == 0 and out.stat().st_size > 0, result.output
    board = Board.model_validate_json((tmp_path / "board.json").read_text())
    assert board.baseline == "random" and len(board.runs) == 4
    best = runner.invoke(app, ["leaderboard", "show", str(compare_root), "--best-of",
                               "--format", "json", "--resamples", "200"])  # fmt: skip
    assert best.exit_code == 0 and json.loads(best.output)["answers"] == "best_of"
    schema = runner.invoke(app, ["leaderboard", "schema"])
    assert schema.exit_code == 0 and json.loads(schema.output)["title"] == "Board"


def test_reference_with_size_detail_shows_the_papers_per_size_cells(compare_root: Path) -> None:
    shown = runner.invoke(app, ["leaderboard", "show", str(compare_root), "--reference",
                                "--suite-detail", "size", "--resamples", "200"],
                          env={"COLUMNS": "400"})  # fmt: skip
    assert shown.exit_code == 0, shown.output
    text = shown.output
    assert (
        "3agents by map size beside the paper's (reported, not reproduced): valid / opt. "
        "makespan (%)" in text
    )
    # the self-checkpoint designer's 3x3 cell and the fixed random configuration's 10x10 cell
    assert "68.67 / 48.00" in text and "19.33 / 13.33" in text
    assert re.search(r"│ random\s+│ this board │\s+\d+\.\d / (\d+\.\d|n/a) │", text), text
    assert "opt. makespan (paper's)" in text and "opt. SOC" in text


def test_bad_input_is_one_line_naming_the_run(compare_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    shutil.copytree(compare_root, root)
    unfinished = root / "quick" / "random" / "seed-1"
    (unfinished / "result.json").unlink()
    cases = [
        (["show", str(root), "--strict"], f"{unfinished}: unfinished run"),
        (["show", str(tmp_path / "none")], "no such file or directory"),
        (["show", str(compare_root), "--format", "pdf"], "unknown format 'pdf'"),
        (["show", str(compare_root), "--suite-detail", "colour"], "unknown --suite-detail"),
        (["show", str(compare_root), "--baseline", "hand"], "baseline 'hand' is not among"),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["leaderboard", *args], env=WIDE)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output


def _with_a_failed_and_an_unfinished_run(compare_root: Path, tmp_path: Path) -> Path:
    """The comparison plus `self`, which the cpu backend cannot serve (it fails before round 1),
    and one run whose benchmarks were never written."""
    root = tmp_path / "runs"
    shutil.copytree(compare_root, root)
    (root / "quick" / "uniform" / "seed-1" / "result.json").unlink()
    stamp = json.loads((root / "quick" / "random" / "seed-0" / "run.json").read_text())
    experiment = ExperimentConfig.model_validate(stamp["experiment"])
    with pytest.raises(DesignerNotReady):
        run_job(experiment, Job("self", 0), root, RunOptions(), threads=1)
    return root


def test_show_and_publish_skip_what_they_cannot_read(compare_root: Path, tmp_path: Path) -> None:
    root = _with_a_failed_and_an_unfinished_run(compare_root, tmp_path)
    shown = runner.invoke(app, ["leaderboard", "show", str(root), "--format", "json",
                                "--resamples", "200"], env=WIDE)  # fmt: skip
    assert shown.exit_code == 0, shown.output
    assert len(Board.model_validate_json(shown.stdout).runs) == 3
    skipped = shown.stderr.strip().splitlines()
    assert len(skipped) == 2, shown.stderr
    failed = next(line for line in skipped if line.startswith("skipped (failed): "))
    assert f"{root / 'quick' / 'self' / 'seed-0'}: failed run (DesignerNotReady: " in failed
    assert any(line.startswith("skipped (unfinished): ") for line in skipped)
    site = tmp_path / "site"
    published = runner.invoke(app, ["leaderboard", "publish", str(root), "--out", str(site),
                                    "--resamples", "200"], env=WIDE)  # fmt: skip
    assert published.exit_code == 0, published.output
    assert published.stderr.strip().splitlines() == skipped
    assert "3 runs" in published.stdout
    index = (site / "index.html").read_text()
    assert "Runs left out" in index and "DesignerNotReady" in index
    strict = runner.invoke(app, ["leaderboard", "publish", str(root), "--out", str(site),
                                 "--strict"], env=WIDE)  # fmt: skip
    assert strict.exit_code == 2 and "(and 1 more runs skipped)" in strict.output


def test_a_board_with_no_readable_run_is_refused(compare_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    shutil.copytree(compare_root / "quick" / "random", root / "quick" / "random")
    for result in root.rglob("result.json"):
        result.write_text("")
    shown = runner.invoke(app, ["leaderboard", "show", str(root)], env=WIDE)
    assert shown.exit_code == 2, shown.output
    lines = shown.stderr.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["skipped (unreadable)"] * 2 + ["error"]
    assert lines[-1] == ("error: none of the 2 runs found can go on a board (each is listed "
                         "above): finish or repair them, or pass other paths")  # fmt: skip
