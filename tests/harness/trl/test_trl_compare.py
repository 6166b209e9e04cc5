"""`harness compare --designers self,base,random --backend trl` with a real model, end to end.

SmolLM2-135M-Instruct on this CPU, at a toy budget: 2 rounds of 2 instances, n = 2 answers of at
most 24 tokens, a stratified subset of 2 instances per suite. At this size the model solves no
instance (every answer fails to parse), so the accuracy term pays nothing; the run pays the
reward's length term on every answer (``length_gate: any``), measured in characters as the verl
backend measures it (``trl.length_unit: characters``), whose spread over a group is GRPO's
signal (a token count seldom spreads: nearly every answer runs to the 24-token bound). What is
checked is the machinery, not learning: real optimiser steps moved the weights that were saved
and served; `self` and `base` each sent the analysis prompt to a real `transformers serve` of
their model, and each answer became a change set or a design step flagged with its reason; the
board ranks all three designers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from safetensors.torch import load_file

from run_records import read_result
from tests.harness.trl.tiny import tiny_experiment

pytestmark = pytest.mark.trl

REPO = Path(__file__).parents[3]
DESIGNERS = ("self", "base", "random")


def experiment(policy: Path) -> dict[str, object]:
    return tiny_experiment(
        "trl-tiny",
        policy,
        DESIGNERS,
        benchmarks=["3agents"],
        trl={"length_unit": "characters"},
        task_settings={
            "reward": {
                "length_gate": "any",
                "budget_tokens": 24,
                "zero_multiple": 8,
                "chars_per_token": 1.0,
            },
        },
    )


@pytest.fixture(scope="module")
def compared(smollm2: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("trl")
    preset = root / "trl_tiny.yaml"
    preset.write_text(yaml.safe_dump(experiment(smollm2)))
    done = subprocess.run(
        [sys.executable, "-m", "harness_cli", "compare", "--preset", str(preset),
         "--out", str(root / "runs"), "--allow-design-failures", "--quiet"],
        capture_output=True, text=True, cwd=REPO, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return root / "runs" / "trl-tiny", done.stdout


def run_dir(root: Path, designer: str) -> Path:
    return root / designer / "seed-0"


def test_real_optimiser_steps_changed_the_saved_weights(
    compared: tuple[Path, str], smollm2: Path
) -> None:
    root, _ = compared
    policy = load_file(smollm2 / "model.safetensors")
    for designer in DESIGNERS:
        record = read_result(run_dir(root, designer))
        steps = sum(r.training.steps for r in record.rounds if r.training)
        assert len(record.rounds) == 2 and all(
            r.training and r.training.steps for r in record.rounds
        )
        final = run_dir(root, designer) / "trl" / "round-001" / "model"
        trained = load_file(final / "model.safetensors")
        moved = [name for name in policy if not policy[name].equal(trained[name])]
        assert moved, f"{designer}: no weight differs from the policy after {steps} step(s)"
        assert record.rounds[-1].target and record.rounds[-1].target["model_sha256"]


def _analysis(record_round: object) -> list[object]:
    proposal = record_round.proposal
    return [call for call in proposal.transcript if call.purpose == "analysis"]


def test_self_and_base_asked_a_real_server_and_each_answer_is_a_design_or_a_flagged_step(
    compared: tuple[Path, str], smollm2: Path
) -> None:
    root, _ = compared
    for designer, served in (("self", "trl/round-000/model"), ("base", str(smollm2))):
        record = read_result(run_dir(root, designer))
        first = record.rounds[0]
        (call,) = _analysis(first)
        assert call.model.endswith(served), (designer, call.model)
        assert "configuration" in call.messages[-1]["content"].lower()
        assert call.error is None and call.response.strip(), (designer, call)
        proposal = first.proposal
        assert proposal is not None
        if proposal.kept_previous:
            assert proposal.failure_reason, proposal
        else:
            assert proposal.changes, proposal
        log = (
            run_dir(root, designer)
            / "trl"
            / "logs"
            / ("serve-policy.log" if designer == "self" else "serve-base.log")
        )
        assert 'POST /v1/chat/completions HTTP/1.1" 200' in log.read_text()


def test_the_board_ranks_all_three(compared: tuple[Path, str]) -> None:
    _, table = compared
    for designer in DESIGNERS:
        assert designer in table, table
    record = json.loads((run_dir(compared[0], "random") / "result.json").read_text())
    assert record["backend"] == "trl"
