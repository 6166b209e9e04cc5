"""The model-free designers: fixed baselines, hand curriculum, evidence rules, harder control."""

from __future__ import annotations

from pathlib import Path

import pytest

from designers import DesignContext, create_designer, sample_contexts, sample_report
from designers.arms import bounded_shares
from designers.builtin.curriculum import HandCurriculumDesigner, load_schedule
from designers.builtin.evidence import EvidenceDesigner
from designers.sample_contexts import SAMPLE_FAILURES, SAMPLE_VALID
from envdesign_common.field_errors import ConfigError
from mapf_env import SIZES, EnvConfig, random_config
from tasks.mapf_frozenlake import MapfFrozenLake

MAPF = MapfFrozenLake()

REPO = Path(__file__).resolve().parents[2]


def test_random_keeps_the_round0_configuration() -> None:
    designer = create_designer("random")
    for ctx in sample_contexts():
        proposal = designer.propose(ctx)
        assert proposal.config == ctx.config and not proposal.notes


def test_uniform_picks_and_keeps_a_uniform_start() -> None:
    designer = create_designer("uniform")
    start = designer.initial_config(EnvConfig.uniform(samples=100), 0, MAPF)  # type: ignore[attr-defined]
    assert start is not None and start.samples == 100
    assert {s.ratio for s in start.sizes.values()} == {1 / 8}
    for ctx in sample_contexts():
        config = designer.propose(ctx).config
        assert {(c.ratio, c.hole_ratio, c.wait_ratio) for c in config.sizes.values()} == {
            (1 / 8, 0.25, 0.5)
        }


def test_hand_curriculum_walks_its_stages_over_the_run() -> None:
    designer = HandCurriculumDesigner()
    stages = len(designer.schedule.stages)
    assert stages == 3 and [designer.stage_for(r, 3) for r in range(3)] == [0, 1, 2]
    assert designer.stage_for(0, 20) == 0 and designer.stage_for(19, 20) == stages - 1
    first = designer.initial_config(EnvConfig.uniform(), 0, MAPF)
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
    start = designer.initial_config(EnvConfig.uniform(), 0, MAPF)
    assert start is not None and start.sizes[3].ratio == pytest.approx(1 / (1 + 7 / 8))
    with pytest.raises(ConfigError, match="no curriculum file"):
        HandCurriculumDesigner(schedule=tmp_path / "none.yaml")
    with pytest.raises(ConfigError, match="no built-in curriculum"):
        HandCurriculumDesigner(schedule="hardest")
    (tmp_path / "bad.yaml").write_text("name: bad\nstages: []\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml"):
        HandCurriculumDesigner(schedule=tmp_path / "bad.yaml")


def evidence_context(
    config: EnvConfig,
    valid: dict[int, float] = SAMPLE_VALID,
    failures: dict[int, dict[str, int]] = SAMPLE_FAILURES,
    optimal_share: float = 1.0,
) -> DesignContext:
    """A mid-run context whose report has `valid` per size; optimal share 1: nothing lags."""
    measured = sample_report(valid, failures, optimal_share=optimal_share)
    return DesignContext(round=1, total_rounds=20, config=config, initial_config=config,
                         validation=measured, seed=0)  # fmt: skip


def with_waits(config: EnvConfig, wait: float) -> EnvConfig:
    sizes = {s: c.model_copy(update={"wait_ratio": wait}) for s, c in config.sizes.items()}
    return config.model_copy(update={"sizes": sizes})


def test_evidence_moves_budget_to_the_frontier_and_holds_collapsed_sizes() -> None:
    ctx = evidence_context(EnvConfig.uniform())
    proposal = EvidenceDesigner().propose(ctx)
    after = proposal.config.sizes
    frontier, saturated, collapsed = (5, 6, 7, 8), (3, 4), (9, 10)
    assert min(after[s].ratio for s in frontier) > max(after[s].ratio for s in collapsed)
    assert min(after[s].ratio for s in collapsed) > max(after[s].ratio for s in saturated)
    # Collapsed sizes keep their weight: only the renormalisation after the frontier's gain
    # moves them (1.5 x 4 + 0.7 x 2 + 2 shares in all).
    assert after[10].ratio == pytest.approx(0.125 / (0.125 * (1.5 * 4 + 0.7 * 2 + 2)))
    assert "6x6" in proposal.rationale and "frontier" in proposal.rationale
    assert "collapsed" in proposal.rationale and not proposal.notes


def test_evidence_keeps_every_ratio_between_floor_and_ceiling() -> None:
    start = random_config(0)  # 5x5 at 0.001, 3x3 at 0.348
    assert (
        min(c.ratio for c in start.sizes.values())
        < 0.05
        < 0.25
        < max(c.ratio for c in start.sizes.values())
    )
    config = EvidenceDesigner().propose(evidence_context(start)).config
    for _ in range(20):  # and stays there however long the run
        config = EvidenceDesigner().propose(evidence_context(config)).config
        ratios = [c.ratio for c in config.sizes.values()]
        assert min(ratios) >= 0.05 - 1e-9 and max(ratios) <= 0.25 + 1e-9
        assert sum(ratios) == pytest.approx(1.0)


def test_evidence_follows_failures_within_bounds() -> None:
    start = random_config(0)
    after = EvidenceDesigner().propose(evidence_context(start)).config.sizes
    before = start.sizes
    # 10x10: hole collisions dominate -> 0.05 fewer holes.
    assert after[10].hole_ratio == pytest.approx(before[10].hole_ratio - 0.05)
    # 6x6: they dominate too, but it is already under the 0.1 floor -> unchanged.
    assert before[6].hole_ratio < 0.1 and after[6].hole_ratio == before[6].hole_ratio
    # 7x7: conflicts dominate -> more waits; 5x5: conflicts dominate, capped at 0.75.
    assert after[7].wait_ratio == pytest.approx(before[7].wait_ratio + 0.1)
    assert before[5].wait_ratio + 0.1 > 0.75 and after[5].wait_ratio == 0.75
    assert after[8].hole_ratio == before[8].hole_ratio  # parse failures: nothing to change
    assert after[8].wait_ratio == before[8].wait_ratio


