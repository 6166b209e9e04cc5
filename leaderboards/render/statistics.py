"""The tables of the board's statistics beyond the Sum: rliable's aggregates with P(improvement),
the controls (normalised scores, sensitivity) and the detectable difference.

They follow the Sum tables (the paper's layout stays first). A number whose interval is unknown
(one seed) is shown bare, as in every table: the board says why once (`board_notes`); a
title says `[95% CI]`, and a note explains the intervals or the mark, only where some cell
shows one.
"""

from __future__ import annotations

from leaderboards.board import Board, Improvement, NormalisedScore
from leaderboards.bootstrap import ONE_SEED
from leaderboards.metrics import NA, Metric
from leaderboards.render.cells import (
    ZERO_MARK,
    carries,
    ci_title,
    delta_text,
    estimate_text,
    has_interval,
)
from leaderboards.render.text_table import TextTable

EVEN_LEGEND = f"{ZERO_MARK} the 95% interval includes 0.5: no clear difference from the baseline"


def statistics_tables(board: Board) -> list[TextTable]:
    """Aggregates, controls (normalised scores, sensitivity) and power, each where it has rows."""
    tables = []
    if board.aggregates:
        tables.append(_aggregates(board))
    controls = board.controls
    if controls is not None and controls.normalised:
        tables.append(_normalised(board))
    if controls is not None and controls.sensitivity:
        tables.append(_sensitivity(board))
    if board.power:
        tables.append(_power(board))
    return tables


def _aggregates(board: Board) -> TextTable:
    chances = {(i.designer, i.metric): i for i in board.improvements}
    versus = [f"P(> {board.baseline})"] if board.improvements else []
    rows, seen = [], set()
    for a in board.aggregates:
        first = a.designer not in seen
        seen.add(a.designer)
        label = board.rate(a.metric).label
        head = [a.designer, label] if first else ["", label]
        counts = [str(a.runs), str(a.cells)] if first else ["", ""]
        chance = _chance(chances.get((a.designer, a.metric)), a.designer == board.baseline)
        rows.append([*head, *counts, estimate_text(a.iqm), estimate_text(a.mean),
                     *([chance] if versus else [])])  # fmt: skip
    cells = board.aggregates[0].cells
    strata = board.strata_cut
    shown = has_interval([*(e for a in board.aggregates for e in (a.iqm, a.mean)),
                          *board.improvements])  # fmt: skip
    notes = [
        f"Score matrix: runs x cells, a cell = one suite x {board.cut_titles[strata]} ({cells} "
        f"here; rliable's 'tasks'), a score = that run's {board.answers.replace('_', '-')} rate "
        "on it; mean over runs and cells (every cell weighs alike; overall weighs every suite "
        "alike).",
        "IQM: interquartile mean, the mean of the middle 50% of all run-cell scores.",
    ]
    if shown:
        notes.append(
            f"Intervals: rliable's stratified bootstrap (runs resampled within each cell), "
            f"{board.bootstrap.resamples} resamples; run-to-run variation only, where the Sum "
            "cells' intervals also resample instances."
        )
    if versus:
        notes.append(
            f"P(> {board.baseline}): the chance a run of the designer beats a run of "
            f"{board.baseline} on a random cell (ties count half; 0.5 = no difference); each "
            "side's runs resampled on their own."
        )
    if carries(ZERO_MARK, rows):
        notes.append(EVEN_LEGEND)
    return TextTable(
        title=ci_title("rliable aggregates over runs x cells: IQM and mean (%)", shown),
        columns=["designer", "rate", "runs", "cells", "IQM", "mean", *versus],
        rows=rows,
        text_columns=2,
        notes=notes,
        id="aggregates",
    )


def _chance(i: Improvement | None, is_baseline: bool) -> str:
    """`0.62 [0.48, 0.75]`, marked where the interval includes 0.5; bare when it is unknown."""
    if i is None:
        return "baseline" if is_baseline else "-"
    if i.low is None or i.high is None:
        return f"{i.probability:.2f}"
    mark = f" {ZERO_MARK}" if i.low <= 0.5 <= i.high else ""
    return f"{i.probability:.2f} [{i.low:.2f}, {i.high:.2f}]{mark}"


