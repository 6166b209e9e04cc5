"""Aggregation math on hand-built verdicts whose right answers are known."""

from __future__ import annotations

from pathlib import Path

import pytest

from leaderboards import ONE_SEED, Board, LeaderboardError, LoadedRun, build_board, render
from leaderboards.render.cells import ZERO_MARK
from tests.leaderboards.handmade import rates, run

FAST = 400  # bootstrap resamples: enough for the properties tested, quick on 2 cores


def test_sum_is_the_mean_over_sizes_of_the_per_size_rate() -> None:
    # seed 0: size 3 3/4 valid (75%), size 4 0/2 (0%) -> Sum 37.5 (the pooled rate would be 50)
    # seed 1: size 3 1/4 (25%), size 4 2/2 (100%) -> Sum 62.5; mean over seeds 50.0
    runs = [
        run("random", 0, rates({3: (4, 3, 2), 4: (2, 0, 0)})),
        run("random", 1, rates({3: (4, 1, 1), 4: (2, 2, 1)})),
    ]
    row = build_board(runs, resamples=FAST).rows[0]
    assert row.suites["3agents"].get("valid").mean == pytest.approx(50.0)
    # SOC-optimal: seed 0 (50% + 0%)/2 = 25; seed 1 (25% + 50%)/2 = 37.5; mean 31.25
    soc = row.suites["3agents"].get("optimal_soc")
    assert soc is not None and soc.mean == pytest.approx(31.25)
    assert row.seeds == (0, 1) and row.backend == "cpu" and row.policy == "mlp"


def test_overall_is_the_mean_over_suites() -> None:
    three, four = rates({3: (10, 5, 5)}), rates({4: (10, 1, 0)})
    runs = [run("random", s, three, **{"4agents": four}) for s in (0, 1)]
    row = build_board(runs, resamples=FAST).rows[0]
    assert (
        row.suites["3agents"].get("valid").mean == 50.0
        and row.suites["4agents"].get("valid").mean == 10.0
    )
    assert row.overall.get("valid").mean == pytest.approx(30.0)
    soc = row.overall.get("optimal_soc")
    assert soc is not None and soc.mean == pytest.approx(25.0)