def test_evidence_never_drives_waits_to_all_conflict() -> None:
    """Conflicts dominating every round (the CPU learner's case) stop at the 0.75 cap."""
    everywhere = {s: {"conflict": 20, "goal": 5} for s in SIZES}
    valid = dict.fromkeys(SIZES, 0.5)
    config = EnvConfig.uniform()
    for _ in range(20):
        config = EvidenceDesigner().propose(evidence_context(config, valid, everywhere)).config
    assert {c.wait_ratio for c in config.sizes.values()} == {0.75}


@pytest.mark.parametrize("start", [0.2, 0.75, 1.0])
def test_evidence_pulls_waits_to_the_middle_when_optimality_lags(start: float) -> None:
    everywhere = {s: {"conflict": 20, "goal": 5} for s in SIZES}
    valid = dict.fromkeys(SIZES, 0.5)
    config = with_waits(EnvConfig.uniform(), start)
    for rounds in range(1, 8):
        ctx = evidence_context(config, valid, everywhere, optimal_share=0.8)
        proposal = EvidenceDesigner().propose(ctx)
        config = proposal.config
        waits = {c.wait_ratio for c in config.sizes.values()}
        assert len(waits) == 1
        (wait,) = waits
        expected = max(0.5, start - 0.1 * rounds) if start > 0.5 else min(0.5, start + 0.1 * rounds)
        assert wait == pytest.approx(expected)
        assert "optimality lags" in proposal.rationale


def test_evidence_judges_optimality_over_all_sizes() -> None:
    """0.9 of valid answers optimal lags (< 0.95); 1.0 does not; too few valid: no verdict."""
    config = with_waits(EnvConfig.uniform(), 0.7)
    everywhere = {s: {"conflict": 20, "goal": 5} for s in SIZES}
    valid = dict.fromkeys(SIZES, 0.5)
    lagging = EvidenceDesigner().propose(evidence_context(config, valid, everywhere, 0.9))
    assert lagging.config.sizes[6].wait_ratio == pytest.approx(0.6)
    fine = EvidenceDesigner().propose(evidence_context(config, valid, everywhere, 1.0))
    assert fine.config.sizes[6].wait_ratio == pytest.approx(0.75)
    scarce = EvidenceDesigner(min_answers=500).propose(evidence_context(config, valid, everywhere))
    assert scarce.config == config and "too few answers" in scarce.rationale


def test_saturated_sizes_move_waits_to_the_middle() -> None:
    config = with_waits(EnvConfig.uniform(), 0.75)
    after = EvidenceDesigner().propose(evidence_context(config)).config.sizes
    assert after[3].wait_ratio == pytest.approx(0.65)  # saturated (0.95 valid)
    assert after[4].wait_ratio == pytest.approx(0.65)  # saturated (0.90 valid)
    assert after[9].wait_ratio == 0.75  # collapsed, no failures recorded: kept


def test_evidence_thresholds_are_configurable_and_checked() -> None:
    ctx = evidence_context(random_config(0), optimal_share=0.5)
    timid = EvidenceDesigner(hole_step=0.0, wait_step=0.0).propose(ctx).config
    for s in SIZES:
        assert timid.sizes[s].hole_ratio == ctx.config.sizes[s].hole_ratio
        assert timid.sizes[s].wait_ratio == ctx.config.sizes[s].wait_ratio
    loose = EvidenceDesigner(min_ratio=0.0, max_ratio=1.0).propose(ctx).config
    assert loose.sizes[5].ratio < 0.01  # no floor: the near-empty 5x5 stays small
    with pytest.raises(ValueError, match="saturated_at"):
        EvidenceDesigner(saturated_at=2.0)
    with pytest.raises(ValueError, match="under the cap"):
        EvidenceDesigner(mid_wait_ratio=0.8)
    with pytest.raises(ValueError, match="max_ratio"):
        EvidenceDesigner(max_ratio=0.1)  # eight sizes could not fill the budget


def test_evidence_without_a_report_keeps_the_configuration() -> None:
    ctx = sample_contexts()[0]
    proposal = EvidenceDesigner().propose(ctx)
    assert proposal.config == ctx.config and "no validation" in proposal.rationale


def test_bounded_shares() -> None:
    shares = bounded_shares({3: 0.0, 4: 1.0, 5: 1.0, 6: 2.0}, 0.1, 0.4)
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares[3] == pytest.approx(0.1) and shares[6] == pytest.approx(0.4)
    assert shares[4] == pytest.approx(0.25) and shares[5] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="cannot all lie"):
        bounded_shares({3: 1.0, 4: 1.0}, 0.1, 0.3)


def test_harder_makes_everything_harder() -> None:
    ctx = sample_contexts()[1]
    after = create_designer("harder").propose(ctx).config.sizes
    before = ctx.config.sizes
    for s in SIZES:
        assert after[s].hole_ratio >= before[s].hole_ratio
        assert after[s].wait_ratio >= before[s].wait_ratio
    big = sum(after[s].ratio for s in (8, 9, 10))
    assert big > sum(before[s].ratio for s in (8, 9, 10))


def test_report_fixture_is_consistent() -> None:
    r = sample_report(SAMPLE_VALID, SAMPLE_FAILURES)
    assert r.per_size[3].valid == round(0.95 * 50)
    assert r.failures["parse"] == 75
