"""The detectable difference: its formula against simulated comparisons with a known answer,
hand-computed seeds and spreads -- paired against random where designers ran its seeds, the
unpaired fallback otherwise -- and `harness leaderboard power` through the real CLI."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from typer.testing import CliRunner

from harness_cli import app
from leaderboards import DetectableDifference, build_board, render
from leaderboards.power import detectable_difference, power_lines, seeds_needed, sum_variance
from tests.leaderboards.handmade import rates, run

runner = CliRunner()
Z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)  # 1.959964 + 0.841621 = 2.801585


def test_seeds_needed_by_hand() -> None:
    # 2 * (2.801585 / 2)^2 * (3^2 + 1^2) = 39.24 -> 40 seeds; 39 would detect 2.0126 > 2 points
    assert pytest.approx(2.801585, abs=1e-6) == Z
    assert seeds_needed(2.0, seed_sd=3.0, instance_sd=1.0) == 40
    assert detectable_difference(3.0, 1.0, 40) <= 2.0 < detectable_difference(3.0, 1.0, 39)
    # a difference larger than the noise still needs two seeds for a run-to-run variance
    assert seeds_needed(50.0, seed_sd=1.0, instance_sd=1.0) == 2
    # 10 points at alpha 0.01 and power 0.9: (2.575829 + 1.281552)^2 * 2 * 25 / 100 = 7.44 -> 8
    assert seeds_needed(10.0, 4.0, 3.0, alpha=0.01, power=0.9) == 8
    with pytest.raises(ValueError, match="positive"):
        seeds_needed(0.0, 1.0, 1.0)


SIZES, INSTANCES, SIMULATIONS = 8, 150, 4000


def test_a_true_difference_of_the_detectable_size_is_found_with_the_stated_power() -> None:
    """Many two-designer comparisons: seed noise on each run's true rate, then Bernoulli answers
    on 150 instances per size; the true difference is the detectable one, so a two-sided test at
    0.05 must reject about 80% of the time."""
    rng = np.random.default_rng(13)
    seeds, seed_sd = 3, 0.02  # rates 0-1
    per_size = np.linspace(0.35, 0.65, SIZES)  # the sizes differ; each run shifts them all
    instance_sd = math.sqrt(sum_variance([list(per_size)], [[INSTANCES] * SIZES]))
    true_gap = detectable_difference(seed_sd, instance_sd, seeds)
    assert 0.02 < true_gap < 0.06, "a realistic gap: a few points"

    def mean_sums(shift: float) -> np.ndarray:
        """(simulations,) mean over seeds of each run's Sum (the mean over sizes)."""
        offsets = rng.normal(0.0, seed_sd, size=(SIMULATIONS, seeds, 1))
        truth = np.clip(per_size + shift + offsets, 0.0, 1.0)
        answers = rng.binomial(INSTANCES, truth) / INSTANCES
        return np.asarray(answers.mean(axis=2).mean(axis=1))

    difference = mean_sums(true_gap) - mean_sums(0.0)
    standard_error = math.sqrt(2 * (seed_sd**2 + instance_sd**2) / seeds)
    rejected = np.abs(difference) > NormalDist().inv_cdf(0.975) * standard_error
    binomial_se = math.sqrt(0.8 * 0.2 / SIMULATIONS)  # 0.0063
    assert abs(rejected.mean() - 0.8) < 3 * binomial_se, rejected.mean()
    # half the gap is found far less often: the test does depend on the difference
    assert (np.abs(mean_sums(true_gap / 2) - mean_sums(0.0)) > 1.96 * standard_error).mean() < 0.4


