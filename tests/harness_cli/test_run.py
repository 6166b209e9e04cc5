"""`harness compare`, `harness run` and `harness runs` through the real CLI."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from harness_cli import app

runner = CliRunner()
TINY = ["--set", "rounds=1", "--set", "samples_per_round=60", "--set", "benchmarks=[validation]",
        "--set", "best_of=2"]  # fmt: skip


def test_compare_prints_the_table_and_runs_can_be_listed(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["compare", "--designers", "random,uniform", "--out", str(tmp_path), "--quiet", *TINY]
    )
    assert result.exit_code == 0, result.output
    assert "random" in result.output and "uniform" in result.output
    assert "validation" in result.output
    listed = runner.invoke(app, ["runs", "list", str(tmp_path)], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and "quick/uniform/seed-0" in listed.output
    shown = runner.invoke(app, ["runs", "show", str(tmp_path / "quick" / "random" / "seed-0")])
    assert shown.exit_code == 0 and "best of 2" in shown.output
    again = runner.invoke(app, ["compare", "--designers", "random", "--out", str(tmp_path), *TINY])
    assert again.exit_code == 2 and "--resume" in again.output


def test_bad_input_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    cases = [
        (["compare", "--designers", "evidnce"], "no designer 'evidnce'; did you mean evidence"),
        (["compare", "--designers", "random", "--preset", "nope"], "no preset 'nope'"),
        (["compare", "--designers", "random", "--set", "roundz=2"], "did you mean 'rounds'"),
        (["compare", "--designers", "random", "--seeds", "0"], "--seeds"),
        (["compare", "--designers", "random", "--backend", "verl"], "policy 'mlp'"),
        (["run", str(tmp_path / "missing.yaml")], "no experiment config"),
        (["compare", "--designers", "random", "--executor", "slurm"], "unknown executor 'slurm'"),
        (["compare", "--designers", "random", "--ray-address", "auto"], "needs --executor ray"),
        (["compare", "--designers", "random", "--logger", "mlflow"], "unknown logger 'mlflow'"),
        (["compare", "--designers", "random", "--workers", "0"], "at least 1"),
        (["runs", "show", str(tmp_path)], "not a run directory"),
    ]
    for args, message in cases:
        result = runner.invoke(app, [*args, "--out", str(tmp_path)] if args[0] != "runs" else args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output, result.output
