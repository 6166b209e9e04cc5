"""Every design step is bounded and checked where the loop uses it, whatever the designer.

A plug-in that returns no proposal, an unvalidated or illegal configuration, changed agents or
budget, NaN or infinite values or an unknown size, that raises, runs out of memory or never
returns, makes a failed design step with a plain reason: the configuration is kept, the run goes
on, and the board flags the designer as it flags an LLM that could not design.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from designers import (
    CONTRACT_BROKEN,
    DesignContext,
    DesignerConformanceError,
    create_designer,
    run_design_step,
    sample_contexts,
)
from harness.backends.factory import make_backend
from harness.experiment import ExperimentConfig
from harness.loop import run_designer
from harness.run_dir import RunDir
from harness_cli import app
from run_records import ResultRecord, one_line
from tests.harness import hostile_designer
from tests.plugin_sites import plugin_on_path

runner = CliRunner()
TINY = {"name": "tiny", "rounds": 2, "samples_per_round": 40, "epochs_per_round": 1,
        "benchmarks": ["validation"], "best_of": 1, "limit": 40}  # fmt: skip


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The hostile designer installed as an outside plug-in: its module and a dist-info with
    its entry point in a folder on the path (and on PYTHONPATH, for spawned workers)."""
    site = tmp_path / "site"
    dist = site / "hostile_designer-0.1.dist-info"
    dist.mkdir(parents=True)
    shutil.copy(Path(hostile_designer.__file__), site / "hostile_designer.py")
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hostile-designer\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(hostile_designer.ENTRY_POINTS)
    root = str(Path(__file__).resolve().parents[2])
    monkeypatch.setenv("PYTHONPATH", f"{site}:{root}")
    with plugin_on_path(site, ["hostile_designer"]):
        yield site


def context() -> DesignContext:
    return sample_contexts()[1]


@pytest.mark.parametrize(
    ("behaviour", "reason", "detail"),
    [
        ("none", "propose returned None, not a Proposal", "returned None"),
        ("dict", "propose returned dict, not a Proposal", "returned dict"),
        ("huge", CONTRACT_BROKEN, "proposal.config.samples is 1000000"),
        ("construct", CONTRACT_BROKEN, "legal_config"),
        ("nan", CONTRACT_BROKEN, "legal_config"),
        ("unknown_size", CONTRACT_BROKEN, "legal_config"),
        ("raise", "propose raised RuntimeError", "the plug-in's own bug"),
        ("memory", "ran out of memory", "MemoryError"),
        ("exit", "propose raised SystemExit", "SystemExit"),
    ],
)
def test_a_hostile_step_is_a_failed_step_that_keeps_the_configuration(
    hostile: Path, behaviour: str, reason: str, detail: str
) -> None:
    ctx = context()
    designer = create_designer("hostile", behaviour=behaviour)
    proposal = run_design_step(designer, ctx, deadline_s=60)
    assert proposal.kept_previous and proposal.design_failed
    assert proposal.failure_reason == reason
    assert proposal.config == ctx.config and proposal.designer == "hostile"
    assert any(detail in line for line in proposal.failures), proposal.failures
    assert "project() rescales" not in " ".join(proposal.failures)
    json.loads(proposal.model_dump_json())  # the record it goes into is JSON


def test_a_step_that_keeps_the_contract_is_used_as_it_came(hostile: Path) -> None:
    ctx = context()
    proposal = run_design_step(create_designer("hostile"), ctx, deadline_s=60)
    assert not proposal.kept_previous and proposal.rationale == "keep"


def test_a_step_that_never_returns_is_abandoned_at_its_deadline(hostile: Path) -> None:
    ctx = context()
    started = time.monotonic()
    proposal = run_design_step(create_designer("hostile", behaviour="sleep"), ctx, deadline_s=1)
    waited = time.monotonic() - started
    assert 1 <= waited < 30  # the deadline, not forever
    assert proposal.failure_reason == "no proposal within the design deadline of 1 s"
    assert "design_deadline_s" in proposal.failures[0]


def run(experiment: ExperimentConfig, designer: str, root: Path) -> ResultRecord:
    backend = make_backend(experiment, threads=1)
    return run_designer(experiment, designer, 0, backend, RunDir(root, experiment, designer, 0),
                        workers=1)  # fmt: skip


