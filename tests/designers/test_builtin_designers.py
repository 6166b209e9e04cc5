"""The model-free designers: fixed baselines, hand curriculum, evidence rules, harder control."""

from __future__ import annotations

from pathlib import Path

import pytest

from designers import create_designer
from designers.builtin.curriculum import HandCurriculumDesigner, load_schedule
from designers.builtin.evidence import EvidenceDesigner
from mapf_env import SIZES, ConfigError, EnvConfig
from tests.designers.contexts import FAILURES, VALID, contexts, report

REPO = Path(__file__).resolve().parents[2]


def test_random_keeps_the_round0_configuration() -> None:
    designer = create_designer("random")
    for ctx in contexts():
        proposal = designer.propose(ctx)
        assert proposal.config == ctx.config and not proposal.notes


def test_uniform_picks_and_keeps_a_uniform_start() -> None:
    designer = create_designer("uniform")
    start = designer.initial_config(EnvConfig.uniform(samples=100), 0)  # type: ignore[attr-defined]
    assert start is not None and start.samples == 100
    assert {s.ratio for s in start.sizes.values()} == {1 / 8}
    for ctx in contexts():
        config = designer.propose(ctx).config
        assert {(c.ratio, c.hole_ratio, c.wait_ratio) for c in config.sizes.values()} == {
            (1 / 8, 0.25, 0.5)
        }


def test_hand_curriculum_walks_its_stages_over_the_run() -> None:
    designer = HandCurriculumDesigner()
    stages = len(designer.schedule.stages)
    assert stages == 3 and [designer.stage_for(r, 3) for r in range(3)] == [0, 1, 2]
    assert designer.stage_for(0, 20) == 0 and designer.stage_for(19, 20) == stages - 1
    first = designer.initial_config(EnvConfig.uniform(), 0)
    assert first is not None and first.sizes[3].ratio > first.sizes[10].ratio
    last = designer.stage_config(EnvConfig.uniform(), stages - 1)
    assert last.sizes[10].ratio > first.sizes[10].ratio
    assert last.sizes[10].wait_ratio > first.sizes[10].wait_ratio


def test_curriculum_schedule_is_the_one_in_configs() -> None:
    linked = REPO / "configs" / "curricula" / "easy_to_hard.yaml"
    assert load_schedule(linked) == load_schedule()


def test_custom_schedule_and_bad_schedules(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("name: mine\nstages:\n  - {'3x3': {ratio: 1.0}}\n")
    designer = HandCurriculumDesigner(schedule=mine)
    start = designer.initial_config(EnvConfig.uniform(), 0)
    assert start is not None and start.sizes[3].ratio == pytest.approx(1 / (1 + 7 / 8))
    with pytest.raises(ConfigError, match="no curriculum file"):
        HandCurriculumDesigner(schedule=tmp_path / "none.yaml")
    with pytest.raises(ConfigError, match="no built-in curriculum"):
        HandCurriculumDesigner(schedule="hardest")
    (tmp_path / "bad.yaml").write_text("name: bad\nstages: []\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml"):
        HandCurriculumDesigner(schedule=tmp_path / "bad.yaml")


def test_evidence_moves_budget_to_the_frontier_and_follows_failures() -> None:
    ctx = contexts()[1]
    proposal = EvidenceDesigner().propose(ctx)
    before, after = ctx.config.sizes, proposal.config.sizes
    share = {s: after[s].ratio / before[s].ratio for s in SIZES if before[s].ratio > 0.05}
    frontier = [s for s in share if 0.1 <= VALID[s] < 0.85]
    settled = [s for s in share if s not in frontier]
    assert min(share[s] for s in frontier) > max(share[s] for s in settled)
    assert after[6].hole_ratio == pytest.approx(max(0.0, before[6].hole_ratio - 0.05))
    assert after[7].wait_ratio == pytest.approx(min(1.0, before[7].wait_ratio + 0.1))
    assert after[5].wait_ratio == pytest.approx(min(1.0, before[5].wait_ratio + 0.1))
    assert after[8].hole_ratio == before[8].hole_ratio  # parse failures: nothing to change
    assert "6x6" in proposal.rationale and "frontier" in proposal.rationale
    assert all(c.ratio >= 0.02 * 0.9 for c in after.values())  # every size kept


def test_evidence_thresholds_are_configurable_and_checked() -> None:
    ctx = contexts()[1]
    timid = EvidenceDesigner(hole_step=0.0, wait_step=0.0).propose(ctx).config
    assert all(timid.sizes[s].hole_ratio == ctx.config.sizes[s].hole_ratio for s in SIZES)
    with pytest.raises(ValueError, match="saturated_at"):
        EvidenceDesigner(saturated_at=2.0)


def test_evidence_without_a_report_keeps_the_configuration() -> None:
    ctx = contexts()[0]
    proposal = EvidenceDesigner().propose(ctx)
    assert proposal.config == ctx.config and "no validation" in proposal.rationale


def test_harder_makes_everything_harder() -> None:
    ctx = contexts()[1]
    after = create_designer("harder").propose(ctx).config.sizes
    before = ctx.config.sizes
    for s in SIZES:
        assert after[s].hole_ratio >= before[s].hole_ratio
        assert after[s].wait_ratio >= before[s].wait_ratio
    big = sum(after[s].ratio for s in (8, 9, 10))
    assert big > sum(before[s].ratio for s in (8, 9, 10))


def test_report_fixture_is_consistent() -> None:
    r = report(VALID, FAILURES)
    assert r.per_size[3].valid == round(0.95 * 50)
    assert r.failures["parse"] == 75
