"""The controls that bracket a board: can this budget tell designers apart at all?

Two built-in designers bracket every comparison: `harder` (the negative control, training on
what the paper warns against) and `matched` (the positive control, a fixed configuration
matching the benchmarks' own mix). With the fixed `random` configuration they give:

- **Normalised score**: per designer and metric, `(x - random) / (matched - random)` on the
  overall Sums, so random is 0 and matched 1. Its interval is the percentile interval of that
  ratio over resamples. Where the designer, random and matched ran the same seeds, numerator and
  denominator are the paired deltas against random (`leaderboards.deltas.paired_reps`: one seed
  draw of random's, shared by both, and instances resampled answer by answer; the rows' own
  where random is the baseline, `leaderboards.sums.Drawn`); otherwise they are differences of
  each designer's own resampled Sums (independent draws). Where matched does not beat random
  beyond its 95% interval, the scale's unit is noise: a score of -43 would only say that the
  denominator is near 0, so there are no scores, and a note says why (the sensitivity lines
  still tell what the budget separates). With one seed nothing
  has an interval: the scores are given, each with the one-seed note.
- **Sensitivity lines**: each control against random, the overall Sum's delta
  (`baseline_deltas`, paired by seed and instance where the two ran the same seeds, so the
  deltas' paired differences are reused where random is the baseline), per metric: matched -
  random (`Controls.positive_minus_zero`), which must lie above 0 beyond its 95% interval or
  this budget cannot see a good designer, and harder - random (`negative_minus_zero`), which
  must lie below 0 or it cannot see a bad one. The older matched - harder
  (`Controls.sensitivity`) is kept beside them: one more delta, and it says whether the
  controls are told apart at all even where random is missing.

A board with a control missing from its ranked runs says, in `Controls.note`, which, what it
therefore cannot show, and the preset that runs all three: "this board has no controls" where
it can draw no line against random (random is missing, or both matched and harder are; "no zero
control" where only random is). Where the board's task is one that `matched`
or `harder` does not serve, the note says so instead (`Task`-generic designers have no positive
or negative control yet).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from designers import designer_tasks
from leaderboards.board import Controls, Delta, NormalisedScore
from leaderboards.bootstrap import ONE_SEED, Floats, interval
from leaderboards.deltas import baseline_deltas, paired_reps
from leaderboards.groups import Group, overall_reps, pct
from leaderboards.metrics import Metric
from leaderboards.sums import Drawn, Replicates, Resampled
from tasks import serves

ZERO, POSITIVE, NEGATIVE = "random", "matched", "harder"
CONTROLS = (ZERO, POSITIVE, NEGATIVE)
LINES = ((POSITIVE, ZERO), (NEGATIVE, ZERO), (POSITIVE, NEGATIVE))
"""The sensitivity lines, in the order a board shows them: each control against random first."""
RUN_CONTROLS = "run `harness compare --preset controls` (random, matched and harder)"
DIGITS = 4


def board_controls(
    groups: Sequence[Group], drawn: Sequence[Drawn], suites: list[str], resamples: int
) -> Controls | None:
    """The controls of the ranked `groups` (board order; `drawn`: what each one's part
    resampled, in the same order); None when none is a designer."""
    named = {g.designer: (g, d) for g, d in zip(groups, drawn, strict=True)
             if g.kind == "designer"}  # fmt: skip
    if not named:
        return None
    designers = [g for g, _ in named.values()]
    task = designers[0].task.id
    unserved = [n for n in (POSITIVE, NEGATIVE) if not serves(designer_tasks(n), task)]
    if unserved:
        note = (f"no controls for task {task}: {' and '.join(unserved)} design for other "
                "tasks only")  # fmt: skip
        return Controls(zero=ZERO, positive=POSITIVE, negative=NEGATIVE, note=note)
    zero, one = (named[name][0] if name in named else None for name in (ZERO, POSITIVE))
    notes: list[str] = []
    normalised: list[NormalisedScore] = []
    scale = None
    if zero is not None and one is not None:
        scale = _Scale(zero, one, suites, {name: d.sums for name, (_, d) in named.items()},
                       _against_zero(designers, zero, one, named, suites, resamples))  # fmt: skip
        unclear: list[str] = []  # metrics whose scale is noise, with matched - random's interval
        for metric in one.metrics:
            if all(one.has(s, metric) for s in suites):
                normalised.extend(_scores(scale, designers, metric, notes, unclear))
        if unclear:
            notes.append(f"no normalised scores for {_rates(unclear)}: {POSITIVE} does not beat "
                         f"{ZERO} beyond its 95% interval ({'; '.join(unclear)} points), so the "
                         "scale has no length at this budget")  # fmt: skip
    against_zero = scale.against_zero if scale is not None else {}
    lines = {
        (a, b): _line(named, a, b, suites, resamples, against_zero.get(a) if b == ZERO else None)
        for a, b in LINES
        if a in named and b in named
    }
    missing = [(name, named[name][0] if name in named else None) for name in CONTROLS]
    if any(g is None for _, g in missing):
        notes.append(_absent(missing, scale is None, [a for a in LINES if a not in lines]))
    return Controls(zero=ZERO, positive=POSITIVE, negative=NEGATIVE,
                    normalised=tuple(normalised),
                    positive_minus_zero=lines.get((POSITIVE, ZERO), {}),
                    negative_minus_zero=lines.get((NEGATIVE, ZERO), {}),
                    sensitivity=lines.get((POSITIVE, NEGATIVE), {}),
                    note="; ".join(notes) or None)  # fmt: skip


def _line(
    named: Mapping[str, tuple[Group, Drawn]],
    first: str,
    second: str,
    suites: list[str],
    resamples: int,
    drawn: Replicates | None,
) -> dict[str, Delta]:
    """`first` minus `second`, the overall Sum's delta per metric (`baseline_deltas`): paired
    where they ran the same seeds, reusing the paired differences already drawn (the deltas'
    where `second` is the baseline, or the scores' against random)."""
    (one, above), (other, below) = named[first], named[second]
    known = above.paired.get(second, drawn)
    overall = baseline_deltas(one, other, above.sums, below.sums, suites, resamples, known).overall
    return {m: d for m in one.metrics if (d := overall.get(m)) is not None}


def _absent(
    controls: Sequence[tuple[str, Group | None]], unscaled: bool, lines: Sequence[tuple[str, str]]
) -> str:
    """What the board cannot show for want of which controls, and how to run them."""
    zero, one, neg = (g for _, g in controls)
    if zero is None or (one is None and neg is None):
        head = "this board has no controls" if one is None or neg is None else (
            "this board has no zero control")  # fmt: skip
    else:
        head = "this board lacks a control"
    cannot = ["normalised scores"] if unscaled else []
    if len(lines) == len(LINES):
        cannot.append("sensitivity lines")
    else:
        cannot.append(f"{' or '.join(f'{a} - {b}' for a, b in lines)} line")
    shows = " and ".join(f"no {what}" for what in cannot)
    return f"{head}: {_missing(*controls)}, so it shows {shows}; {RUN_CONTROLS}"


def _against_zero(
    designers: list[Group],
    zero: Group,
    one: Group,
    named: Mapping[str, tuple[Group, Drawn]],
    suites: list[str],
    resamples: int,
) -> dict[str, Replicates]:
    """The paired differences against random that the scores read: every designer's that ran
    random's seeds (2+), when matched did too (else no score is paired). The deltas' where
    random is the baseline, drawn here otherwise."""
    if len(zero.runs) < 2 or one.seeds != zero.seeds:
        return {}
    found = {}
    for g in designers:
        if g is not zero and g.seeds == zero.seeds:
            known = named[g.designer][1].paired.get(zero.designer)
            found[g.designer] = paired_reps(g, zero, suites, resamples) if known is None else known
    return found


@dataclass(frozen=True)
class _Scale:
    """What the normalised scores read: random (0), matched (1), every designer's Sums and
    the paired differences against random (`_against_zero`)."""

    zero: Group
    one: Group
    suites: list[str]
    sums: Mapping[str, Resampled]
    against_zero: Mapping[str, Replicates]

    def overall(self, g: Group, metric: Metric) -> float:
        return self.sums[g.designer].overall_mean(self.suites, metric)

    def differences(self, g: Group, metric: Metric) -> Floats | None:
        """Resampled overall `g` minus random: paired when their seeds match; None with one
        seed."""
        if len(g.runs) < 2 or len(self.zero.runs) < 2:
            return None
        if g.seeds == self.zero.seeds:
            return overall_reps(self.against_zero[g.designer], self.suites, metric)
        return self.independent(g, metric)

    def independent(self, g: Group, metric: Metric) -> Floats | None:
        """Resampled overall `g` minus random, each from its own resampled Sums."""
        mine = overall_reps(self.sums[g.designer].reps, self.suites, metric)
        theirs = overall_reps(self.sums[self.zero.designer].reps, self.suites, metric)
        return None if mine is None or theirs is None else mine - theirs

    def paired(self, g: Group) -> bool:
        return g.seeds == self.zero.seeds == self.one.seeds


def _rates(unclear: list[str]) -> str:
    """'valid and opt. SOC' from the fragments 'valid -0.8 to +1.5', ..."""
    names = [part.rsplit(" ", 3)[0] for part in unclear]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _missing(*controls: tuple[str, Group | None]) -> str:
    """'matched' is not among the ranked runs (or 'matched' and 'harder' are)."""
    names = [repr(name) for name, g in controls if g is None]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} {'is' if len(names) == 1 else 'are'} not among the ranked runs"