def test_the_board_pools_seed_variance_within_designers() -> None:
    # one size of 100 instances, so a run's Sum is its rate: a 40, 50 (variance 50); b 20, 30,
    # 40 (variance 100); pooled (1 x 50 + 2 x 100) / 3 = 83.33 -> SD 9.129 points
    counts = {"a": (40, 50), "b": (20, 30, 40)}
    runs = [run(d, s, rates({3: (100, v, 0)}))
            for d, vs in counts.items() for s, v in enumerate(vs)]  # fmt: skip
    (valid, makespan, soc) = build_board(runs, baseline="a", resamples=200, details=()).power
    assert (valid.metric, makespan.metric, soc.metric) == (
        "valid",
        "optimal_makespan",
        "optimal_soc",
    )
    assert valid.seed_sd == pytest.approx(math.sqrt(250 / 3), abs=1e-4) and valid.pooled == 2
    # instance variance per run p(1-p)/100, averaged over the five runs
    shares = [0.4, 0.5, 0.2, 0.3, 0.4]
    instance = 100 * math.sqrt(sum(p * (1 - p) / 100 for p in shares) / 5)
    assert valid.instance_sd == pytest.approx(instance, abs=1e-4)
    assert valid.seeds == 2, "the lower median of 2 and 3 seeds"
    assert valid.detectable == pytest.approx(Z * math.sqrt(250 / 3 + instance**2), abs=1e-3)
    assert soc.seed_sd == 0.0 and soc.detectable == pytest.approx(Z * soc.instance_sd, abs=1e-3)
    assert not valid.paired and valid.against is None and valid.unpaired_detectable is None
    assert (
        valid.note == "unpaired: 'random' is not among the ranked runs, so nothing is paired "
        "against it"
    )


def test_seeds_needed_paired_counts_one_noise_not_two() -> None:
    # (2.801585 / 2)^2 * (3^2 + 1^2) = 19.62 -> 20 seeds, half the unpaired 40
    assert seeds_needed(2.0, 3.0, 1.0, paired=True) == 20
    assert detectable_difference(3.0, 1.0, 20, paired=True) <= 2.0
    assert detectable_difference(3.0, 1.0, 19, paired=True) > 2.0
    assert detectable_difference(3.0, 1.0, 5, paired=True) == pytest.approx(
        detectable_difference(3.0, 1.0, 5) / math.sqrt(2)
    )


def _valid_runs(
    counts: dict[str, tuple[int, ...]], seeds: dict[str, tuple[int, ...]] | None = None
):
    """One size of 100 instances, the first `v` valid: a run's Sum is its valid count."""
    return [run(d, s, rates({3: (100, v, 0)}))
            for d, vs in counts.items()
            for s, v in zip((seeds or {}).get(d, range(len(vs))), vs, strict=True)]  # fmt: skip


def _valid(board_power: tuple[DetectableDifference, ...]) -> DetectableDifference:
    return next(d for d in board_power if d.metric == "valid")


def test_designers_a_constant_apart_on_every_seed_have_no_paired_spread() -> None:
    """random's runs spread over 60 points, mine is 20 above it and other 5 above it on every
    seed: the paired SD is 0 where the unpaired pooled one is 30; pooled per designer (centred
    on each one's own mean difference), or 20 and 5 would add a spread."""
    runs = _valid_runs({"random": (10, 40, 70), "mine": (30, 60, 90), "other": (15, 45, 75)})
    valid = _valid(build_board(runs, resamples=200, details=()).power)
    assert valid.paired and valid.against == "random" and valid.note is None
    assert valid.seed_sd == 0.0 and valid.pooled == 2 and valid.seeds == 3
    # per instance mine - random is 1 on 20 of 100 instances and other - random on 5: the
    # variance of the per-instance differences, not of either run (0.09 to 0.25 here)
    instance = 100 * math.sqrt((0.2 * 0.8 + 0.05 * 0.95) / 2 / 100)
    assert valid.instance_sd == pytest.approx(instance, abs=1e-4)
    assert valid.detectable == pytest.approx(Z * instance / math.sqrt(3), abs=1e-3)
    assert valid.unpaired_detectable is not None
    assert valid.unpaired_detectable > 10 * valid.detectable, "unpaired sees the seeds' spread"


