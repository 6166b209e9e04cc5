"""Designer cost from the proposals' transcripts of real run records."""

from __future__ import annotations

from pathlib import Path

import pytest

from designers import Proposal
from designers.proposal import ModelCall
from leaderboards import LoadedRun, load_runs
from leaderboards.costs import cost_row


def _with_calls(run: LoadedRun, prices: list[float | None]) -> LoadedRun:
    first = run.record.rounds[0]
    calls = tuple(
        ModelCall(purpose="analysis", model="m", messages=(), prompt_tokens=100,
                  completion_tokens=10, cost_usd=price, seconds=1.0)
        for price in prices
    )  # fmt: skip
    proposal = Proposal(designer="llm", config=first.config, transcript=calls, seconds=2.5)
    rounds = (first.model_copy(update={"proposal": proposal}),)
    return LoadedRun(run.path, run.record.model_copy(update={"rounds": rounds}))


def test_calls_tokens_and_dollars_are_summed_per_run_and_averaged(compare_root: Path) -> None:
    runs = [r for r in load_runs([compare_root]) if r.record.designer == "random"]
    priced = [_with_calls(runs[0], [0.01, 0.02]), _with_calls(runs[1], [0.03])]
    row = cost_row("llm", [r.record for r in priced])
    assert row.runs == 2 and row.proposals == 1 and row.model_calls == 1.5
    assert row.prompt_tokens == 150 and row.completion_tokens == 15
    assert row.cost_usd == pytest.approx(0.03) and row.cost_note is None
    assert row.design_seconds_per_round == 2.5
    assert row.train_seconds_per_round is not None and row.train_seconds_per_round > 0
    partly = cost_row("llm", [_with_calls(runs[0], [0.01, None]).record])
    assert partly.cost_usd is None and partly.cost_note == "not recorded (1 of 2 calls priced)"
    rules = cost_row("random", [r.record for r in runs])
    assert rules.model_calls == 0 and rules.cost_note == "no model calls"