def _scores(
    scale: _Scale, designers: list[Group], metric: Metric, notes: list[str], unclear: list[str]
) -> list[NormalisedScore]:
    """Every designer's normalised `metric`; none (and a note) when matched does not beat random."""
    zero, one = scale.zero, scale.one
    low_end, high_end = scale.overall(zero, metric), scale.overall(one, metric)
    if high_end <= low_end:
        notes.append(f"no normalised {one.short(metric)} score: {POSITIVE} ({pct(high_end):.1f}) "
                     f"does not beat {ZERO} ({pct(low_end):.1f})")  # fmt: skip
        return []
    spread = scale.differences(one, metric)
    if spread is not None and (span := interval(spread))[0] <= 0:  # one seed: no interval
        unclear.append(f"{one.short(metric)} {pct(span[0]):+.1f} to {pct(span[1]):+.1f}")
        return []
    out = []
    for g in designers:
        score = (scale.overall(g, metric) - low_end) / (high_end - low_end)
        plain = NormalisedScore(designer=g.designer, metric=metric, score=round(score, DIGITS))
        if g is zero or g is one:
            out.append(plain.model_copy(update={"note": f"the scale's {0 if g is zero else 1}"}))
            continue
        parts = None if spread is None else _ratio_parts(scale, g, metric, spread)
        if parts is None:
            out.append(plain.model_copy(update={"note": ONE_SEED}))
        else:
            out.append(plain.model_copy(update=_ratio_interval(*parts)))
    return out