def test_interval_contains_the_mean_and_shrinks_with_more_instances() -> None:
    def width(n: int) -> float:
        runs = [run("random", s, rates({3: (n, n * 3 // 10 + s, n // 10), 4: (n, n // 2, 0)}))
                for s in range(3)]  # fmt: skip
        cell = build_board(runs, resamples=FAST).rows[0].suites["3agents"].get("valid")
        assert cell.low is not None and cell.high is not None
        assert cell.low <= cell.mean <= cell.high
        return cell.high - cell.low

    assert width(400) < width(40) / 2


def test_one_seed_says_the_interval_is_unknown_once_not_in_every_cell() -> None:
    board = build_board([run("random", 0, rates({3: (10, 4, 2)}))], resamples=FAST)
    cell = board.rows[0].suites["3agents"].get("valid")
    assert cell.low is None and cell.high is None and cell.note == ONE_SEED == "n/a (1 seed)"
    for fmt in ("terminal", "markdown", "html"):
        text = render(board, fmt, details=["size", "subset"])
        assert text.count("1 seed: no interval") == 1, fmt
        assert ONE_SEED not in text and "40.0 [" not in text, fmt
    assert "| valid | 40.0 | 40.0 |" in render(board, "markdown")


def test_a_mixed_board_names_the_designers_without_an_interval() -> None:
    runs = [run("random", s, rates({3: (50, 10, 5)})) for s in (0, 1)]
    runs.append(run("lonely", 9, rates({3: (50, 30, 5)})))
    text = render(build_board(runs, resamples=FAST), "markdown")
    assert "> 1 seed: no interval for lonely (seed-to-seed variation needs 2+ seeds)" in text
    assert "| lonely | cpu | mlp | seed 9 | valid | 60.0 | 60.0 |" in text
    assert "| +40.0 | +40.0 |" in text, "its delta is bare too"


def test_delta_against_the_baseline_and_the_zero_mark() -> None:
    runs = []
    for seed in range(3):
        runs.append(run("random", seed, rates({3: (100, 10 + seed, 5), 4: (100, 20, 10)})))
        runs.append(run("better", seed, rates({3: (100, 90 - seed, 50), 4: (100, 80, 40)})))
        runs.append(run("same", seed, rates({3: (100, 11 + seed, 5), 4: (100, 20, 10)})))
    board = build_board(runs, resamples=FAST)
    rows = {r.designer: r for r in board.rows}
    assert rows["random"].delta is None
    better = rows["better"].delta_overall
    assert better is not None and better.get("valid").paired
    # 3agents: (89 - 11) mean 78 points; 4agents: 60 points; overall 69
    assert better.get("valid").mean == pytest.approx(69.0)
    assert better.get("valid").includes_zero is False
    same = rows["same"].delta_overall
    assert same is not None and same.get("valid").includes_zero is True
    text = render(board, "markdown")
    assert "+69.0 [" in text and ZERO_MARK in text


def test_unpaired_delta_when_seeds_differ_and_unknown_with_one_seed() -> None:
    runs = [run("random", s, rates({3: (50, 10, 5)})) for s in (0, 1)]
    runs += [run("other", s, rates({3: (50, 30, 5)})) for s in (5, 6)]
    runs += [run("lonely", 9, rates({3: (50, 30, 5)}))]
    rows = {r.designer: r for r in build_board(runs, resamples=FAST).rows}
    other, lonely = rows["other"].delta_overall, rows["lonely"].delta_overall
    assert (
        other is not None and not other.get("valid").paired and other.get("valid").low is not None
    )
    assert (
        lonely is not None
        and lonely.get("valid").note == ONE_SEED
        and lonely.get("valid").low is None
    )


def test_detail_cuts_and_failure_shares() -> None:
    # size 3: 6 instances, subsets cycle wr_025, wr_050, wr_075; the first 3 are valid
    board = build_board([run("random", 0, rates({3: (6, 3, 0), 4: (3, 3, 3)}))], resamples=FAST)
    cells = {(d.cut, d.key): d for d in board.details}
    assert cells["size", "3"].rates.get("valid").mean == 50.0 and cells["size", "3"].instances == 6
    # wr_025 holds instances 0 and 3 of size 3 (1 of 2 valid) and instance 0 of size 4 (valid)
    assert cells["subset", "wr_025"].rates.get("valid").mean == pytest.approx(75.0)
    assert cells["hole", "0.1"].instances == 3  # instances 0 and 5 of size 3, 0 of size 4
    (failures,) = board.failures
    assert failures.answers == 9 and failures.valid == pytest.approx(600 / 9, abs=1e-3)
    assert failures.shares["conflict"] == pytest.approx(300 / 9, abs=1e-3)


def test_boards_are_reproducible() -> None:
    runs = [run("random", s, rates({3: (30, 10 + s, 5)})) for s in range(3)]
    first = build_board(runs, resamples=FAST).model_dump_json()
    assert build_board(list(reversed(runs)), resamples=FAST).model_dump_json() == first


def test_a_missing_baseline_is_a_note_or_an_error_when_asked_for() -> None:
    runs = [run("uniform", s, rates({3: (10, 1, 1)})) for s in (0, 1)]
    board = build_board(runs, resamples=FAST)
    assert board.baseline is None and board.baseline_note is not None
    assert "'random' is not among the runs" in board.baseline_note
    with pytest.raises(LeaderboardError, match="pass --baseline"):
        build_board(runs, baseline="random", strict_baseline=True, resamples=FAST)


def _three_seeds(name: str, size3: tuple[int, ...], size4: tuple[int, ...]) -> list[LoadedRun]:
    """Runs of `name` whose seed s is size3[s] / size4[s] valid of 100 on the two sizes."""
    return [run(name, s, rates({3: (100, a, a // 2), 4: (100, b, b // 2)}))
            for s, (a, b) in enumerate(zip(size3, size4, strict=True))]  # fmt: skip


def test_rliable_aggregates_of_the_runs_x_tasks_matrix() -> None:
    runs = _three_seeds("better", (50, 60, 90), (70, 80, 75))
    runs += _three_seeds("random", (10, 20, 30), (10, 20, 30))
    board = build_board(runs, resamples=FAST, details=())
    got = {(a.designer, a.metric): a for a in board.aggregates}
    metrics = ("valid", "optimal_makespan", "optimal_soc")
    assert set(got) == {(d, m) for d in ("better", "random") for m in metrics}
    better = got["better", "valid"]
    assert better.runs == 3 and better.cells == 2 and better.kind == "designer"
    # scores .5 .6 .9 | .7 .8 .75: mean 70.83; IQM cuts int(6 / 4) = 1 from each end ->
    # (.6 + .7 + .75 + .8) / 4 = 71.25
    assert better.mean.mean == pytest.approx(425 / 6, abs=1e-4)
    assert better.iqm.mean == pytest.approx(71.25)
    for e in (better.mean, better.iqm):
        assert e.low is not None and e.high is not None and e.low <= e.mean <= e.high
        assert e.seeds == 3
    (chance, makespan_chance, soc_chance) = board.improvements
    assert chance.designer == "better" and chance.baseline == "random" and chance.runs == 3
    assert chance.probability == 1.0 and chance.low == chance.high == 1.0
    assert (makespan_chance.metric, soc_chance.metric) == ("optimal_makespan", "optimal_soc")
    profile = next(p for p in board.profiles if p.designer == "random" and p.metric == "valid")
    share = dict(zip(profile.taus, profile.share, strict=True))
    assert len(profile.taus) == 101 and profile.taus[0] == 0.0 and profile.taus[-1] == 100.0
    assert (share[0.0], share[10.0], share[19.0], share[20.0], share[30.0]) == pytest.approx(
        (1.0, 4 / 6, 4 / 6, 2 / 6, 0.0), abs=1e-6
    )  # strictly above tau: a score of 20% is not above 20
    assert all(a >= b for a, b in zip(profile.share, profile.share[1:], strict=False))
    assert profile.low is not None and profile.high is not None
    assert all(lo <= s <= hi for lo, s, hi in zip(profile.low, profile.share, profile.high,
                                                  strict=True))  # fmt: skip


def test_improvement_of_an_identical_designer_is_one_half() -> None:
    runs = _three_seeds("random", (10, 20, 30), (40, 20, 30))
    runs += _three_seeds("same", (10, 20, 30), (40, 20, 30))
    (same, _, _) = build_board(runs, resamples=FAST, details=()).improvements
    assert same.probability == 0.5 and same.low is not None and same.high is not None
    assert same.low < 0.5 < same.high
    assert "0.50 [" in render(build_board(runs, resamples=FAST, details=()), "markdown")


def test_one_run_statistics_have_no_intervals() -> None:
    runs = [run("random", 0, rates({3: (10, 4, 2)})), run("lonely", 9, rates({3: (10, 6, 2)}))]
    board = build_board(runs, resamples=FAST, details=())
    assert all(a.mean.low is None and a.mean.note == ONE_SEED for a in board.aggregates)
    assert all(i.low is None and i.note == ONE_SEED for i in board.improvements)
    assert all(p.low is None and p.high is None for p in board.profiles)
    assert board.improvements[0].probability == 1.0


def test_improvements_compare_rows_of_the_baselines_kind_only() -> None:
    runs = _three_seeds("random", (10, 20, 30), (10, 20, 30))
    runs += [LoadedRun(Path("policies") / r.path, r.record.model_copy(update={"kind": "policy"}))
             for r in _three_seeds("model", (50, 60, 70), (50, 60, 70))]  # fmt: skip
    board = build_board(runs, resamples=FAST, details=())
    assert {a.designer for a in board.aggregates} == {"random", "model"}
    assert board.improvements == (), "a zero-shot policy is not compared with a designer"


def test_adding_a_designer_moves_no_other_statistic() -> None:
    runs = _three_seeds("random", (10, 20, 30), (10, 25, 30))
    runs += _three_seeds("better", (50, 60, 90), (70, 80, 75))
    more = [*runs, *_three_seeds("other", (40, 45, 50), (30, 35, 60))]
    first, second = (build_board(r, resamples=FAST, details=()) for r in (runs, more))

    def mine(board: Board) -> list[object]:
        return [x for x in (*board.aggregates, *board.improvements, *board.profiles,
                            *board.curves) if x.designer == "better"]  # fmt: skip

    assert mine(first) == mine(second) and mine(first)
