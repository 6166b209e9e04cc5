"""Validation curves per round: the mean over seeds of each round's validation rate, a band
over seeds, and no curve for a rate some run's reports do not hold."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from leaderboards import LoadedRun, build_board
from mapf_env import EvalReport
from mapf_env.report import RateCounts
from tests.leaderboards.handmade import designed, rates, run

ANSWERS = rates({3: (20, 10, 5)})


def _with_validation(
    designer: str, seed: int, valid: Sequence[int], soc: Sequence[int | None]
) -> LoadedRun:
    """A run whose round n's validation (100 answers) has valid[n] valid, soc[n] SOC-optimal."""
    loaded = designed(run(designer, seed, ANSWERS), [None] * (len(valid) - 1))
    rounds = tuple(
        rnd.model_copy(update={"validation": EvalReport(overall=RateCounts(
            n=100, valid=v, optimal=s or 0, optimal_soc=s), per_size={})})
        for rnd, v, s in zip(loaded.record.rounds, valid, soc, strict=True)
    )  # fmt: skip
    return LoadedRun(loaded.path, loaded.record.model_copy(update={"rounds": rounds}))


def test_curves_are_the_mean_over_seeds_per_round_with_a_band() -> None:
    runs = [
        _with_validation("random", 0, [10, 30, 50], [5, 10, 20]),
        _with_validation("random", 1, [20, 40, 70], [5, 20, 30]),
        _with_validation("random", 2, [30, 50, 60], [5, 30, 40]),
    ]
    board = build_board(runs, resamples=400, details=())
    curves = {c.metric: c for c in board.curves}
    assert set(curves) == {"valid", "optimal_soc"}, "no makespan counts: no makespan curve"
    valid = curves["valid"]
    assert valid.designer == "random" and valid.rounds == (0, 1, 2) and valid.seeds == 3
    assert valid.mean == pytest.approx((20.0, 40.0, 60.0))
    assert valid.low is not None and valid.high is not None
    for low, mean, high in zip(valid.low, valid.mean, valid.high, strict=True):
        assert low < mean < high
    assert valid.low[0] >= 10 and valid.high[0] <= 30, "the band lies within the seeds' range"
    soc = curves["optimal_soc"]
    assert soc.mean == pytest.approx((5.0, 20.0, 30.0))
    assert soc.low is not None and soc.high is not None
    assert soc.low[0] == soc.high[0] == 5.0, "round 0: every seed at 5, the band is the point"


def test_one_seed_curves_have_no_band_and_a_rate_a_run_lacks_has_no_curve() -> None:
    one = build_board([_with_validation("random", 0, [10, 20], [1, 2])], resamples=400,
                      details=())  # fmt: skip
    (valid, soc) = one.curves
    assert valid.mean == (10.0, 20.0) and valid.low is None and valid.seeds == 1
    assert soc.metric == "optimal_soc" and soc.mean == (1.0, 2.0)
    mixed = build_board([_with_validation("random", 0, [10, 20], [1, 2]),
                         _with_validation("random", 1, [10, 20], [None, 2])],
                        resamples=400, details=())  # fmt: skip
    assert [c.metric for c in mixed.curves] == ["valid"]
    assert build_board([run("random", 0, ANSWERS)], resamples=400).curves == (), "no rounds"
