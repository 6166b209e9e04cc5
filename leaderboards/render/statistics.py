"""The tables of the board's statistics beyond the Sum: rliable's aggregates with P(improvement),
the controls (normalised scores, the sensitivity lines) and the detectable difference.

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
    ZERO_LEGEND,
    ZERO_MARK,
    carries,
    ci_title,
    delta_text,
    estimate_text,
    has_interval,
)
from leaderboards.render.sensitivity import sensitivity_lines, verdict
from leaderboards.render.text_table import TextTable

EVEN_LEGEND = f"{ZERO_MARK} the 95% interval includes 0.5: no clear difference from the baseline"


def statistics_tables(board: Board) -> list[TextTable]:
    """Aggregates, controls (normalised scores, sensitivity lines) and power, each where it has
    rows."""
    tables = []
    if board.aggregates:
        tables.append(_aggregates(board))
    controls = board.controls
    if controls is not None and controls.normalised:
        tables.append(_normalised(board))
    if controls is not None and sensitivity_lines(controls):
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
    lines = sensitivity_lines(controls)
    metrics: list[Metric] = [m for m in board.metrics if any(m in ln.deltas for ln in lines)]
    rows = []
    for line in lines:
        first = next(iter(line.deltas.values()))
        rows.append([line.label, "paired" if first.paired else "unpaired",
                     *(delta_text(line.deltas.get(m)) for m in metrics)])  # fmt: skip
    shown = has_interval(d for line in lines for d in line.deltas.values())
    notes = [f"{line.label}: {verdict(line, metrics, lambda m: board.rate(m).short)}."
             for line in lines]  # fmt: skip
    notes.append(
        f"The positive control ({controls.positive}: trained on the benchmarks' own mix) and "
        f"the negative one ({controls.negative}: every round larger, holier, more conflicted) "
        f"against {controls.zero}, paired by seed and instance where they ran the same seeds; "
        f"{controls.positive} - {controls.negative}, where shown, says only whether the two "
        "controls are told apart."
    )
    if carries(ZERO_MARK, rows):
        notes.append(ZERO_LEGEND)
    title = f"Sensitivity: {', '.join(ln.label for ln in lines)}, overall Sum (percentage points)"
    return TextTable(
        title=ci_title(title, shown),
        columns=["controls", "pairing", *(board.rate(m).short for m in metrics)],
        rows=rows,
        text_columns=2,
        notes=notes,
        id="sensitivity",
    )


def _power(board: Board) -> TextTable:
    paired = [d for d in board.power if d.paired]
    unpaired = [d for d in board.power if not d.paired]
    also = ["unpaired"] if paired else []
    rows = [[board.rate(d.metric).label, f"paired vs {d.against}" if d.paired else "unpaired",
             str(d.seeds), f"{d.seed_sd:.2f}" if d.detectable is not None else NA,
             f"{d.instance_sd:.2f}", NA if d.detectable is None else f"{d.detectable:.1f}",
             *([NA if d.unpaired_detectable is None else f"{d.unpaired_detectable:.1f}"]
               if paired else [])]
            for d in board.power]  # fmt: skip
    first = board.power[0]
    z = f"(z_{1 - first.alpha / 2:g} + z_{first.power:g})"
    level = f"at two-sided alpha {first.alpha:g} with power {first.power:g}"
    notes = []
    if paired:
        d = paired[0]
        notes += [
            f"paired: detectable = {z} x sqrt((seed SD^2 + instance SE^2) / n), n = "
            f"{d.against}'s seeds (shared by the paired designers): the true difference the "
            f"board's paired delta resolves {level}; seed SD: the SD of the per-seed difference "
            f"(a designer's run Sum minus {d.against}'s of the same seed), pooled over the "
            f"{d.pooled} designers on {d.against}'s seeds; instance SE: the instance-sampling "
            "standard error of one seed's difference, from the per-instance differences.",
            f"unpaired: {z} x sqrt(2 (SD^2 + SE^2) / n) from the run-to-run SD of the overall "
            "Sum (pooled within designers) and one run's instance SE: what a comparison of "
            "designers on different seeds resolves.",
        ]
    if unpaired:
        notes += [
            f"detectable = {z} x sqrt(2 (seed SD^2 + instance SE^2) / n), n = seeds per "
            "designer (the board's typical): the true difference the board's unpaired delta "
            f"resolves {level}.",
            "seed SD: run-to-run SD of the overall Sum, pooled within designers with 2+ seeds; "
            "instance SE: one run's overall Sum's instance-sampling standard error.",
        ]
    notes += [
        "Normal quantiles: optimistic versus a t-test with few seeds.",
        "`harness leaderboard power RUNS --delta D` says how many seeds a difference of D "
        "points needs.",
        *dict.fromkeys(d.note for d in board.power if d.note),
    ]
    return TextTable(
        title="Power: the smallest difference between two designers this board could detect "
        "(points)",
        columns=["rate", "pairing", "n seeds", "seed SD", "instance SE", "detectable", *also],
        rows=rows,
        text_columns=2,
        notes=notes,
        id="power",
    )