def _ratio_interval(numerator: Floats, denominator: Floats) -> dict[str, float | str]:
    """The percentile interval of the resampled ratio (or a note when it is unbounded).

    A resample where matched does not beat random (at most 2.5% of them, or there would be no
    interval) sends the ratio to +-infinity on the numerator's side, which is where it tends.
    """
    positive = denominator > 0
    ratio = np.where(positive, numerator / np.where(positive, denominator, 1.0),
                     np.copysign(np.inf, numerator))  # fmt: skip
    low, high = interval(ratio)
    if not (math.isfinite(low) and math.isfinite(high)):
        return {"note": f"no interval: the ratio is unbounded, as {POSITIVE} beats {ZERO} by "
                        "little"}  # fmt: skip
    return {"low": round(low, DIGITS), "high": round(high, DIGITS)}


def _ratio_parts(
    scale: _Scale, g: Group, metric: Metric, spread: Floats
) -> tuple[Floats, Floats] | None:
    """`g` minus random and matched minus random, drawn alike: paired when all three ran the
    same seeds (`spread`, matched's paired delta, is then the denominator), else from each
    one's own resampled Sums (random's draws shared by both); None where `g` has one seed."""
    if len(g.runs) < 2:
        return None
    numerator: Floats | None
    denominator: Floats | None
    if scale.paired(g):
        numerator, denominator = scale.differences(g, metric), spread
    else:
        numerator = scale.independent(g, metric)
        denominator = scale.independent(scale.one, metric)
    return None if numerator is None or denominator is None else (numerator, denominator)
