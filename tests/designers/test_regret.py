"""The `regret` designer's rules on hand-built reports: score, ranks, staleness, floor, steps."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from designers import (
    DesignContext,
    DesignerOptionsError,
    RoundRecord,
    create_designer,
    sample_contexts,
    sample_report,
)
from designers.arms import task_arms
from designers.builtin.regret import (
    RegretDesigner,
    rank_weights,
    regret_score,
    replay_shares,
    rounds_since_visit,
    staleness_weights,
)
from mapf_env import SIZES, EnvConfig, SizeConfig, random_config
from mapf_env.instance import size_name
from mapf_env.report import EvalReport
from tasks import DEFAULT_TASK, cached_task

FRONTIER_AT_6 = {3: 1.0, 4: 1.0, 5: 0.8, 6: 0.5, 7: 0.3, 8: 0.1, 9: 0.0, 10: 0.0}
"""Valid rates with the highest regret at 6x6 (0.5 valid, every valid answer optimal)."""


def regret_context(
    config: EnvConfig,
    valid: Mapping[int, float] = FRONTIER_AT_6,
    history: tuple[EnvConfig, ...] = (),
    optimal_share: float = 1.0,
    seed: int = 0,
) -> DesignContext:
    """A context after round len(history), whose report has `valid` per size; `history` are
    the configurations of the rounds before it."""
    report = sample_report(valid, {}, optimal_share=optimal_share)
    earlier = tuple(RoundRecord(round=r, config=c) for r, c in enumerate(history))
    return DesignContext(round=len(history), total_rounds=20, config=config,
                         initial_config=history[0] if history else config, validation=report,
                         history=earlier, seed=seed)  # fmt: skip


def with_ratios(config: EnvConfig, ratios: Mapping[int, float]) -> EnvConfig:
    sizes = {s: c.model_copy(update={"ratio": ratios[s]}) for s, c in config.sizes.items()}
    return config.model_copy(update={"sizes": sizes})


def test_score_is_the_positive_value_loss_of_the_group_baseline() -> None:
    assert regret_score(0.5, 0.5, 0.75) == pytest.approx(0.25)
    assert regret_score(1.0, 1.0, 0.75) == 0.0  # solved
    assert regret_score(0.0, 0.0, 0.75) == 0.0  # lost (or no answers)
    # All valid, half optimal: mean 0.875, only the optimal half is above it.
    assert regret_score(1.0, 0.5, 0.75) == pytest.approx(0.0625)
    # The optimality gap counts: same valid rate, fewer optimal answers, more regret.
    assert regret_score(0.9, 0.6, 0.75) > regret_score(0.9, 0.9, 0.75)


def test_the_highest_regret_size_gets_the_most_budget() -> None:
    proposal = RegretDesigner().propose(regret_context(EnvConfig.uniform()))
    ratios = {s: c.ratio for s, c in proposal.config.sizes.items()}
    assert max(ratios, key=ratios.__getitem__) == 6
    assert ratios[6] > ratios[5] > ratios[3]  # 0.25 > 0.16 > 0 regret
    assert sum(ratios.values()) == pytest.approx(1.0) and not proposal.notes
    assert "6x6 0.250 (0)" in proposal.rationale


def test_rank_weights_follow_one_over_rank_to_the_inverse_temperature() -> None:
    scores = {3: 0.3, 4: 0.2, 5: 0.1}
    weights = rank_weights(scores, 1.0)
    assert weights[3] == pytest.approx(1 / (1 + 1 / 2 + 1 / 3))
    assert weights[4] == pytest.approx(weights[3] / 2)
    sharp, flat = rank_weights(scores, 0.2), rank_weights(scores, 5.0)
    assert sharp[3] > weights[3] > flat[3] > 1 / 3  # lower temperature: sharper
    assert sharp[5] < weights[5] < flat[5] < 1 / 3
    assert rank_weights(scores, 100.0)[5] == pytest.approx(1 / 3, abs=0.01)  # toward uniform


def test_ties_share_the_mean_weight_of_their_ranks_whatever_the_order() -> None:
    weights = rank_weights({10: 0.0, 3: 0.5, 9: 0.0}, 1.0)
    assert weights[9] == weights[10] == pytest.approx(weights[3] * (1 / 2 + 1 / 3) / 2)
    assert rank_weights({9: 0.0, 3: 0.5, 10: 0.0}, 1.0) == weights
    assert set(rank_weights(dict.fromkeys(SIZES, 0.0), 0.5).values()) == {1 / len(SIZES)}


@pytest.mark.parametrize("temperature", [0.3, 3.0])
def test_temperature_sharpens_and_flattens_the_budget(temperature: float) -> None:
    ctx = regret_context(EnvConfig.uniform())
    plain = RegretDesigner(temperature=1.0, staleness=0.0, min_ratio=0.0)
    middle = plain.propose(ctx).config.sizes[6].ratio
    other = RegretDesigner(temperature=temperature, staleness=0.0, min_ratio=0.0)
    top = other.propose(ctx).config.sizes[6].ratio
    assert (top > middle) if temperature < 1 else (1 / len(SIZES) < top < middle)


def test_staleness_counts_rounds_since_a_size_had_its_share() -> None:
    uniform = EnvConfig.uniform()
    starve_10 = with_ratios(uniform, {**dict.fromkeys(SIZES, 0.13), 10: 0.09})
    ctx = regret_context(starve_10, history=(uniform, starve_10, starve_10))
    arms = task_arms(cached_task(DEFAULT_TASK), starve_10)
    names = [size_name(s) for s in SIZES]
    assert rounds_since_visit(ctx, arms, 1 / 8) == {**dict.fromkeys(names, 0), "10x10": 3}
    never = regret_context(starve_10)  # round 0: 10x10 never visited
    assert rounds_since_visit(never, arms, 1 / 8)["10x10"] == 1


def test_staleness_goes_to_the_oldest_size() -> None:
    scores = {3: 0.0, 6: 0.2, 9: 0.0, 10: 0.0}
    assert staleness_weights(scores, {3: 2, 6: 2, 9: 3, 10: 3}) == {3: 0, 6: 0, 9: 1, 10: 0}
    assert staleness_weights(scores, {3: 2, 6: 2, 9: 1, 10: 1})[6] == 1  # then higher regret
    assert set(staleness_weights(scores, dict.fromkeys(scores, 0)).values()) == {1 / 4}


def test_staleness_brings_back_every_starved_size_in_turn() -> None:
    """Four sizes have no regret; a sharp temperature starves them, staleness brings each back."""
    designer = RegretDesigner(temperature=0.3, staleness=0.3)
    history: list[EnvConfig] = []
    config = EnvConfig.uniform()
    for _ in range(12):
        nxt = designer.propose(regret_context(config, history=tuple(history))).config
        history.append(config)
        config = nxt
    shares = {s: [c.sizes[s].ratio for c in history[1:]] for s in SIZES}
    assert min(shares[10]) == pytest.approx(0.04)  # starved at the floor ...
    assert all(max(ratios) >= 0.2 for ratios in shares.values())  # ... and every size back
    unstale = RegretDesigner(temperature=0.3, staleness=0.0)
    after = unstale.propose(regret_context(config, history=tuple(history))).config
    assert after.sizes[10].ratio == pytest.approx(0.04)  # without staleness: the floor


def test_the_floor_holds_at_any_temperature() -> None:
    config = random_config(0)  # 5x5 at 0.001
    for temperature in (0.05, 1.0):
        for floor in (0.0, 0.04, 0.1):
            designer = RegretDesigner(temperature=temperature, staleness=0.0, min_ratio=floor)
            ratios = [
                c.ratio for c in designer.propose(regret_context(config)).config.sizes.values()
            ]
            assert min(ratios) >= floor - 1e-9 and sum(ratios) == pytest.approx(1.0)
    shares = replay_shares(
        dict.fromkeys(SIZES, 0.0) | {6: 1.0}, dict.fromkeys(SIZES, 0), 0.01, 0.0, 0.05
    )
    assert shares[6] == pytest.approx(1 - 7 * 0.05) and shares[3] == pytest.approx(0.05)


def test_saturated_sizes_get_harder_and_collapsed_ones_easier_within_bounds() -> None:
    start = EnvConfig.uniform(hole_ratio=0.25, wait_ratio=0.5)
    after = RegretDesigner().propose(regret_context(start)).config.sizes
    assert (after[3].hole_ratio, after[3].wait_ratio) == (0.3, 0.6)  # saturated
    assert (after[9].hole_ratio, after[9].wait_ratio) == (0.2, 0.4)  # collapsed
    assert (after[6].hole_ratio, after[6].wait_ratio) == (0.25, 0.5)  # frontier: kept
    config = start
    for _ in range(10):
        config = RegretDesigner().propose(regret_context(config)).config
    assert (config.sizes[3].hole_ratio, config.sizes[3].wait_ratio) == (0.4, 0.75)
    assert (config.sizes[10].hole_ratio, config.sizes[10].wait_ratio) == (0.1, 0.25)
    outside = SizeConfig(ratio=1 / 8, hole_ratio=0.5, wait_ratio=0.1)
    odd = start.model_copy(update={"sizes": dict.fromkeys(SIZES, outside)})
    kept = RegretDesigner().propose(regret_context(odd)).config.sizes
    assert kept[3].hole_ratio == 0.5 and kept[10].wait_ratio == 0.1  # never the wrong way


def test_deterministic_and_the_same_for_every_seed() -> None:
    config = random_config(2)
    history = (random_config(1), config)
    first = RegretDesigner().propose(regret_context(config, history=history, seed=0))
    for seed in (0, 7):
        again = RegretDesigner().propose(regret_context(config, history=history, seed=seed))
        assert again.config == first.config and again.rationale == first.rationale


def test_round_zero_without_a_report_keeps_the_configuration() -> None:
    ctx = sample_contexts()[0]
    proposal = create_designer("regret").propose(ctx)
    assert proposal.config == ctx.config and "no validation" in proposal.rationale
    scarce = RegretDesigner(min_answers=500).propose(regret_context(EnvConfig.uniform()))
    assert scarce.config == EnvConfig.uniform() and "too few answers" in scarce.rationale
    empty = ctx.model_copy(update={"validation": EvalReport()})
    assert create_designer("regret").propose(empty).config == ctx.config


@pytest.mark.parametrize(
    ("options", "line"),
    [
        ({"temperature": 0}, "designer_options.regret.temperature: "),
        ({"staleness": 1.5}, "designer_options.regret.staleness: "),
        ({"min_ratio": -0.1}, "designer_options.regret.min_ratio: "),
        ({"collapsed_at": 0.9}, "lower collapsed_at"),
        (
            {"ranges": {"sizes.*.wait_ratio": [0.8, 0.2]}},
            "the range of sizes.*.wait_ratio [0.8, 0.2] is not an interval",
        ),
        ({"visit_share": 0.04}, "raise visit_share"),
        ({"temprature": 0.5}, "designer_options.regret.temprature: "),
    ],
)
def test_a_bad_option_is_refused_in_one_line(options: dict[str, object], line: str) -> None:
    with pytest.raises(DesignerOptionsError) as caught:
        create_designer("regret", **options)
    assert len(caught.value.lines) == 1 and line in caught.value.lines[0]