def _normalised(board: Board) -> TextTable:
    controls = board.controls
    assert controls is not None
    metrics = [m for m in board.metrics if any(n.metric == m for n in controls.normalised)]
    scores = {(n.designer, n.metric): n for n in controls.normalised}
    designers = list(dict.fromkeys(n.designer for n in controls.normalised))
    rows = [[d, *(_score(scores.get((d, m))) for m in metrics)] for d in designers]
    anchors = (controls.zero, controls.positive)
    why = [n.note for n in controls.normalised
           if n.note and n.note != ONE_SEED and n.designer not in anchors]  # fmt: skip
    shown = has_interval(controls.normalised)
    title = f"Controls: overall Sum normalised, {controls.zero} = 0, {controls.positive} = 1"
    intervals = [f"Intervals: the ratio of resampled differences from {controls.zero}, paired "
                 "by seed and instance where the seeds match, else from each designer's own "
                 "resamples."] if shown else []  # fmt: skip
    return TextTable(
        title=ci_title(title, shown),
        columns=["designer", *(board.rate(m).short for m in metrics)],
        rows=rows,
        notes=[
            f"(x - {controls.zero}) / ({controls.positive} - {controls.zero}) on the overall "
            f"Sum; {controls.positive} is the positive control (a fixed configuration matching "
            "the benchmarks' own mix).",
            *intervals,
            *dict.fromkeys(why),
        ],
        id="controls",
    )


def _score(n: NormalisedScore | None) -> str:
    if n is None:
        return NA
    if n.low is None or n.high is None:
        return f"{n.score:.2f}"
    return f"{n.score:.2f} [{n.low:.2f}, {n.high:.2f}]"


def _sensitivity(board: Board) -> TextTable:
    controls = board.controls
    assert controls is not None
    metrics: list[Metric] = [m for m in board.metrics if m in controls.sensitivity]
    first = controls.sensitivity[metrics[0]]
    pairing = "paired" if first.paired else "unpaired"
    rows = [[f"{controls.positive} - {controls.negative}", pairing,
             *(delta_text(controls.sensitivity[m]) for m in metrics)]]  # fmt: skip
    marked = f" ({ZERO_MARK})" if carries(ZERO_MARK, rows) else ""
    title = (f"Sensitivity: {controls.positive} minus {controls.negative}, overall Sum "
             "(percentage points)")  # fmt: skip
    return TextTable(
        title=ci_title(title, has_interval(controls.sensitivity[m] for m in metrics)),
        columns=["controls", "pairing", *(board.rate(m).short for m in metrics)],
        rows=rows,
        text_columns=2,
        notes=[
            f"The positive control ({controls.positive}: trained on the benchmarks' own mix) "
            f"minus the negative one ({controls.negative}): an interval that includes 0"
            f"{marked} means this budget cannot tell them apart, nor rank designers.",
        ],
        id="sensitivity",
    )


def _power(board: Board) -> TextTable:
    rows = [[board.rate(d.metric).label, str(d.seeds),
             f"{d.seed_sd:.2f}" if d.detectable is not None else NA,
             f"{d.instance_sd:.2f}", NA if d.detectable is None else f"{d.detectable:.1f}"]
            for d in board.power]  # fmt: skip
    first = board.power[0]
    why = [d.note for d in board.power if d.note]
    return TextTable(
        title="Power: the smallest difference between two designers this board could detect "
        "(points)",
        columns=["rate", "n seeds", "seed SD", "instance SE", "detectable"],
        rows=rows,
        notes=[
            f"detectable = (z_{1 - first.alpha / 2:g} + z_{first.power:g}) x sqrt(2 (seed SD^2 "
            "+ instance SE^2) / n), n = seeds per designer (the board's typical): the true "
            "difference the board's unpaired delta resolves at two-sided alpha "
            f"{first.alpha:g} with power {first.power:g} (normal quantiles: optimistic versus "
            "a t-test with few seeds).",
            "seed SD: run-to-run SD of the overall Sum, pooled within designers with 2+ seeds; "
            "instance SE: one run's overall Sum's instance-sampling standard error.",
            "`harness leaderboard power RUNS --delta D` says how many seeds a difference of D "
            "points needs.",
            *dict.fromkeys(why),
        ],
        id="power",
    )
