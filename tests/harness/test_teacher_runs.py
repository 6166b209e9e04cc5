"""The curriculum teachers (learning-progress, regret) through the real round loop on the CPU
learner, a few rounds each."""

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


def test_the_regret_designer_designs_every_round_of_a_real_run(tmp_path: Path) -> None:
    record = run(tiny(rounds=3, designers=["regret"]), "regret", tmp_path)
    assert len(record.rounds) == 3 and record.suites["validation"].greedy.overall.n == 400
    proposals = [r.proposal for r in record.rounds[:-1]]
    assert all(p is not None and not p.kept_previous and p.failure_reason is None
               and "regret" in p.rationale for p in proposals)  # fmt: skip
    assert record.rounds[1].config != record.rounds[0].config
