"""Config mistakes through the real CLI: one line per bad field, `--lenient` only where it helps."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from harness_cli import app

runner = CliRunner()


def env_file(tmp_path: Path, sizes: str) -> Path:
    path = tmp_path / "env.yaml"
    path.write_text(f"samples: 16\nsizes: {{{sizes}}}\n")
    return path


def test_a_misspelt_key_is_one_line_and_lenient_is_not_offered(tmp_path: Path) -> None:
    entry = "{ratio: 1, holes_ratio: 0.1, wait_ratio: 0}"
    path = env_file(tmp_path, f"3x3: {entry}, 4x4: {entry}")
    for args in (["env", "generate", str(path)], ["env", "generate", str(path), "--lenient"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert lines[0].startswith(f"error: {path}: sizes.{{3x3,4x4}}.holes_ratio: not a field")
        assert "did you mean 'hole_ratio'?" in result.output
        assert "--lenient" not in result.output  # projecting values cannot fix a key


def test_lenient_is_offered_where_it_would_project_and_then_it_does(tmp_path: Path) -> None:
    path = env_file(tmp_path, "4x4: {ratio: 2.0, hole_ratio: 0.9, wait_ratio: 0.5}")
    strict = runner.invoke(app, ["env", "generate", str(path)])
    assert strict.exit_code == 2
    assert "sizes.4x4.hole_ratio: out of range (got 0.9)" in strict.output
    assert "--lenient would project" in strict.output
    lenient = runner.invoke(app, ["env", "generate", str(path), "--lenient", "--workers", "1"])
    assert lenient.exit_code == 0, lenient.output
    assert "sizes.4x4.hole_ratio: 0.9 -> 0.5" in lenient.output


def test_lenient_help_says_what_it_still_refuses() -> None:
    result = runner.invoke(app, ["env", "generate", "--help"], env={"COLUMNS": "300"})
    assert "Misspelt or unknown keys" in result.output and "still refused" in result.output


def test_a_bad_set_value_is_blamed_on_the_set(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["compare", "--designers", "random", "--set", "grpo.learning_rte=0.1", "--out",
         str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "error: --set grpo.learning_rte=0.1: grpo.learning_rte: not a field" in result.output
    assert "did you mean 'learning_rate'?" in result.output and "quick.yaml" not in result.output
