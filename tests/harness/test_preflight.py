"""Every run is checked before any work starts: one line per problem, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness_cli import app

runner = CliRunner()
TINY = ["--set", "rounds=1", "--set", "samples_per_round=40", "--set", "benchmarks=[validation]",
        "--set", "best_of=1", "--quiet"]  # fmt: skip
KEYS = ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in KEYS:
        monkeypatch.delenv(variable, raising=False)


def refused(out: Path, *args: str) -> list[str]:
    """The error lines of a `compare` that must refuse, after checking it wrote nothing."""
    result = runner.invoke(app, ["compare", *args, "--out", str(out), *TINY])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output, result.output
    assert not out.exists() or not any(out.iterdir()), sorted(out.rglob("*"))
    return [line for line in result.output.splitlines() if line.startswith("error:")]


def test_keyless_api_designers_are_refused_before_training(tmp_path: Path) -> None:
    lines = refused(tmp_path / "runs", "--designers", "random,gpt,gemini")
    assert len(lines) == 2, lines
    assert "gpt (openai/gpt-5.4) needs OPENAI_API_KEY in the environment" in lines[0]
    assert "gemini (gemini/gemini-3.1-pro) needs GOOGLE_API_KEY or GEMINI_API_KEY" in lines[1]


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    options = "designer_options={evidence: {frontier_bost: 0.6}, hand: {schedule: 3}, evidnce: {}}"
    lines = refused(tmp_path / "runs", "--designers", "self,gpt,evidence,hand,randm",
                    "--set", options)  # fmt: skip
    text = "\n".join(lines)
    assert "designer_options.evidnce: no designer 'evidnce' in this comparison" in text
    assert "did you mean 'evidence'?" in text
    assert (
        "designer 'self' asks the model the training backend serves, but the cpu backend "
        "serves none" in text
    )
    assert "--set 'designer_options.self.endpoint={base_url: http://127.0.0.1:8000/v1" in text
    assert "needs OPENAI_API_KEY" in text
    assert "designer_options.evidence.frontier_bost: not a field" in text
    assert "did you mean 'frontier_boost'?" in text
    assert "designer_options.hand.schedule: wrong type (got 3); expected a string" in text
    assert "no designer 'randm'; did you mean random" in text
    assert len(lines) == 6, lines


def test_wrong_option_types_and_optionless_designers(tmp_path: Path) -> None:
    lines = refused(
        tmp_path / "runs",
        "--designers",
        "evidence,random",
        "--set",
        "designer_options={evidence: {saturated_at: high}, random: {x: 1}}",
    )
    assert "designer_options.evidence.saturated_at: wrong type (got 'high'); expected a number" \
        in lines[0]  # fmt: skip
    assert lines[1].endswith("designer 'random' takes no options (it declares none); got x")


def test_options_of_a_designer_with_an_argument(tmp_path: Path) -> None:
    from designers.llm.options import HostedOptions

    lines = refused(
        tmp_path / "runs",
        "--designers",
        "llm:openai/some-model",
        "--set",
        "designer_options={'llm:openai/some-model': {api_bse: x}}",
    )
    assert "designer_options.llm:openai/some-model.api_bse: not a field" in lines[0]
    assert "did you mean 'api_base'?" in lines[0]
    assert "api_base" in HostedOptions.model_fields


def test_a_missing_backend_extra_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the model check must not reach for the hub
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    lines = refused(tmp_path / "runs", "--designers", "random", "--backend", "verl",
                    "--set", "policy=Qwen/Qwen3-4B")  # fmt: skip
    assert any("the verl backend needs verl" in line and "[gpu]" in line for line in lines), lines


def test_an_output_that_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    lines = refused(blocker / "runs", "--designers", "random")
    assert lines == [
        f"error: --out {blocker / 'runs'}: {blocker} is not a directory; choose another --out"
    ]


def test_a_taken_run_directory_is_refused_before_any_other_run_starts(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    first = runner.invoke(app, ["compare", "--designers", "random", "--out", str(out), *TINY])
    assert first.exit_code == 0, first.output
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    result = runner.invoke(app, ["compare", "--designers", "uniform,random", "--out", str(out),
                                 *TINY])  # fmt: skip
    assert result.exit_code == 2
    assert "quick/random/seed-0 already holds a run; pass --resume" in result.output
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before  # uniform never started


def test_a_dry_run_checks_the_experiment_not_this_machine(tmp_path: Path) -> None:
    """It previews a cluster's commands from a laptop: keys and packages are not asked for."""
    result = runner.invoke(app, ["compare", "--designers", "gpt", "--dry-run",
                                 "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0 and "gpt / seed 0" in result.output, result.output
    bad = runner.invoke(app, ["compare", "--designers", "gpt,self", "--dry-run",
                              "--set", "designer_options={gpt: {max_attempt: 2}}"])  # fmt: skip
    assert bad.exit_code == 2 and "designer_options.gpt.max_attempt: not a field" in bad.output
    assert "the cpu backend serves none" in bad.output
