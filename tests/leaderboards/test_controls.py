"""The controls on hand-built runs: normalised scores between random (0) and matched (1), the
sensitivity line (matched minus harder), and what the board says when a control is missing."""

from __future__ import annotations

import pytest

from leaderboards import Board, build_board, render
from leaderboards.board import NormalisedScore
from leaderboards.bootstrap import interval
from leaderboards.groups import make_groups, overall_reps
from leaderboards.sums import resample_sums
from tests.leaderboards.handmade import rates, run

FAST = 400

# valid count per seed on each of two sizes of 100 instances (a run's Sum is its rate)
VALID = {"random": (18, 22), "matched": (58, 62), "harder": (9, 11), "mine": (38, 42)}


def _runs(valid: dict[str, tuple[int, ...]], seeds: dict[str, tuple[int, ...]] | None = None):
    return [
        run(name, seed, rates({3: (100, v, v // 2), 4: (100, v, v // 2)}))
        for name, counts in valid.items()
        for seed, v in zip((seeds or {}).get(name, range(len(counts))), counts, strict=True)
    ]


def _scores(board: Board, metric: str = "valid") -> dict[str, NormalisedScore]:
    assert board.controls is not None
    return {n.designer: n for n in board.controls.normalised if n.metric == metric}


def test_scores_are_normalised_between_random_and_matched() -> None:
    board = build_board(_runs(VALID), resamples=FAST, details=())
    scores = _scores(board)
    # overall Sums: random 20, matched 60, harder 10, mine 40 -> (x - 20) / 40
    assert scores["mine"].score == pytest.approx(0.5)
    assert scores["harder"].score == pytest.approx(-0.25)
    assert scores["random"].score == 0.0 and scores["matched"].score == 1.0
    assert scores["random"].low is None and scores["random"].note == "the scale's 0"
    mine = scores["mine"]
    assert mine.low is not None and mine.high is not None and mine.low < 0.5 < mine.high
    assert mine.high - mine.low < 0.5, "paired by seed and instance: a tight ratio"
    assert board.controls is not None and board.controls.note is None
    assert {n.metric for n in board.controls.normalised} == {
        "valid",
        "optimal_makespan",
        "optimal_soc",
    }


def test_sensitivity_is_matched_minus_harder_as_their_delta() -> None:
    board = build_board(_runs(VALID), baseline="harder", resamples=FAST, details=())
    assert board.controls is not None
    sensitivity = board.controls.sensitivity["valid"]
    assert sensitivity.mean == pytest.approx(50.0) and sensitivity.paired
    assert sensitivity.includes_zero is False
    # it is the matched row's delta against harder, drawn the same way
    matched = next(r for r in board.rows if r.designer == "matched")
    assert matched.delta_overall is not None and matched.delta_overall.get("valid") == sensitivity
    assert set(board.controls.sensitivity) == {"valid", "optimal_makespan", "optimal_soc"}


def test_missing_controls_are_named_with_what_to_run() -> None:
    board = build_board(_runs({"random": (18, 22), "uniform": (30, 34)}), resamples=FAST)
    assert board.controls is not None
    assert not board.controls.normalised and board.controls.sensitivity == {}
    assert board.controls.note == (
        "no normalised scores: 'matched' is not among the ranked runs; no sensitivity line: "
        "'matched' and 'harder' are not among the ranked runs; run `harness compare --preset "
        "controls` (random, matched and harder)"
    )
    assert render(board, "markdown").count("harness compare --preset controls") == 1
    no_harder = build_board(_runs({k: VALID[k] for k in ("random", "matched")}),
                              resamples=FAST, details=())  # fmt: skip
    assert no_harder.controls is not None and _scores(no_harder)
    assert no_harder.controls.note is not None
    assert no_harder.controls.note.startswith("no sensitivity line: 'harder' is not among")


def test_no_score_where_matched_does_not_clearly_beat_random() -> None:
    close = {"random": (18, 30), "matched": (22, 30), "mine": (24, 26)}  # 24, 26 and 25
    board = build_board(_runs(close), resamples=FAST, details=())
    assert board.controls is not None and not _scores(board)  # a scale of noise: no scores
    note = board.controls.note
    assert note is not None
    assert note.startswith(
        "no normalised scores for valid, opt. makespan and opt. SOC: matched does not beat "
        "random beyond its 95% interval (valid +0.0 to +5.2; "
    )  # +5.2 (5.25) is where the interval settles with many resamples
    text = render(board, "markdown")
    assert text.count("no normalised scores for valid") == 1


def test_no_score_where_matched_does_not_beat_random() -> None:
    worse = {"random": (30, 32), "matched": (20, 22), "mine": (40, 42)}
    board = build_board(_runs(worse), resamples=FAST, details=())
    assert board.controls is not None and not _scores(board)
    assert board.controls.note is not None
    assert "no normalised valid score: matched (21.0) does not beat random (31.0)" in (
        board.controls.note
    )


def test_other_seeds_are_normalised_from_independent_resamples() -> None:
    seeds = {"mine": (5, 6)}
    board = build_board(_runs(VALID, seeds), resamples=FAST, details=())
    mine = _scores(board)["mine"]
    assert mine.score == pytest.approx(0.5) and mine.low is not None and mine.high is not None
    paired = _scores(build_board(_runs(VALID), resamples=FAST, details=()))["mine"]
    assert paired.low is not None and paired.high is not None
    assert mine.high - mine.low > paired.high - paired.low, "unpaired draws share no noise"


def test_both_sides_of_the_ratio_are_drawn_alike_when_matched_ran_other_seeds() -> None:
    """mine shares random's seeds, matched does not: the numerator must not be the paired delta
    while the denominator is independent; both are differences of the groups' own resampled
    Sums, random's draws shared by both."""
    runs = _runs(VALID, {"matched": (5, 6)})
    board = build_board(runs, resamples=FAST, details=())
    mine = _scores(board)["mine"]
    groups = {g.designer: g for g in make_groups(runs, "greedy", FAST)}
    drawn = {name: resample_sums(g, ["3agents"]) for name, g in groups.items()}  # as the board
    sums = {name: overall_reps(d.reps, ["3agents"], "valid") for name, d in drawn.items()}
    assert all(x is not None for x in sums.values())
    ratio = (sums["mine"] - sums["random"]) / (sums["matched"] - sums["random"])
    low, high = interval(ratio)
    assert (mine.low, mine.high) == (pytest.approx(low, abs=1e-4), pytest.approx(high, abs=1e-4))


def test_one_seed_scores_have_no_interval() -> None:
    board = build_board(_runs({k: v[:1] for k, v in VALID.items()}), resamples=FAST, details=())
    mine = _scores(board)["mine"]
    assert mine.score == pytest.approx((38 - 18) / (58 - 18)) and mine.low is None
    assert mine.note == "n/a (1 seed)"


def test_policies_alone_have_no_controls() -> None:
    runs = [r.__class__(r.path, r.record.model_copy(update={"kind": "policy"}))
            for r in _runs({"m": (10, 12)})]  # fmt: skip
    assert make_groups(runs, "greedy", 10)[0].kind == "policy"
    assert build_board(runs, resamples=FAST, details=()).controls is None
