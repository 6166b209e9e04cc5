"""How small a difference a board can detect, and how many seeds a difference needs.

Two designers with k seeds each are compared by the difference of their mean overall Sums.
Each run's Sum varies with its seed (training noise: `seed_sd`, the observed run-to-run SD of
designers' overall Sums, pooled within designers over those with 2+ seeds) and with the
benchmark's instances (`instance_sd`: the instance-sampling standard error of one run's overall
Sum). The board's unpaired delta -- its two-level bootstrap resamples seeds, then instances
within each -- has variance 2 (seed_sd^2 + instance_sd^2) / k, so the smallest true difference it
resolves at two-sided level alpha with the given power is

    (z_{1 - alpha/2} + z_{power}) * sqrt(2 (seed_sd^2 + instance_sd^2) / k)

with normal quantiles (`statistics.NormalDist`). The two terms do not overlap: every run is
scored on the same benchmark instances, so the observed run-to-run spread holds no
instance-sampling error, which asks how the Sum would move on another draw of instances. With
few seeds the variance is itself estimated from a handful of runs, and a t-test would ask for a
larger difference: the figure is optimistic there. Paired comparisons (same seeds, answers
instance by instance) are tighter than this.

`instance_sd` is analytic, not bootstrapped: a run's overall Sum is the mean over suites of the
mean over map sizes of per-size rates p (n instances each), so its variance is the sum over
cells of w^2 p (1 - p) / n, w = 1 / (suites x the suite's sizes) -- the plug-in variance the
instance bootstrap draws from -- averaged over the runs of the ranked designers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist, mean, median_low

from leaderboards.board import Answers, DetectableDifference
from leaderboards.compat import check_compatible
from leaderboards.errors import LeaderboardError
from leaderboards.groups import Group, make_groups, ranked_groups
from leaderboards.metrics import Metric
from leaderboards.readers import LoadedRun
from leaderboards.seeds import seed_count

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
    seed_sd: float, instance_sd: float, seeds: int, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The smallest true difference two designers with `seeds` seeds each are told apart by."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, not {seeds}")
    return z_sum(alpha, power) * math.sqrt(2 * (seed_sd**2 + instance_sd**2) / seeds)


def seeds_needed(
    delta: float, seed_sd: float, instance_sd: float, alpha: float = ALPHA, power: float = POWER
) -> int:
    """The fewest seeds per designer (at least 2, for a run-to-run variance) resolving `delta`."""
    if delta <= 0:
        raise ValueError(f"the difference must be positive, not {delta}")
    k = max(2, math.ceil(2 * (z_sum(alpha, power) / delta) ** 2 * (seed_sd**2 + instance_sd**2)))
    while k > 2 and detectable_difference(seed_sd, instance_sd, k - 1, alpha, power) <= delta:
        k -= 1  # the ceiling of a rounded quotient can overshoot by one
    return k


@dataclass(frozen=True)
class Spread:
    """What the runs show of one metric's noise (points)."""

    seed_sd: float | None
    """Pooled within designers; None when no designer has 2+ seeds."""
    instance_sd: float
    pooled: int
    """Designers the SD is pooled over."""
    seeds: int
    """The board's typical seeds per designer (the lower median)."""


def run_sums(g: Group, suites: list[str], metric: Metric) -> list[float]:
    """Each run's overall Sum (points): the mean over suites of the suite's Sum."""
    return [100 * mean(g.arrays[s][i].sum_of(metric) for s in suites) for i in range(len(g.runs))]


def sum_variance(rates: Sequence[Sequence[float]], counts: Sequence[Sequence[int]]) -> float:
    """The instance-sampling variance of an overall Sum (0-1 scale) from per-size `rates`
    and instance `counts`, one sequence per suite."""
    return sum(
        sum(p * (1 - p) / n for p, n in zip(ps, ns, strict=True)) / (len(rates) * len(ps)) ** 2
        for ps, ns in zip(rates, counts, strict=True)
    )


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
            sums = run_sums(g, suites, metric)
            centre = mean(sums)
            squares += sum((x - centre) ** 2 for x in sums)
            dof += len(sums) - 1
    variances = [_run_variance(g, i, suites, metric) for g in groups for i in range(len(g.runs))]
    return Spread(
        seed_sd=math.sqrt(squares / dof) if dof else None,
        instance_sd=100 * math.sqrt(mean(variances)),
        pooled=sum(len(g.runs) > 1 for g in groups),
        seeds=median_low(len(g.runs) for g in groups),
    )


def board_power(
    groups: Sequence[Group], suites: list[str], alpha: float = ALPHA, power: float = POWER
) -> tuple[DetectableDifference, ...]:
    """Per metric the overall column gives: the detectable difference among ranked designers."""
    designers = [g for g in groups if g.kind == "designer"]
    if not designers:
        return ()
    out = []
    for metric in designers[0].metrics:
        if not all(g.has(s, metric) for g in designers for s in suites):
            continue
        seen = spread(designers, suites, metric)
        detectable = None if seen.seed_sd is None else round(
            detectable_difference(seen.seed_sd, seen.instance_sd, seen.seeds, alpha, power), DIGITS
        )  # fmt: skip
        out.append(
            DetectableDifference(
                metric=metric, seeds=seen.seeds, seed_sd=round(seen.seed_sd or 0.0, DIGITS),
                instance_sd=round(seen.instance_sd, DIGITS), alpha=alpha, power=power,
                detectable=detectable, pooled=seen.pooled,
                note=ONE_SEED_ONLY if seen.seed_sd is None else None,
            )
        )  # fmt: skip
    return tuple(out)


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
    """What `harness leaderboard power` prints: per metric the noise, what the runs detect now,
    and the seeds per designer a difference of `delta` points needs."""
    lines = []
    for d in found:
        lines.append(f"{d.metric}: run-to-run SD {d.seed_sd:.2f} points (pooled over "
                     f"{d.pooled} designers with 2+ seeds), instance SE {d.instance_sd:.2f} "
                     "points")  # fmt: skip
        if d.detectable is None:
            lines.append(f"  {d.note}")
            continue
        lines.append(f"  with {seed_count(d.seeds)} per designer: detects {d.detectable:.2f} "
                     f"points (two-sided alpha {d.alpha:g}, power {d.power:g})")  # fmt: skip
        needed = seeds_needed(delta, d.seed_sd, d.instance_sd, d.alpha, d.power)
        lines.append(f"  a difference of {delta:g} points needs {seed_count(needed)} per designer")
    lines.append("Normal quantiles: with few seeds a t-test asks for a larger difference.")
    return lines
