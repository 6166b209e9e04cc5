"""The index page's story plots from hand-made Board fields: what is drawn, what is said instead.

The boards are the tiny comparison's with `profiles`, `curves` and `controls` replaced by
values whose right picture is known (`model_copy`), so each edge case -- one seed, no controls,
a rate the reports lack -- is tested without running designers for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from leaderboards import Board, Delta, build_board, load_runs, plots
from leaderboards.board import (
    Controls,
    DesignerRow,
    NormalisedScore,
    Profile,
    RateCell,
    RoundCurve,
)
from leaderboards.plots import normalised_svg, profiles_svg, validation_svg
from leaderboards.plots.normalised import score_limits
from leaderboards.site.figures import PLOTTED, PlotGroup, board_figures, heatmaps, plotted
from tasks import create_task
from tests.leaderboards.test_plots import ticks

pytest.importorskip("matplotlib")

TAUS = tuple(float(t) for t in range(101))
BAND = "fill-opacity: 0.18"
"""How a shaded band is written in the SVG (`leaderboards.plots.canvas.BAND_ALPHA`)."""


@pytest.fixture(scope="module")
def board(compare_root: Path) -> Board:
    return build_board(load_runs([compare_root]), resamples=100)


def profile(designer: str, scores: Sequence[float], band: bool = True) -> Profile:
    """The profile of `scores`, its band the profiles of the scores 2 points lower and higher."""

    def share(shift: float) -> tuple[float, ...]:
        return tuple(sum(s + shift > t for s in scores) / len(scores) for t in TAUS)

    return Profile(designer=designer, kind="designer", metric="valid", taus=TAUS,
                   share=share(0), low=share(-2) if band else None,
                   high=share(2) if band else None)  # fmt: skip


def curve(designer: str, mean: Sequence[float], metric: str = "valid") -> RoundCurve:
    return RoundCurve(designer=designer, metric=metric, rounds=tuple(range(len(mean))),
                      mean=tuple(mean), low=tuple(m - 3 for m in mean),
                      high=tuple(m + 3 for m in mean), seeds=2)  # fmt: skip


def groups(board: Board) -> dict[str, PlotGroup]:
    found, _ = board_figures(board)
    configurations, _ = heatmaps(create_task("mapf-frozenlake"), [], [], {}.__setitem__)
    return {g.id: g for g in [*found, configurations]}


def test_profiles_fit_tau_to_where_the_scores_lie(board: Board) -> None:
    scores = [20.5, 24.0, 30.0, 33.0, 41.0, 44.5]
    both = (profile("random", scores), profile("uniform", [s - 1 for s in scores]))
    fitted = board.model_copy(update={"profiles": both})
    svg = profiles_svg(fitted, "valid")
    x, y = ticks(svg, 1), ticks(svg, 2)
    assert x and min(x) >= 15 and max(x) <= 50, x
    assert min(y) >= -0.05 and max(y) <= 1.05, y
    assert svg.count(BAND) == 2 and "<!-- uniform -->" in svg


def test_one_seed_profiles_are_lines_without_bands_and_say_so(board: Board) -> None:
    one = board.model_copy(update={"profiles": (profile("random", [10, 30], band=False),)})
    assert BAND not in profiles_svg(one, "valid")
    group = groups(one)["profiles"]
    assert [f.src for f in group.figures] == ["plots/profile-valid.svg"]
    assert "no band (one seed each)" in group.figures[0].caption
    assert group.note is not None and "No opt. makespan profile" in group.note
    with pytest.raises(ValueError, match="no optimal_makespan profiles"):
        profiles_svg(one, "optimal_makespan")


def test_without_controls_the_normalised_scores_are_a_note(board: Board) -> None:
    absent = groups(board.model_copy(update={"controls": None}))["normalised"]
    assert absent.figures == [] and absent.note is not None
    assert absent.note.startswith("No normalised scores: the board carries no controls")
    why = "no normalised scores: 'matched' is not among the runs"
    noted = groups(board.model_copy(update={"controls": Controls(note=why)}))["normalised"]
    assert (
        noted.figures == []
        and noted.note == "No normalised scores: 'matched' is not among the runs."
    )


def test_normalised_scores_hold_both_references_and_every_interval(board: Board) -> None:
    scores = (NormalisedScore(designer="random", metric="valid", score=0.0, low=-0.2, high=0.2),
              NormalisedScore(designer="uniform", metric="valid", score=-0.5, low=-0.8,
                              high=-0.2),
              NormalisedScore(designer="uniform", metric="optimal_makespan", score=0.4,
                              note="1 seed"))  # fmt: skip
    apart = Delta(mean=13.8, low=10.5, high=16.9, seeds=2, paired=True, includes_zero=False)
    controls = Controls(normalised=scores, sensitivity={"valid": apart})
    with_controls = board.model_copy(update={"controls": controls})
    low, high = score_limits(plots.normalised_scores(with_controls, "valid"))
    assert -1.0 < low < -0.8 and 1.0 < high < 1.2, (low, high)
    x = ticks(normalised_svg(with_controls, "valid"), 1)
    assert 0.0 in x and 1.0 in x, x
    group = groups(with_controls)["normalised"]
    valid, makespan = (f.caption for f in group.figures)
    assert (
        "Sensitivity (overall Sum, points): matched - harder: valid +13.8 [+10.5, +16.9]: its "
        "interval excludes 0, so this budget tells the controls apart."
    ) in valid
    assert "no interval (hollow points): uniform: 1 seed" in makespan
    assert "not measured" in makespan and "bars: 95% interval." in valid
    assert group.note is None
    blurred = apart.model_copy(update={"low": -1.0, "includes_zero": True})
    controls = controls.model_copy(update={"sensitivity": {"valid": blurred}})
    caption = groups(board.model_copy(update={"controls": controls}))["normalised"]
    assert "so this budget cannot tell the controls apart" in caption.figures[0].caption


def test_without_normalised_scores_the_sensitivity_line_stays(board: Board) -> None:
    """matched may not beat random at a tiny budget: no scores, but the controls still speak."""
    blurred = Delta(mean=-0.02, low=-0.13, high=0.11, seeds=2, paired=True, includes_zero=True)
    apart = blurred.model_copy(
        update={"mean": 5.0, "low": 1.0, "high": 9.0, "includes_zero": False}
    )
    why = "no normalised valid score: matched (0.1) does not beat random (0.4)"
    controls = Controls(sensitivity={"valid": blurred, "optimal_soc": blurred}, note=why)
    group = groups(board.model_copy(update={"controls": controls}))["normalised"]
    assert group.figures == [] and group.note == (
        "No normalised valid score: matched (0.1) does not beat random (0.4). Sensitivity "
        "(overall Sum, points): matched - harder: valid +0.0 [-0.1, +0.1] †, opt. SOC +0.0 "
        "[-0.1, +0.1] †: every interval includes 0, so this budget cannot tell the controls apart."
    )
    mixed = controls.model_copy(update={"sensitivity": {"valid": apart, "optimal_soc": blurred}})
    note = groups(board.model_copy(update={"controls": mixed}))["normalised"].note
    assert note is not None and "valid +5.0 [+1.0, +9.0], opt. SOC" in note
    assert note.endswith("the interval includes 0 on opt. SOC: on that rate this budget cannot "
                         "tell the controls apart.")  # fmt: skip


def test_the_lines_against_random_come_first_and_say_what_the_budget_sees(board: Board) -> None:
    """matched beats random, harder is level with it: the caption says the budget sees a good
    designer but not a bad one, each line before the older matched - harder."""
    above = Delta(mean=8.0, low=3.0, high=13.0, seeds=2, paired=True, includes_zero=False)
    level = Delta(mean=-1.0, low=-4.0, high=2.0, seeds=2, paired=True, includes_zero=True)
    apart = Delta(mean=9.0, low=4.0, high=14.0, seeds=2, paired=True, includes_zero=False)
    controls = Controls(positive_minus_zero={"valid": above}, negative_minus_zero={"valid": level},
                        sensitivity={"valid": apart}, note="x")  # fmt: skip
    note = groups(board.model_copy(update={"controls": controls}))["normalised"].note
    assert note is not None
    good = note.index("matched - random: valid +8.0 [+3.0, +13.0]: its interval lies above 0, "
                      "so this budget can see a good designer")  # fmt: skip
    bad = note.index("harder - random: valid -1.0 [-4.0, +2.0] †: its interval does not lie "
                     "below 0: harder does not fall below random beyond its interval, so this "
                     "budget cannot see a bad designer")  # fmt: skip
    assert good < bad < note.index("matched - harder: valid +9.0")


def test_validation_draws_ranked_designers_and_only_the_rates_held(board: Board) -> None:
    curves = (curve("random", [21, 30, 40]), curve("uniform", [25, 33, 44]),
              curve("uniform", [22, 28, 35], "optimal_makespan"),
              curve("ghost", [90, 95, 99]))  # fmt: skip
    drawn = board.model_copy(update={"curves": curves})
    svg = validation_svg(drawn)
    assert svg.count('<g id="axes_') == 2, "a panel per rate the curves hold"
    assert "<!-- ghost -->" not in svg and "<!-- uniform -->" in svg
    y = ticks(svg, 2)
    assert min(y) >= 15 and max(y) <= 50, y
    group = groups(drawn)["validation"]
    assert "No opt. SOC panel" in group.figures[0].caption
    assert "shaded: 95% band over seeds" in group.figures[0].caption
    none = groups(board.model_copy(update={"curves": (curve("ghost", [1, 2]),)}))["validation"]
    assert none.figures == [] and none.note is not None and "left out" in none.note


def test_plots_draw_the_best_ranked_designers_and_say_which(board: Board) -> None:
    """A legend of a hundred designers hides its plot: past `PLOTTED` rows, the plots draw the
    best-ranked and the baseline, and every group's note says so; the tables keep them all."""
    template = board.rows[0]

    def scored(name: str, mean: float) -> DesignerRow:
        valid = template.overall.get("valid")
        assert valid is not None
        overall = RateCell({**template.overall.root, "valid": valid.model_copy(
            update={"mean": mean})})  # fmt: skip
        return template.model_copy(update={"designer": name, "overall": overall})

    many = tuple(scored(f"d{n:02d}", float(n)) for n in range(PLOTTED + 3))
    base = scored("base", -1.0)
    ranked = tuple(sorted([*many, base], key=lambda r: -r.overall.get("valid").mean))
    crowded = board.model_copy(update={"rows": ranked, "baseline": "base", "controls": None})
    shown, sentence = plotted(crowded)
    assert [r.designer for r in shown.rows] == [r.designer for r in ranked[:PLOTTED]] + ["base"]
    assert sentence == (
        f"Drawn: the {PLOTTED} best-ranked of the {PLOTTED + 4} designers (overall valid Sum), "
        "and base; the tables hold every designer."
    )
    assert plotted(board) == (board, ""), "a board of few designers is drawn whole"
    assert all(g.note is not None and sentence in g.note for g in board_figures(crowded)[0])
