"""The learning-progress teacher's rules on hand-built reports: budget, floor, exploration, mix."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from designers import DesignContext, DesignerOptionsError, create_designer, sample_report
from designers.builtin.learning_progress import (
    LearningProgressDesigner,
    LearningProgressOptions,
    arm_score,
    explored_arm,
    smoothed_progress,
)
from designers.context import RoundRecord
from mapf_env import SIZES, EnvConfig, SizeConfig, random_config
from mapf_env.report import EvalReport, RateCounts
from tasks import DEFAULT_TASK, cached_task

FLAT = dict.fromkeys(SIZES, 0.3)
QUIET = {"explore_share": 0.0}  # no explored size: the budget follows the signal alone
HOLES, WAITS = "sizes.*.hole_ratio", "sizes.*.wait_ratio"


def explored_size(seed: int, round_index: int) -> int:
    return explored_arm(SIZES, seed, round_index)


def report(valid: Mapping[int, float]) -> EvalReport:
    """50 answers a size, every valid one optimal: a size's score is its valid rate."""
    return sample_report(valid, {}, optimal_share=1.0)


def context(
    config: EnvConfig, *rounds: Mapping[int, float], seed: int = 0, reports: int | None = None
) -> DesignContext:
    """The context after the last of `rounds` (valid rate per size per round, oldest first)."""
    measured = [report(valid) for valid in rounds]
    history = tuple(
        RoundRecord(round=n, config=config, validation=r) for n, r in enumerate(measured[:-1])
    )
    return DesignContext(round=len(rounds) - 1, total_rounds=20, config=config,
                         initial_config=config, validation=measured[-1], history=history,
                         seed=seed)  # fmt: skip


def with_mix(config: EnvConfig, hole: float, wait: float) -> EnvConfig:
    sizes = {
        s: c.model_copy(update={"hole_ratio": hole, "wait_ratio": wait})
        for s, c in config.sizes.items()
    }
    return config.model_copy(update={"sizes": sizes})


def test_budget_moves_to_the_size_with_the_most_progress() -> None:
    ctx = context(EnvConfig.uniform(), FLAT, {**FLAT, 7: 0.7, 5: 0.64})
    after = LearningProgressDesigner(**QUIET).propose(ctx).config.sizes
    assert after[7].ratio == pytest.approx(0.25)  # the most progress, up to the ceiling
    others = [after[s].ratio for s in SIZES if s not in (5, 7)]
    assert after[5].ratio > max(others)  # some progress: more than none
    assert max(others) == pytest.approx(min(others))  # no progress: all alike
    assert sum(c.ratio for c in after.values()) == pytest.approx(1.0)


def test_forgetting_draws_budget_as_learning_does() -> None:
    """Absolute progress: a size whose score falls is practised like one whose score rises."""
    ctx = context(EnvConfig.uniform(), FLAT, {**FLAT, 4: 0.0, 9: 0.6})
    after = LearningProgressDesigner(**QUIET).propose(ctx).config.sizes
    assert after[4].ratio == pytest.approx(after[9].ratio)
    assert after[4].ratio > after[3].ratio


def test_the_floor_holds_however_skewed_the_signal() -> None:
    start = random_config(0)  # 5x5 at 0.001, 3x3 at 0.348
    rounds: list[dict[int, float]] = [dict(FLAT)]
    config = start
    designer = LearningProgressDesigner()
    for n in range(1, 15):
        rounds.append({**FLAT, 3: 0.3 + 0.04 * n})  # only 3x3 ever moves
        config = designer.propose(context(config, *rounds)).config
        ratios = [c.ratio for c in config.sizes.values()]
        assert min(ratios) >= 0.05 - 1e-9 and max(ratios) <= 0.25 + 1e-9
        assert sum(ratios) == pytest.approx(1.0)
    assert config.sizes[3].ratio == pytest.approx(0.25)


