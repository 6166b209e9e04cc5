"""How small a difference a board can detect, and how many seeds a difference needs.

**Paired** (the board's figure wherever it can be had). The board's deltas pair two designers
that ran the same seeds: one seed draw for both, and within each seed the per-instance
differences resampled (`leaderboards.deltas`). Their noise is the spread of the *difference*,
not of each designer: a seed that trains everything well lifts both. So for the designers that
ran the zero control's seeds (`random`, 2+ of them), per designer the per-seed difference d_i =
its run's overall Sum minus random's run of the same seed, and `seed_sd` is the SD of d_i
within each designer, pooled over those designers (centred per designer: a designer that is
steadily 20 points above random adds no spread). The instance term is the instance-sampling
variance of one seed's difference: both answered the same benchmark instances, so it is the
variance of the per-instance differences (-1, 0 or 1) per stratum over its count, weighted as
the Sum weighs strata -- not twice one run's, which would count the instances' shared
difficulty that pairing cancels -- averaged over those designers' seeds. The mean of k paired
differences then has variance (seed_sd^2 + instance_sd^2) / k, and the smallest true difference
the paired delta resolves at two-sided level alpha with the given power is

    (z_{1 - alpha/2} + z_{power}) * sqrt((seed_sd^2 + instance_sd^2) / k)

with k the zero control's seed count. The figure speaks for pairs on the same seeds (against
random or each other: under the same noise their difference spreads alike).

**Unpaired** (the fallback, said so in `DetectableDifference.note`, where no designer shares
random's seeds or random is absent; also given beside a paired figure as
`unpaired_detectable`). Each run's Sum varies with its seed (`seed_sd`: the observed run-to-run
SD of designers' overall Sums, pooled within designers over those with 2+ seeds) and with the
benchmark's instances (`instance_sd`: the instance-sampling standard error of one run's overall
Sum). The unpaired delta has variance 2 (seed_sd^2 + instance_sd^2) / k, so

    (z_{1 - alpha/2} + z_{power}) * sqrt(2 (seed_sd^2 + instance_sd^2) / k)

with k the board's typical seeds per designer.

In both, the two terms do not overlap: every run is scored on the same benchmark instances, so
the observed spread over seeds holds no instance-sampling error, which asks how the Sum (or the
difference) would move on another draw of instances. The instance term is divided by k as the
board's bootstrap does (each seed's instances resampled on their own); where a designer's
advantage on an instance is the same on every seed, another draw of instances would move all
seeds alike and the true term is larger (up to k times): like the normal quantiles (with few
seeds a t-test asks for more), that makes the figure optimistic.

The instance terms are analytic, not bootstrapped: a Sum (or a difference of two) is the mean
over suites of the mean over strata of per-stratum means of n values, so its variance is the
sum over strata of w^2 var / n, w = 1 / (suites x the suite's strata), var the values' plug-in
variance (p (1 - p) for a 0/1 rate) -- the variance the instance bootstrap draws from.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist, mean, median_low

import numpy as np

from leaderboards.board import Answers, DetectableDifference
from leaderboards.bootstrap import Strata, stratified_mean
from leaderboards.compat import check_compatible
from leaderboards.controls import ZERO
from leaderboards.deltas import instance_differences
from leaderboards.errors import LeaderboardError
from leaderboards.groups import Group, make_groups, ranked_groups
from leaderboards.metrics import Metric
from leaderboards.readers import LoadedRun
from leaderboards.seeds import seed_count, seed_ids

ALPHA = 0.05
POWER = 0.8
ONE_SEED_ONLY = (
    "every designer has one seed: no run-to-run variance to size a comparison from; run 2+ "
    "seeds per designer"
)
DIGITS = 4


def z_sum(alpha: float = ALPHA, power: float = POWER) -> float:
    """z_{1 - alpha/2} + z_{power}: the standard errors a true difference must span."""
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError(f"alpha ({alpha}) and power ({power}) must lie strictly between 0 and 1")
    normal = NormalDist()
    return normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)


def detectable_difference(
    seed_sd: float,
    instance_sd: float,
    seeds: int,
    alpha: float = ALPHA,
    power: float = POWER,
    paired: bool = False,
) -> float:
    """The smallest true difference two designers with `seeds` seeds each are told apart by;
    `paired`: the SDs are of their per-seed difference (same seeds), else each designer's own."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, not {seeds}")
    return z_sum(alpha, power) * math.sqrt(_sides(paired) * (seed_sd**2 + instance_sd**2) / seeds)


def seeds_needed(
    delta: float,
    seed_sd: float,
    instance_sd: float,
    alpha: float = ALPHA,
    power: float = POWER,
    paired: bool = False,
) -> int:
    """The fewest seeds per designer (at least 2, for a run-to-run variance) resolving `delta`;
    `paired` as in `detectable_difference` (then the seeds are shared by both)."""
    if delta <= 0:
        raise ValueError(f"the difference must be positive, not {delta}")
    variance = _sides(paired) * (seed_sd**2 + instance_sd**2)
    k = max(2, math.ceil((z_sum(alpha, power) / delta) ** 2 * variance))
    while (
        k > 2 and detectable_difference(seed_sd, instance_sd, k - 1, alpha, power, paired) <= delta
    ):
        k -= 1  # the ceiling of a rounded quotient can overshoot by one
    return k


