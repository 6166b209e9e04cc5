"""`leaderboards.robust` against rliable's own outputs (tests/golden/rliable_reference.json,
written by tests/golden/rliable_reference.py in an environment where rliable imports).

Point estimates must agree to 1e-12. Interval endpoints come from two independent Monte Carlo
bootstraps (rliable's and ours), so they agree only within Monte Carlo error, measured here:
over 30 seeds of our bootstrap at 20,000 resamples, an endpoint of the mean, IQM or
P(improvement) moved with a standard deviation of at most 0.027 sigma_b (sigma_b: the
bootstrap distribution's SD, read from the reference interval's width / 3.92; theory for a
normal distribution gives 0.019 sigma_b), shrinking as 1 / sqrt(resamples). The difference of
our endpoint and rliable's has SD 0.027 sigma_b sqrt(1 + 20,000 / rliable's resamples); the
tolerance is 4 of those SDs. The largest deviation seen over the 30 seeds was 0.10 sigma_b
(mean, IQM; tolerance 0.15) and 0.16 sigma_b (P(improvement), from rliable's 2,000 resamples;
tolerance 0.36), while resampling whole runs instead of runs within each task is 5 sigma_b off.
A profile's share moves in steps of 1 / (runs x tasks), and its endpoints moved by exactly one
step between seeds (never more); the tolerance is 1.5 steps.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from leaderboards.bootstrap import intervals, rng_for
from leaderboards.robust import (
    TAUS,
    aggregate_iqm,
    aggregate_mean,
    probability_of_improvement,
    score_profile,
    stratified_draws,
    stratified_resample,
)

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "golden" / "rliable_reference.json").read_text("utf-8")
)
RESAMPLES = 20_000
ENDPOINT_SD = 0.027
"""Measured Monte Carlo SD of an endpoint at 20,000 resamples, in units of sigma_b."""


def _tolerance(reference_interval: list[float], reference_reps: int) -> float:
    sigma_b = (reference_interval[1] - reference_interval[0]) / 3.92
    return 4 * ENDPOINT_SD * math.sqrt(1 + RESAMPLES / reference_reps) * sigma_b + 1e-12


def _resampled(scores: np.ndarray, name: str) -> np.ndarray:
    rng = rng_for("rliable-reference", name)
    return stratified_resample(scores, stratified_draws(rng, *scores.shape, RESAMPLES))


@pytest.mark.parametrize("name", sorted(REFERENCE["aggregates"]))
def test_mean_iqm_and_profile_match_rliable(name: str) -> None:
    case: dict[str, Any] = REFERENCE["aggregates"][name]
    scores = np.array(case["scores"])
    assert float(aggregate_mean(scores)) == pytest.approx(case["aggregate_mean"], abs=1e-12)
    assert float(aggregate_iqm(scores)) == pytest.approx(case["aggregate_iqm"], abs=1e-12)
    assert np.allclose(TAUS, REFERENCE["taus"], rtol=0, atol=0)
    assert np.allclose(score_profile(scores), case["profile"], rtol=0, atol=1e-12)
    resampled = _resampled(scores, name)
    for statistic, key in ((aggregate_mean, "aggregate_mean"), (aggregate_iqm, "aggregate_iqm")):
        wanted = case[f"{key}_interval"]
        got = intervals(statistic(resampled))
        tolerance = _tolerance(wanted, REFERENCE["reps"])
        assert np.allclose(got, wanted, rtol=0, atol=tolerance), (key, got, wanted, tolerance)
    low, high = intervals(score_profile(resampled))
    step = 1 / scores.size
    assert np.allclose(low, case["profile_low"], rtol=0, atol=1.5 * step + 1e-12)
    assert np.allclose(high, case["profile_high"], rtol=0, atol=1.5 * step + 1e-12)


@pytest.mark.parametrize("name", sorted(REFERENCE["improvements"]))
def test_probability_of_improvement_matches_rliable(name: str) -> None:
    pair: dict[str, Any] = REFERENCE["improvements"][name]
    x, y = np.array(pair["x"]), np.array(pair["y"])
    point = float(probability_of_improvement(x, y))
    assert point == pytest.approx(pair["probability_of_improvement"], abs=1e-12)
    got = intervals(
        probability_of_improvement(_resampled(x, f"{name}/x"), _resampled(y, f"{name}/y"))
    )
    wanted = pair["probability_of_improvement_interval"]
    tolerance = _tolerance(wanted, REFERENCE["improvement_reps"])
    assert np.allclose(got, wanted, rtol=0, atol=tolerance), (got, wanted, tolerance)


def test_the_reference_covers_ties_and_one_run() -> None:
    ties = np.array(REFERENCE["improvements"]["ties"]["x"])
    other = np.array(REFERENCE["improvements"]["ties"]["y"])
    assert np.array_equal(ties[:, :5], other[:, :5]), "tasks where both sides are the same runs"
    assert len(np.unique(ties)) <= 4, "scores from four values: many ties"
    assert len(REFERENCE["aggregates"]["one_run"]["scores"]) == 1
    counts = np.array(REFERENCE["aggregates"]["five_runs"]["scores"]) * 150
    assert np.allclose(counts, np.round(counts), rtol=0, atol=1e-9), "rates of 150 instances"


def test_hand_computed_cases() -> None:
    # 2 runs x 3 tasks; IQM cuts int(6 / 4) = 1 score from each end of .1 .2 .2 .5 .7 .9
    scores = np.array([[0.1, 0.5, 0.9], [0.2, 0.2, 0.7]])
    assert float(aggregate_iqm(scores)) == pytest.approx((0.2 + 0.2 + 0.5 + 0.7) / 4)
    # task 1: x .1 .2 vs y .2: wins 0, ties 1 of 2 -> 0.25; task 2: .5 .2 vs .2 -> (1 + .5) / 2
    assert float(probability_of_improvement(scores[:, :2], np.array([[0.2, 0.2]]))) == 0.5
    # shares strictly above tau: at tau 20% the two scores of .2 are not above it
    share = score_profile(scores)
    assert (share[0], share[10], share[20], share[70], share[100]) == pytest.approx(
        (1.0, 5 / 6, 3 / 6, 1 / 6, 0.0)
    )
    batch = np.stack([scores, scores[::-1]])
    assert aggregate_iqm(batch).shape == (2,) and np.allclose(aggregate_iqm(batch), 0.4)