def test_exploration_is_seeded_by_the_run_and_round() -> None:
    assert explored_size(0, 3) == explored_size(0, 3)
    assert len({explored_size(0, n) for n in range(20)}) > 3  # rounds differ
    assert len({explored_size(seed, 3) for seed in range(20)}) > 3  # seeds differ
    designer = LearningProgressDesigner(temperature=10.0)  # flat Boltzmann: exploration shows
    ctx = context(EnvConfig.uniform(), FLAT, FLAT)
    first, again = designer.propose(ctx), designer.propose(ctx)
    assert first.config == again.config and first.rationale == again.rationale
    picked = explored_size(0, 1)
    assert max(first.config.sizes, key=lambda s: first.config.sizes[s].ratio) == picked
    other = next(seed for seed in range(1, 50) if explored_size(seed, 1) != picked)
    moved = designer.propose(ctx.model_copy(update={"seed": other})).config
    assert moved != first.config
    assert max(moved.sizes, key=lambda s: moved.sizes[s].ratio) == explored_size(other, 1)


def test_round_zero_without_history_is_uniform_and_keeps_the_mix() -> None:
    start = random_config(0)
    ctx = context(start, FLAT)
    assert not ctx.history and ctx.round == 0
    proposal = LearningProgressDesigner().propose(ctx)
    after = proposal.config.sizes
    explored = explored_size(0, 0)
    assert after[explored].ratio == pytest.approx(0.25)  # 0.1 + 0.2, down to the ceiling
    assert {round(after[s].ratio, 9) for s in SIZES if s != explored} == {round(0.75 / 7, 9)}
    for s in SIZES:
        assert (after[s].hole_ratio, after[s].wait_ratio) == (
            start.sizes[s].hole_ratio,
            start.sizes[s].wait_ratio,
        )
    assert "no change measured yet" in proposal.rationale


def test_without_a_report_the_configuration_is_kept() -> None:
    start = random_config(0)
    ctx = DesignContext(round=0, total_rounds=3, config=start, initial_config=start)
    proposal = LearningProgressDesigner().propose(ctx)
    assert proposal.config == start and "no validation report" in proposal.rationale


def test_progress_is_a_moving_average_of_signed_changes() -> None:
    task = cached_task(DEFAULT_TASK)

    def scores(
        reports: list[EvalReport | None], opts: LearningProgressOptions
    ) -> list[float | None]:
        return [
            arm_score(task, task.rates(r).by_first_cut.get("3x3"), opts) if r else None
            for r in reports
        ]

    opts = LearningProgressOptions(smoothing=0.5)
    steady: list[EvalReport | None] = [report({3: v}) for v in (0.2, 0.4, 0.6)]
    assert smoothed_progress(scores(steady, opts), opts.smoothing) == pytest.approx(0.2)
    noisy: list[EvalReport | None] = [report({3: v}) for v in (0.2, 0.4, 0.2)]  # noise cancels
    assert smoothed_progress(scores(noisy, opts), opts.smoothing) == pytest.approx(0.0)
    last_only = LearningProgressOptions(smoothing=1.0)
    assert smoothed_progress(scores(noisy, last_only), 1.0) == pytest.approx(-0.2)
    assert smoothed_progress(scores(steady[:1], opts), 0.5) is None  # one report: no change yet
    gap = [steady[0], None, steady[2]]
    assert smoothed_progress(scores(gap, opts), 0.5) is None  # no two consecutive reports


def test_sizes_short_of_answers_are_neither_favoured_nor_starved() -> None:
    ctx = context(EnvConfig.uniform(), FLAT, {**FLAT, 6: 0.5, 7: 0.7})
    assert ctx.validation is not None
    sparse = {**ctx.validation.per_size, 10: RateCounts(n=3, valid=3, optimal=3)}
    ctx = ctx.model_copy(
        update={"validation": ctx.validation.model_copy(update={"per_size": sparse})}
    )
    after = LearningProgressDesigner(**QUIET, temperature=0.5).propose(ctx).config.sizes
    assert after[7].ratio > after[10].ratio > after[3].ratio  # 10x10 gets the mean progress
    assert after[10].hole_ratio == 0.25 and after[10].wait_ratio == 0.5  # its mix kept


