"""A designer that could not design is never passed off as a result.

A comparison against a server that always fails: every design step is recorded as failed
with its reason, shown on the progress line and in the final table; without
`--allow-design-failures` the command exits 1 naming the designer, and boards do not rank it;
with it, the run stands and boards show it flagged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app
from run_records import ResultRecord
from tests.designers.openai_server import FAST, Reply, ScriptedServer

pytestmark = pytest.mark.e2e

runner = CliRunner()
SPEC = "llm:openai/scripted-model"
TINY = ["--set", "rounds=3", "--set", "samples_per_round=40", "--set", "epochs_per_round=1",
        "--set", "benchmarks=[validation]", "--set", "best_of=1"]  # fmt: skip


def options(server: ScriptedServer) -> str:
    settings = {**FAST, "max_retries": 1, "api_base": server.base_url}
    return f"designer_options={json.dumps({SPEC: settings})}"


def compare(out: Path, server: ScriptedServer, *extra: str) -> tuple[int, str]:
    result = runner.invoke(
        app,
        ["compare", "--designers", f"random,{SPEC}", "--out", str(out), *TINY,
         "--set", options(server), *extra],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    return result.exit_code, result.output


def test_failed_design_steps_are_counted_and_the_designer_is_not_ranked(
    tmp_path: Path, openai_server: ScriptedServer
) -> None:
    openai_server.default = Reply(status=503, content="overloaded")
    code, output = compare(tmp_path, openai_server)
    assert code == 1, output
    assert "design failed: server error (503)" in output  # the progress line of each round
    assert "2/2 design steps failed: server error (503)" in output  # the final table
    assert f"designer '{SPEC}' never designed" in output and "--allow-design-failures" in output
    record = ResultRecord.model_validate_json(
        next(tmp_path.glob("quick/llm_openai_scripted-model/seed-0/result.json")).read_text()
    )
    assert record.design_failures() == [(0, "server error (503)"), (1, "server error (503)")]
    assert not record.allow_design_failures
    board = runner.invoke(app, ["leaderboard", "show", str(tmp_path), "--format", "markdown"],
                          env={"COLUMNS": "200"})  # fmt: skip
    assert board.exit_code == 0, board.output
    assert "not ranked" in board.output and "2/2 design steps failed" in board.output


def test_allowed_design_failures_are_shown_flagged_on_the_board_and_the_site(
    tmp_path: Path, openai_server: ScriptedServer
) -> None:
    openai_server.default = Reply(status=503, content="overloaded")
    runs = tmp_path / "runs"
    code, output = compare(runs, openai_server, "--allow-design-failures")
    assert code == 0, output
    assert "2/2 design steps failed: server error (503)" in output
    board = runner.invoke(app, ["leaderboard", "show", str(runs), "--format", "markdown"],
                          env={"COLUMNS": "200"})  # fmt: skip
    assert board.exit_code == 0, board.output
    assert "2/2 design steps failed" in board.output and "not ranked" not in board.output
    site = tmp_path / "site"
    published = runner.invoke(app, ["leaderboard", "publish", str(runs), "--out", str(site)])
    assert published.exit_code == 0, published.output
    pages = "\n".join(p.read_text(encoding="utf-8") for p in site.rglob("*.html"))
    assert "2/2 design steps failed" in pages
