"""The controls on hand-built runs: normalised scores between random (0) and matched (1), the
sensitivity lines (matched - random, harder - random, then matched - harder), and what the board
says when a control is missing."""

from __future__ import annotations

import csv
import io

import pytest

from leaderboards import Board, build_board, render
from leaderboards.board import NormalisedScore
from leaderboards.bootstrap import interval
from leaderboards.controls import RUN_CONTROLS
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


def test_the_older_line_is_matched_minus_harder_as_their_delta() -> None:
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
    assert board.controls.positive_minus_zero == {} == board.controls.negative_minus_zero
    assert board.controls.note == (
        "this board has no controls: 'matched' and 'harder' are not among the ranked runs, so "
        f"it shows no normalised scores and no sensitivity lines; {RUN_CONTROLS}"
    )
    assert render(board, "markdown").count("harness compare --preset controls") == 1
    no_harder = build_board(_runs({k: VALID[k] for k in ("random", "matched")}),
                              resamples=FAST, details=())  # fmt: skip
    assert no_harder.controls is not None and _scores(no_harder)
    assert no_harder.controls.note == (
        "this board lacks a control: 'harder' is not among the ranked runs, so it shows no "
        f"harder - random or matched - harder line; {RUN_CONTROLS}"
    )
    assert set(no_harder.controls.positive_minus_zero) == {"valid", "optimal_makespan",
                                                           "optimal_soc"}  # fmt: skip
    no_zero = build_board(_runs({k: VALID[k] for k in ("matched", "harder")}), resamples=FAST,
                          details=())  # fmt: skip
    assert no_zero.controls is not None and no_zero.controls.sensitivity
    assert no_zero.controls.note == (
        "this board has no zero control: 'random' is not among the ranked runs, so it shows no "
        f"normalised scores and no matched - random or harder - random line; {RUN_CONTROLS}"
    )


@pytest.mark.parametrize("names", [("random", "hand", "evidence"), ("hand", "evidence")])
def test_a_board_without_controls_says_so_in_every_text_rendering(names: tuple[str, ...]) -> None:
    """No matched nor harder (nor, in the second, random): every text format says, above the
    tables, that the board has no controls and how to add them -- once."""
    board = build_board(_runs({n: (20 + 3 * i, 24 + 3 * i) for i, n in enumerate(names)}),
                        resamples=FAST, details=())  # fmt: skip
    for fmt in ("terminal", "markdown", "html"):
        text = render(board, fmt, width=400)
        assert text.count("this board has no controls: ") == 1, fmt
        assert text.count("harness compare --preset controls") == 1, fmt
        assert text.index("this board has no controls") < text.index("Designers: Sum"), fmt
        assert "Sensitivity:" not in text, "no line to draw"
    missing = "'random', 'matched' and 'harder' are" if "random" not in names else "'matched'"
    assert board.controls is not None and board.controls.note is not None
    assert board.controls.note.startswith(f"this board has no controls: {missing}")
    rows = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    (note,) = [r["note"] for r in rows if r["section"] == "controls"]
    assert note == board.controls.note


def test_each_control_is_drawn_against_random_paired_and_with_its_sign() -> None:
    """matched - random (+40) above 0 and harder - random (-10) below it, both paired: the
    same numbers as those rows' deltas against random, and drawn so with another baseline."""
    board = build_board(_runs(VALID), resamples=FAST, details=())
    assert board.controls is not None
    good, bad = board.controls.positive_minus_zero, board.controls.negative_minus_zero
    assert good["valid"].mean == pytest.approx(40.0) and bad["valid"].mean == pytest.approx(-10.0)
    for d in (*good.values(), *bad.values()):
        assert d.paired and d.seeds == 2 and d.includes_zero is False
        assert d.low is not None and d.high is not None
    assert all(d.low is not None and d.low > 0 for d in good.values())
    assert all(d.high is not None and d.high < 0 for d in bad.values())
    rows = {r.designer: r for r in board.rows}
    for name, line in (("matched", good), ("harder", bad)):
        overall = rows[name].delta_overall
        assert overall is not None
        assert {m: overall.get(m) for m in line} == line, "the deltas' own paired draw"
    other = build_board(_runs(VALID), baseline="harder", resamples=FAST, details=()).controls
    assert other is not None and other.positive_minus_zero == good
    assert other.negative_minus_zero == bad, "one paired draw of random's, whoever the baseline"
    text = render(board, "markdown")
    table = text[
        text.index("### Sensitivity: matched - random, harder - random, matched - harder") :
    ]
    assert (
        table.index("| matched - random | paired | +40.0 [")
        < table.index("| harder - random | paired | -10.0 [")
        < table.index("| matched - harder | paired |")
    )
    assert "_matched - random: every interval lies above 0, so this budget can see a good " in table
    assert "_harder - random: every interval lies below 0, so this budget can see a bad " in table


def test_a_positive_control_level_with_random_says_the_budget_cannot_see_a_good_designer() -> None:
    """matched level with random (seeds 18/30 and 22/30: +2 +- noise) while harder is far
    below: the old matched - harder line clears 0, the line against random does not."""
    close = {"random": (18, 30), "matched": (22, 30), "harder": (2, 4)}
    board = build_board(_runs(close), resamples=FAST, details=())
    assert board.controls is not None
    good = board.controls.positive_minus_zero["valid"]
    assert good.low is not None and good.low <= 0 and good.paired
    assert board.controls.sensitivity["valid"].includes_zero is False
    text = render(board, "markdown")
    assert ("_matched - random: no interval lies above 0: matched does not beat random beyond "
            "its interval, so this budget cannot see a good designer._") in text  # fmt: skip
    assert "_harder - random: every interval lies below 0, so this budget can see a bad" in text


def test_a_control_on_other_seeds_is_drawn_unpaired() -> None:
    board = build_board(_runs(VALID, {"matched": (5, 6)}), resamples=FAST, details=())
    assert board.controls is not None
    good, bad = board.controls.positive_minus_zero, board.controls.negative_minus_zero
    assert not good["valid"].paired and bad["valid"].paired
    assert good["valid"].mean == pytest.approx(40.0)
    text = render(board, "markdown")
    assert "| matched - random | unpaired |" in text and "| harder - random | paired |" in text


def test_one_seed_lines_have_no_interval_and_say_so() -> None:
    board = build_board(_runs({k: v[:1] for k, v in VALID.items()}), resamples=FAST, details=())
    assert board.controls is not None
    assert board.controls.positive_minus_zero["valid"].mean == pytest.approx(40.0)
    assert board.controls.positive_minus_zero["valid"].low is None
    assert ("_matched - random: no interval (one seed), so whether it clears 0 is unknown._"
            in render(board, "markdown"))  # fmt: skip


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