def test_stalled_sizes_move_their_mix_progressing_ones_keep_it() -> None:
    valid = {3: 0.9, 4: 0.9, 5: 0.5, 6: 0.5, 7: 0.2, 8: 0.2, 9: 0.1, 10: 0.1}
    moving = {**valid, 5: 0.7, 6: 0.3, 9: 0.3, 10: 0.3}  # 5, 6, 9, 10 progress (or forget)
    ctx = context(with_mix(EnvConfig.uniform(), 0.3, 0.5), valid, moving)
    proposal = LearningProgressDesigner().propose(ctx)
    after = proposal.config.sizes
    for s in (3, 4):  # stalled, mastered: harder
        assert (after[s].hole_ratio, after[s].wait_ratio) == pytest.approx((0.35, 0.55))
    for s in (7, 8):  # stalled, out of reach: easier
        assert (after[s].hole_ratio, after[s].wait_ratio) == pytest.approx((0.25, 0.45))
    for s in (5, 6, 9, 10):  # still moving: where learning happens
        assert (after[s].hole_ratio, after[s].wait_ratio) == (0.3, 0.5)
    assert (
        "3x3: stalled" in proposal.rationale
        and "mastered: toward the hard end" in proposal.rationale
    )
    assert (
        "7x7: stalled" in proposal.rationale
        and "out of reach: toward the easy end" in proposal.rationale
    )


def test_the_mix_stays_within_its_ranges() -> None:
    valid = {**FLAT, 3: 0.9, 10: 0.1}
    config = with_mix(EnvConfig.uniform(), 0.45, 0.2)  # waits below the range
    rounds: list[dict[int, float]] = [valid]
    for n in range(12):
        rounds.append({**valid, 6: 0.3 + 0.05 * (n % 2)})  # only 6x6 moves
        config = LearningProgressDesigner().propose(context(config, *rounds)).config
    assert (config.sizes[3].hole_ratio, config.sizes[3].wait_ratio) == (0.5, 0.75)
    assert (config.sizes[10].hole_ratio, config.sizes[10].wait_ratio) == (0.1, 0.25)
    for entry in config.sizes.values():
        assert 0.1 <= entry.hole_ratio <= 0.5 and 0.1 <= entry.wait_ratio <= 0.75


def test_options_are_checked_one_line_each() -> None:
    with pytest.raises(DesignerOptionsError) as bad:
        create_designer("learning-progress", temperature=0)
    assert str(bad.value).count("\n") == 0 and "temperature" in str(bad.value)
    with pytest.raises(DesignerOptionsError) as typo:
        create_designer("learning-progress", temprature=0.1)
    assert str(typo.value).count("\n") == 0 and "temprature" in str(typo.value)
    with pytest.raises(DesignerOptionsError, match=r"range of sizes.\*.wait_ratio .* interval"):
        create_designer("learning-progress", ranges={WAITS: (0.8, 0.25)})
    task = cached_task(DEFAULT_TASK)
    (line,) = LearningProgressDesigner(max_ratio=0.1).task_problems(task)
    assert "max_ratio 0.1 over 8 arms" in line  # eight sizes could not fill the budget
    timid = create_designer("learning-progress", steps={HOLES: 0.0, WAITS: 0.0})
    ctx = context(with_mix(EnvConfig.uniform(), 0.3, 0.5), FLAT, FLAT)
    assert {(c.hole_ratio, c.wait_ratio) for c in timid.propose(ctx).config.sizes.values()} == {
        (0.3, 0.5)
    }


def test_a_size_config_outside_the_ranges_comes_back_only_by_steps() -> None:
    low = SizeConfig(ratio=1 / 8, hole_ratio=0.0, wait_ratio=0.0)
    config = EnvConfig(sizes=dict.fromkeys(SIZES, low))
    after = LearningProgressDesigner().propose(context(config, FLAT, FLAT)).config.sizes
    assert {(c.hole_ratio, c.wait_ratio) for c in after.values()} == {(0.05, 0.05)}