def test_the_loop_goes_on_past_a_hanging_plugin_with_its_previous_configuration(
    hostile: Path, tmp_path: Path
) -> None:
    experiment = ExperimentConfig.from_mapping(
        {
            **TINY,
            "designers": ["hostile"],
            "designer_options": {"hostile": {"behaviour": "sleep"}},
            "design_deadlines": {"hostile": 1},
        }
    )
    record = run(experiment, "hostile", tmp_path / "runs")
    first, second = record.rounds
    assert first.proposal is not None and first.proposal.design_failed
    assert first.proposal.failure_reason == "no proposal within the design deadline of 1 s"
    assert second.config == first.config  # the previous configuration, trained again
    assert record.design_failures() == [(0, "no proposal within the design deadline of 1 s")]


def test_a_round_zero_of_its_own_that_breaks_the_contract_ends_the_run_before_training(
    hostile: Path, tmp_path: Path
) -> None:
    experiment = ExperimentConfig.from_mapping(
        {
            **TINY,
            "designers": ["hostile"],
            "designer_options": {"hostile": {"behaviour": "bad_start"}},
        }
    )
    with pytest.raises(
        DesignerConformanceError, match=r"initial_config.*samples is 1000000"
    ) as refused:
        run(experiment, "hostile", tmp_path / "runs")
    assert not list((tmp_path / "runs").rglob("checkpoint"))  # nothing was trained
    message = one_line(refused.value)  # what failure.json and the run's line say: the rule too
    assert message.startswith("designer 'hostile' has 1 conformance problem: initial_config")
    assert "samples is 1000000" in message


def test_compare_flags_a_plugin_whose_proposals_break_the_contract(
    hostile: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    result = runner.invoke(
        app,
        ["compare", "--designers", "random,hostile", "--out", str(runs),
         "--set", "rounds=2", "--set", "samples_per_round=40", "--set", "epochs_per_round=1",
         "--set", "benchmarks=[validation]", "--set", "best_of=1", "--set", "limit=40",
         "--set", "designer_options.hostile.behaviour=huge"],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # a designer that never designed
    assert "designer 'hostile' never designed" in result.output
    [path] = runs.glob("*/hostile/seed-0/result.json")
    record = ResultRecord.model_validate_json(path.read_text())
    [(_, reason)] = record.design_failures()
    assert reason == CONTRACT_BROKEN
    proposal = record.rounds[0].proposal
    assert proposal is not None and proposal.config.samples == 40  # never a million
    assert record.rounds[1].config.samples == 40 and record.rounds[1].config.n_agents == 2
    board = runner.invoke(app, ["leaderboard", "show", str(runs), "--format", "markdown"],
                          env={"COLUMNS": "200"})  # fmt: skip
    assert board.exit_code == 0, board.output
    assert "hostile: not ranked" in board.output and CONTRACT_BROKEN in board.output


def test_design_deadlines_name_designers_of_the_comparison() -> None:
    experiment = ExperimentConfig.from_mapping(
        {
            **TINY,
            "designers": ["random", "gpt@V3"],
            "design_deadline_s": 90,
            "design_deadlines": {"gpt": 600, "gpt@V3": 1200},
        }
    )
    assert experiment.design_deadline("random") == 90
    assert experiment.design_deadline("gpt@V3") == 1200
    with pytest.raises(ValueError, match=r"design_deadlines names 'randm'.*did you mean 'random'"):
        ExperimentConfig.from_mapping({**TINY, "designers": ["random"],
                                       "design_deadlines": {"randm": 5}})  # fmt: skip


def test_check_designer_is_a_command(hostile: Path) -> None:
    good = runner.invoke(app, ["designers", "check", "hostile"])
    assert good.exit_code == 0, good.output
    assert "keeps the designer contract" in good.output
    bad = runner.invoke(app, ["designers", "check", "hostile", "--option", "behaviour=huge"])
    assert bad.exit_code == 1, bad.output
    assert "fixed_fields" in bad.output and "Traceback" not in bad.output
    unknown = runner.invoke(app, ["designers", "check", "hostil"])
    assert unknown.exit_code == 2 and "did you mean hostile?" in unknown.output
