"""Each designer minus the baseline, per suite and overall, with the interval and zero mark.

Paired (same seeds): one seed draw for both, per-instance differences resampled within each
(seed, suite, map size). Unpaired (seeds differ): the difference of the two designers' own
resampled Sums. See `leaderboards.bootstrap`. Each rate the suite can give gets its delta (valid,
makespan-optimal, SOC-optimal); one it cannot give is None, as in the cells.

The paired seed draw belongs to the baseline (and its seed count), not to the pair: every
designer compared with one baseline sees the same resampled seeds, so differences against it
can be combined resample by resample (the controls' normalised score divides two of them), and
adding a designer still moves no one else's interval. `baseline_deltas` returns the paired
differences it drew with the cells, so the controls reuse the deltas' instead of drawing them
again.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean

from leaderboards.board import Delta, DeltaCell
from leaderboards.bootstrap import (
    ONE_SEED,
    Floats,
    Strata,
    interval,
    replicates,
    rng_for,
    seed_draws,
)
from leaderboards.errors import LeaderboardError
from leaderboards.groups import Group, overall_reps, pct
from leaderboards.metrics import Metric
from leaderboards.sums import Replicates, Resampled


@dataclass(frozen=True)
class BaselineDeltas:
    """A designer minus the baseline: per suite, overall, and what the intervals came from."""

    per_suite: dict[str, DeltaCell]
    overall: DeltaCell
    paired: Replicates | None
    """The resampled per-suite paired differences (same seeds, 2+ of them); None otherwise."""


def baseline_deltas(
    g: Group,
    base: Group,
    sums: Resampled,
    base_sums: Resampled,
    suites: list[str],
    resamples: int,
    paired_drawn: Replicates | None = None,
) -> BaselineDeltas:
    """The deltas of `g` against `base` from their Sums (`leaderboards.sums`); `paired_drawn`:
    the pair's paired differences where already drawn (what `paired_reps` would return)."""
    paired = g.seeds == base.seeds
    seeds = len(g.seeds) if paired else min(len(g.seeds), len(base.seeds))
    reps: Replicates = {}
    if seeds > 1 and paired:
        reps = paired_reps(g, base, suites, resamples) if paired_drawn is None else paired_drawn
    elif seeds > 1:
        reps = _unpaired_reps(sums, base_sums)
    per_suite = {}
    for suite in suites:
        cell: dict[str, Delta | None] = {
            m: _delta(sums.means[suite, m] - base_sums.means[suite, m], reps.get((suite, m)),
                      seeds, paired)
            if g.has(suite, m)
            else None
            for m in g.metrics
        }  # fmt: skip
        per_suite[suite] = DeltaCell.model_validate(cell)
    overall: dict[str, Delta | None] = {
        m: _delta(
            mean(sums.means[s, m] - base_sums.means[s, m] for s in suites),
            overall_reps(reps, suites, m),
            seeds,
            paired,
        )
        if all(g.has(s, m) for s in suites)
        else None
        for m in g.metrics
    }
    return BaselineDeltas(per_suite, DeltaCell.model_validate(overall),
                          reps if paired and seeds > 1 else None)  # fmt: skip


def paired_reps(g: Group, base: Group, suites: list[str], resamples: int) -> Replicates:
    """Resampled per-suite differences `g` minus `base` (same seeds): one seed draw of the
    baseline's for both, each seed's instances answer by answer."""
    draws = seed_draws(rng_for("paired-seeds", base.kind, base.designer, len(base.runs)),
                       len(g.runs), resamples)  # fmt: skip
    reps: Replicates = {}
    for suite in suites:
        for metric in g.metrics:
            if not g.has(suite, metric):
                continue
            strata = instance_differences(g, base, suite, metric)
            rng = rng_for("paired", g.kind, g.designer, base.designer, suite, metric)
            reps[suite, metric] = replicates(strata, draws, rng)
    return reps


def instance_differences(g: Group, base: Group, suite: str, metric: Metric) -> list[Strata]:
    """Per seed (the two groups' runs in seed order: same seeds), `g`'s answer minus `base`'s
    on each instance of `suite` (-1, 0 or 1), split by stratum: what a paired comparison
    resamples (`paired_reps`) and what its instance variance is of (`leaderboards.power`).

    Raises `LeaderboardError` when the two answered different instances (nothing to pair).
    """
    found: list[Strata] = []
    for mine, theirs in zip(g.arrays[suite], base.arrays[suite], strict=True):
        if mine.layout.ids != theirs.layout.ids:
            raise LeaderboardError(
                f"{g.designer} and {base.designer} answered different instances of {suite}: "
                "cannot pair them"
            )
        diff = mine.values(metric) - theirs.values(metric)
        found.append(mine.strata(diff, mine.mask(None)))
    return found


def _unpaired_reps(sums: Resampled, base_sums: Resampled) -> Replicates:
    return {key: reps - base_sums.reps[key] for key, reps in sums.reps.items()
            if key in base_sums.reps}  # fmt: skip


def _delta(value: float, reps: Floats | None, seeds: int, paired: bool) -> Delta:
    if reps is None:
        return Delta(mean=pct(value), seeds=seeds, paired=paired, note=ONE_SEED)
    low, high = interval(reps)
    return Delta(
        mean=pct(value),
        low=pct(low),
        high=pct(high),
        seeds=seeds,
        paired=paired,
        includes_zero=bool(low <= 0 <= high),
    )