def test_the_paired_spread_is_pooled_within_designers_by_hand() -> None:
    """Per-seed differences from random: a 20, 22, 18 (variance 4), b 5, 9, 7 (variance 4):
    pooled (2 x 4 + 2 x 4) / 4 = 4, SD 2; the instance term is each seed's difference's."""
    runs = _valid_runs({"random": (10, 40, 70), "a": (30, 62, 88), "b": (15, 49, 77)})
    valid = _valid(build_board(runs, resamples=200, details=()).power)
    assert valid.paired and valid.seed_sd == pytest.approx(2.0, abs=1e-4)
    shares = [0.20, 0.22, 0.18, 0.05, 0.09, 0.07]
    instance = 100 * math.sqrt(sum(q * (1 - q) / 100 for q in shares) / len(shares))
    assert valid.instance_sd == pytest.approx(instance, abs=1e-4)
    assert valid.detectable == pytest.approx(Z * math.sqrt((4 + instance**2) / 3), abs=1e-3)


def test_without_a_designer_on_randoms_seeds_the_figure_is_unpaired_and_says_so() -> None:
    runs = _valid_runs({"random": (10, 40, 70), "mine": (30, 60, 90)}, {"mine": (5, 6, 7)})
    board = build_board(runs, resamples=200, details=())
    valid = _valid(board.power)
    assert not valid.paired and valid.against is None and valid.unpaired_detectable is None
    assert valid.seed_sd == pytest.approx(30.0, abs=1e-4), "each designer's own spread, pooled"
    assert valid.note == ("unpaired: no designer ran random's seeds (seeds 0, 1, 2); run them on "
                          "its seeds for the paired figure")  # fmt: skip
    assert valid.detectable == pytest.approx(
        detectable_difference(valid.seed_sd, valid.instance_sd, 3), abs=1e-3
    )
    text = render(board, "markdown")
    assert "| valid | unpaired | 3 |" in text and valid.note in text
    lines = power_lines(board.power, 2.0)
    assert (
        lines[0].startswith("valid: run-to-run SD 30.00 points") and lines[1] == f"  {valid.note}"
    )


def test_one_seed_boards_have_no_detectable_difference() -> None:
    board = build_board([run("random", 0, rates({3: (50, 10, 5)}))], resamples=200, details=())
    assert [d.detectable for d in board.power] == [None, None, None]
    assert all(d.note and "one seed" in d.note for d in board.power)


def test_the_power_command_sizes_a_comparison(compare_root: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", "power", str(compare_root), "--delta", "2"])
    assert result.exit_code == 0, result.output
    assert "valid: paired against random: per-seed difference SD" in result.output
    assert "(pooled over 1 designer on random's seeds)" in result.output, "uniform"
    assert (
        "with 2 seeds per designer" in result.output
        and "; unpaired, on other seeds:" in result.output
    )
    assert "a difference of 2 points needs" in result.output
    assert "per designer (paired: random on the same seeds)" in result.output
    one = runner.invoke(app, ["leaderboard", "power", str(compare_root), "--delta", "2",
                              "--metric", "optimal_soc", "--alpha", "0.01"])  # fmt: skip
    assert one.exit_code == 0 and "valid:" not in one.output and "alpha 0.01" in one.output
    root = tmp_path / "runs"
    shutil.copytree(compare_root, root)
    for seed_one in root.rglob("seed-1"):
        shutil.rmtree(seed_one)
    lonely = runner.invoke(app, ["leaderboard", "power", str(root), "--delta", "2"])
    assert lonely.exit_code == 2 and "every designer has one seed" in lonely.output
    assert len(lonely.output.strip().splitlines()) == 1, lonely.output
    bad = runner.invoke(app, ["leaderboard", "power", str(compare_root), "--delta", "2",
                              "--metric", "speed"])  # fmt: skip
    assert bad.exit_code == 2 and "unknown --metric 'speed'" in bad.output
    zero = runner.invoke(app, ["leaderboard", "power", str(compare_root), "--delta", "0"])
    assert zero.exit_code == 2 and "--delta must be above 0, not 0" in zero.output