def _sides(paired: bool) -> int:
    """Independent noises in a difference: one (the paired difference's own), or each side's."""
    return 1 if paired else 2


@dataclass(frozen=True)
class Spread:
    """What the runs show of one metric's noise (points)."""

    seed_sd: float | None
    """Pooled within designers (paired: of the differences); None when nothing has 2+ seeds."""
    instance_sd: float
    pooled: int
    """Designers the SD is pooled over."""
    seeds: int
    """Paired: the zero control's seeds; unpaired: the board's typical (the lower median)."""
    paired: bool = False


def run_sums(g: Group, suites: list[str], metric: Metric) -> list[float]:
    """Each run's overall Sum (points): the mean over suites of the suite's Sum."""
    return [100 * mean(g.arrays[s][i].sum_of(metric) for s in suites) for i in range(len(g.runs))]


def sum_variance(rates: Sequence[Sequence[float]], counts: Sequence[Sequence[int]]) -> float:
    """The instance-sampling variance of an overall Sum (0-1 scale) from per-size `rates`
    and instance `counts`, one sequence per suite."""
    return _weighted(
        [[p * (1 - p) / n for p, n in zip(ps, ns, strict=True)]
         for ps, ns in zip(rates, counts, strict=True)]
    )  # fmt: skip


def strata_variance(per_suite: Sequence[Strata]) -> float:
    """The instance-sampling variance of an overall mean of stratified values (0/1 rates, or
    -1/0/1 differences of two runs), one run's strata per suite: plug-in variance over count."""
    return _weighted([[float(np.var(v)) / v.size for v in strata] for strata in per_suite])


def _weighted(per_suite: Sequence[Sequence[float]]) -> float:
    """sum of w^2 x (each stratum's variance of its mean), w = 1 / (suites x its strata)."""
    return sum(sum(vs) / (len(per_suite) * len(vs)) ** 2 for vs in per_suite)


def _run_variance(g: Group, i: int, suites: list[str], metric: Metric) -> float:
    rates, counts = [], []
    for s in suites:
        strata = g.arrays[s][i].stratum_values(metric)
        rates.append([float(v.mean()) for v in strata])
        counts.append([v.size for v in strata])
    return sum_variance(rates, counts)


def spread(groups: Sequence[Group], suites: list[str], metric: Metric) -> Spread:
    """The pooled run-to-run SD and the mean instance SE of `groups` (ranked designers)."""
    squares, dof = 0.0, 0
    for g in groups:
        if len(g.runs) > 1:
            squares, dof = _pool(run_sums(g, suites, metric), squares, dof)
    variances = [_run_variance(g, i, suites, metric) for g in groups for i in range(len(g.runs))]
    return Spread(
        seed_sd=math.sqrt(squares / dof) if dof else None,
        instance_sd=100 * math.sqrt(mean(variances)),
        pooled=sum(len(g.runs) > 1 for g in groups),
        seeds=median_low(len(g.runs) for g in groups),
    )


def paired_spread(
    groups: Sequence[Group], zero: Group, suites: list[str], metric: Metric
) -> Spread | None:
    """The pooled SD of the per-seed differences against `zero` and the mean instance SE of
    one seed's difference, over the `groups` that ran `zero`'s seeds; None when none did (or
    `zero` has one seed: no difference has a spread)."""
    pairs = [g for g in groups if g is not zero and g.seeds == zero.seeds]
    if len(zero.runs) < 2 or not pairs:
        return None
    squares, dof = 0.0, 0
    variances: list[float] = []
    for g in pairs:
        per_suite = [instance_differences(g, zero, s, metric) for s in suites]
        per_seed = list(zip(*per_suite, strict=True))  # each seed's strata, one per suite
        differences = [100 * mean(stratified_mean(strata) for strata in seed) for seed in per_seed]
        squares, dof = _pool(differences, squares, dof)
        variances.extend(strata_variance(seed) for seed in per_seed)
    return Spread(seed_sd=math.sqrt(squares / dof), instance_sd=100 * math.sqrt(mean(variances)),
                  pooled=len(pairs), seeds=len(zero.runs), paired=True)  # fmt: skip


def _pool(values: Sequence[float], squares: float, dof: int) -> tuple[float, int]:
    """`squares` and `dof` with one designer's `values` added, centred on their own mean."""
    centre = mean(values)
    return squares + sum((x - centre) ** 2 for x in values), dof + len(values) - 1


