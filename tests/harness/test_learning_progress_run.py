"""The learning-progress teacher through the real round loop on the CPU learner, a few rounds."""

from __future__ import annotations

from pathlib import Path

from tests.harness.test_loop import run, tiny


def test_learning_progress_designs_every_round_of_a_real_run(tmp_path: Path) -> None:
    record = run(tiny(rounds=3), "learning-progress", tmp_path)
    assert len(record.rounds) == 3 and record.design_steps() == 2
    assert record.design_failures() == []
    first, second, third = record.rounds
    assert first.proposal is not None and second.proposal is not None
    assert second.config == first.proposal.config != first.config
    assert third.config == second.proposal.config
    assert "explores" in first.proposal.rationale  # round 0: no change measured yet
    assert "absolute progress" in second.proposal.rationale  # round 1 reads round 0's report
