"""`harness leaderboard show` and `schema` through the real CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app
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


def test_bad_input_is_one_line_naming_the_run(compare_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    shutil.copytree(compare_root, root)
    unfinished = root / "quick" / "random" / "seed-1"
    (unfinished / "result.json").unlink()
    cases = [
        (["show", str(root)], f"{unfinished}: unfinished run"),
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