def board_power(
    groups: Sequence[Group], suites: list[str], alpha: float = ALPHA, power: float = POWER
) -> tuple[DetectableDifference, ...]:
    """Per metric the overall column gives: the detectable difference among ranked designers,
    paired against the zero control where designers ran its seeds, else unpaired."""
    designers = [g for g in groups if g.kind == "designer"]
    if not designers:
        return ()
    zero = next((g for g in designers if g.designer == ZERO), None)
    out = []
    for metric in designers[0].metrics:
        if not all(g.has(s, metric) for g in designers for s in suites):
            continue
        unpaired = spread(designers, suites, metric)
        paired = None if zero is None else paired_spread(designers, zero, suites, metric)
        if paired is None:
            why = ONE_SEED_ONLY if unpaired.seed_sd is None else _why_unpaired(zero)
            out.append(_figure(metric, unpaired, alpha, power, note=why))
            continue
        also = None
        if unpaired.seed_sd is not None:  # at the paired figure's seeds, for those on others
            also = round(detectable_difference(unpaired.seed_sd, unpaired.instance_sd,
                                               paired.seeds, alpha, power), DIGITS)  # fmt: skip
        out.append(_figure(metric, paired, alpha, power, against=ZERO, unpaired=also))
    return tuple(out)


def _figure(
    metric: Metric,
    seen: Spread,
    alpha: float,
    power: float,
    note: str | None = None,
    against: str | None = None,
    unpaired: float | None = None,
) -> DetectableDifference:
    detectable = None if seen.seed_sd is None else round(detectable_difference(
        seen.seed_sd, seen.instance_sd, seen.seeds, alpha, power, seen.paired), DIGITS)  # fmt: skip
    return DetectableDifference(
        metric=metric, seeds=seen.seeds, seed_sd=round(seen.seed_sd or 0.0, DIGITS),
        instance_sd=round(seen.instance_sd, DIGITS), alpha=alpha, power=power,
        detectable=detectable, pooled=seen.pooled, note=note, paired=seen.paired,
        against=against, unpaired_detectable=unpaired,
    )  # fmt: skip


def _why_unpaired(zero: Group | None) -> str:
    """Why no paired figure: no zero control, one seed of it, or nobody on its seeds."""
    if zero is None:
        return f"unpaired: {ZERO!r} is not among the ranked runs, so nothing is paired against it"
    if len(zero.runs) < 2:
        return f"unpaired: {ZERO} has one seed, so no paired difference has a spread"
    return (f"unpaired: no designer ran {ZERO}'s seeds ({seed_ids(zero.seeds)}); run them on "
            "its seeds for the paired figure")  # fmt: skip


def runs_power(
    runs: Sequence[LoadedRun],
    answers: Answers = "greedy",
    alpha: float = ALPHA,
    power: float = POWER,
    pool_machines: bool = False,
) -> tuple[DetectableDifference, ...]:
    """`board_power` of `runs` (checked compatible) without building the rest of the board.

    Raises `LeaderboardError` when no designer has 2+ seeds (nothing to size a comparison from).
    """
    check_compatible(runs, pool_machines=pool_machines)
    groups = ranked_groups(make_groups(runs, answers, resamples=1))
    found = board_power(groups, list(runs[0].record.suites), alpha, power)
    if not found:
        raise LeaderboardError("the runs hold no ranked designer: power compares designers")
    if all(d.detectable is None for d in found):
        raise LeaderboardError(ONE_SEED_ONLY)
    return found


def power_lines(found: Sequence[DetectableDifference], delta: float) -> list[str]:
    """What `harness leaderboard power` prints: per metric the noise (of a paired difference
    where it can be had), what the runs detect now, and the seeds per designer a difference of
    `delta` points needs."""
    lines = []
    for d in found:
        pooled = d.pooled or 0
        if d.paired:
            lines.append(f"{d.metric}: paired against {d.against}: per-seed difference SD "
                         f"{d.seed_sd:.2f} points (pooled over {_designers(pooled)} on "
                         f"{d.against}'s seeds), instance SE of a difference {d.instance_sd:.2f} "
                         "points")  # fmt: skip
        else:
            lines.append(f"{d.metric}: run-to-run SD {d.seed_sd:.2f} points (pooled over "
                         f"{_designers(pooled)} with 2+ seeds), instance SE {d.instance_sd:.2f} "
                         "points")  # fmt: skip
        if d.detectable is None:
            lines.append(f"  {d.note}")
            continue
        if d.note:
            lines.append(f"  {d.note}")
        also = "" if d.unpaired_detectable is None else (
            f"; unpaired, on other seeds: {d.unpaired_detectable:.2f}")  # fmt: skip
        lines.append(f"  with {seed_count(d.seeds)} per designer: detects {d.detectable:.2f} "
                     f"points (two-sided alpha {d.alpha:g}, power {d.power:g}){also}")  # fmt: skip
        needed = seeds_needed(delta, d.seed_sd, d.instance_sd, d.alpha, d.power, d.paired)
        shared = f" (paired: {d.against} on the same seeds)" if d.paired else ""
        lines.append(f"  a difference of {delta:g} points needs {seed_count(needed)} per "
                     f"designer{shared}")  # fmt: skip
    lines.append("Normal quantiles: with few seeds a t-test asks for a larger difference.")
    return lines


def _designers(n: int) -> str:
    return f"{n} designer{'' if n == 1 else 's'}"
