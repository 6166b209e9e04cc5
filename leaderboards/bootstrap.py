"""Confidence intervals: a two-level bootstrap over seeds, then instances.

A designer's score varies with the seed of its run (training noise, the random round 0) and
with which benchmark instances happen to be in the suite. The interval covers both. Per
designer, with B resamples (2,000 by default) and a 95% percentile interval:

1. **Seeds.** Draw k seeds with replacement from the designer's k seeds. The draw is made once
   per resample and shared by every suite, cut and metric of that designer, so the overall
   aggregate (the mean of the suites' Sums) sees the same seeds in every suite.
2. **Instances.** For each drawn seed -- each draw on its own, so a seed drawn twice gets two
   independent resamples -- and each suite, resample that run's benchmark instances with
   replacement *within each map size* (stratified: every size keeps its instance count, as the
   benchmark fixes it).
3. **Statistic.** Per drawn seed, the Sum: the mean over map sizes of the resampled per-size
   rate (the paper's "Sum"); then the mean over the k drawn seeds. A detail cut (one size, one
   wait subset, one hole ratio) does the same on the cut's instances only.
4. **Interval.** The 2.5th and 97.5th percentiles of the B resampled statistics.

**Deltas against a baseline.** When the designer and the baseline ran the same seeds, the
difference is *paired*: one seed draw serves both, and within a drawn seed every instance is
resampled together with the baseline's answer to the same instance (both ran the same
benchmark), i.e. the bootstrap resamples per-instance differences. When their seeds differ it is
*unpaired*: the difference of the two designers' independent resamples. An interval that
includes 0 is marked on the board.

**One seed.** Seed-to-seed variation cannot be estimated from one seed, so no interval is given
(`Estimate.note` = "n/a (1 seed)"; for a paired delta, one common seed). With two or three
seeds the seed level has few distinct draws and the interval is rough: use more seeds to
publish.

**Exact, and only what is drawn.** Resampling n values with replacement matters only through
how often each distinct value is drawn, which is multinomial(n, observed shares): a resampled
stratum total has an exact distribution (binomial for 0/1 values), and a run's resampled Sum, a
sum of independent stratum totals, the convolution of theirs (`sum_distributions`), computed
once per run and cell. Only the runs the seed level drew are resampled, each draw on its own: a
run drawn c times in all gets c Sums from one multinomial over that distribution, dealt to its
draws in random order (`drawn_totals`) -- the same distribution as c separate resamples of its
instances, at a cost that grows with runs rather than with runs x seeds x instances.

**Reproducible.** Random numbers come from
`numpy.random.default_rng` seeded with `BOOTSTRAP_SEED` and a stable hash of what is being
resampled (designer, suite, cut, metric): a board rebuilt from the same runs is identical, and
adding a designer does not move another designer's interval.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

BOOTSTRAP_SEED = 2606_17682
RESAMPLES = 2000
CONFIDENCE = 0.95
ONE_SEED = "n/a (1 seed)"
METHOD = (
    "two-level percentile bootstrap: resample seeds, then instances within each "
    "(seed, suite, map size); statistic = mean over drawn seeds of the mean over sizes of the "
    "per-size rate; deltas paired by seed and instance when seeds match"
)

Floats = NDArray[np.float64]
Strata = Sequence[Floats]
"""One run's values in one cut: an array of 0/1 (or -1/0/1 differences) per map size."""


def rng_for(*key: object) -> np.random.Generator:
    """A generator seeded from `BOOTSTRAP_SEED` and a stable hash of `key`."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in key).encode()).digest()
    return np.random.default_rng([BOOTSTRAP_SEED, int.from_bytes(digest[:8], "little")])


def seed_draws(rng: np.random.Generator, seeds: int, resamples: int) -> NDArray[np.int64]:
    """(resamples, seeds) indices of the seeds drawn with replacement."""
    return rng.integers(seeds, size=(resamples, seeds))


def stratified_mean(strata: Strata) -> float:
    """The mean over strata (map sizes) of the stratum mean: one run's Sum."""
    return float(np.mean([values.mean() for values in strata]))


def _log_factorials(n: int) -> Floats:
    return np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))))


def binomial_pmf(ones: NDArray[np.int64], n: int) -> Floats:
    """(runs, n + 1): per run, P(a resample of its n values holds t ones), t = 0..n.

    A resample of n values of which `ones` are 1 holds Binomial(n, ones / n) ones."""
    p = np.asarray(ones, dtype=np.float64)[:, np.newaxis] / n
    t = np.arange(n + 1, dtype=np.float64)
    log_fact = _log_factorials(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pmf = (
            (log_fact[n] - log_fact - log_fact[::-1])[np.newaxis]
            + np.where(t > 0, t * np.log(p), 0.0)
            + np.where(t < n, (n - t) * np.log1p(-p), 0.0)
        )
    return np.asarray(np.exp(log_pmf), dtype=np.float64)


def drawn_totals(
    pmf: Floats, support: Floats, draws: NDArray[np.int64], rng: np.random.Generator
) -> Floats:
    """A resampled total for every draw: `draws` (any shape) index the rows of `pmf`, each run's
    distribution over its row of `support` (runs, L).

    A run drawn c times needs c independent totals; how often each total comes up among them
    is multinomial(c, its pmf), so that is drawn (one call per run, not one variate per draw)
    and the c totals are dealt to the run's draws in random order."""
    flat = draws.ravel()
    order, drawn = _dealing_order(draws, pmf.shape[0])
    dealt = []
    for run, times in enumerate(drawn.tolist()):
        if times == 0:
            continue
        weights = np.clip(pmf[run], 0.0, None)
        counts = rng.multinomial(times, weights / weights.sum())
        values = np.repeat(support[run], counts)
        rng.shuffle(values)
        dealt.append(values)
    out = np.empty(flat.size)
    out[order] = np.concatenate(dealt)
    return out.reshape(draws.shape)


_last_order: list[tuple[NDArray[np.int64], NDArray[np.intp], NDArray[np.int64]]] = []


def _dealing_order(
    draws: NDArray[np.int64], runs: int
) -> tuple[NDArray[np.intp], NDArray[np.int64]]:
    """The draws' positions grouped by run, and how often each run was drawn. Every cell of a
    designer is resampled under the same seed draws, so the last draws' order is kept."""
    if _last_order and _last_order[0][0] is draws:
        return _last_order[0][1], _last_order[0][2]
    flat = draws.ravel()
    order, drawn = np.argsort(flat, kind="stable"), np.bincount(flat, minlength=runs)
    _last_order[:] = [(draws, order, drawn)]
    return order, drawn


def total_distribution(
    values: Floats, low: int | None = None, high: int | None = None
) -> tuple[Floats, Floats]:
    """(support, pmf) of the total of `values` resampled with replacement, on the lattice of
    n x low .. n x high (by default the values' own least and greatest).

    The values are whole numbers (0/1 rates and their -1/0/1 paired differences), so a total
    lies on a lattice and its distribution is the n-fold convolution of the values' shares,
    taken exactly (to float rounding) through the discrete Fourier transform."""
    rounded = np.rint(values)
    if not np.array_equal(rounded, values):
        raise ValueError("the bootstrap resamples whole-number values (0/1 rates, differences)")
    low = int(rounded.min()) if low is None else low
    high = int(rounded.max()) if high is None else high
    n = int(values.size)
    shares = np.bincount((rounded - low).astype(np.int64), minlength=high - low + 1) / n
    width = n * (high - low) + 1
    length = 1 << (width - 1).bit_length()  # a power of two: fast transforms, no wrap
    pmf = np.fft.irfft(_power(np.fft.rfft(shares, length), n), length)[:width]
    return low * n + np.arange(width, dtype=np.float64), np.clip(pmf, 0.0, None)


def replicates(
    runs: Sequence[Strata], draws: NDArray[np.int64], rng: np.random.Generator
) -> Floats:
    """B resampled statistics: per resample, the mean over drawn seeds of their resampled Sum.

    `runs` are the seeds' strata in the order `draws` indexes them. Only the drawn runs are
    resampled, each draw on its own, from the exact distribution of the run's resampled Sum
    (`sum_distributions`, `drawn_totals`)."""
    sizes = {values.size for strata in runs for values in strata}
    if len(sizes) == 1 and len({len(strata) for strata in runs}) == 1:
        every = np.stack([np.stack(strata) for strata in runs])  # (runs, strata, n)
        rounded = np.rint(every)
        if np.array_equal(rounded, every):
            n, low = sizes.pop(), int(rounded.min())
            span = int(rounded.max()) - low + 1
            at = (rounded - low).astype(np.int64)
            shares = np.stack([(at == v).sum(axis=-1) for v in range(span)], axis=-1) / n
            support, pmf = sum_distributions(shares, n, n * low, power=n)
            return _mean_of_draws(drawn_totals(pmf, support, draws, rng))
    total = np.zeros(draws.shape)
    for position in range(max(len(strata) for strata in runs)):
        tables = [
            total_distribution(strata[position]) if position < len(strata) else None
            for strata in runs
        ]
        width = max(len(t[0]) for t in tables if t is not None)
        support, pmf = np.zeros((len(runs), width)), np.zeros((len(runs), width))
        pmf[:, 0] = 1.0  # a run without this stratum adds 0
        for i, (strata, found) in enumerate(zip(runs, tables, strict=True)):
            if found is not None:
                values, probabilities = found
                support[i, : values.size] = values / strata[position].size / len(strata)
                pmf[i] = 0.0
                pmf[i, : values.size] = probabilities
        total += drawn_totals(pmf, support, draws, rng)
    return _mean_of_draws(total)


def binary_replicates(
    ones: NDArray[np.int64], sizes: NDArray[np.int64], draws: NDArray[np.int64],
    rng: np.random.Generator,
) -> Floats:  # fmt: skip
    """`replicates` of 0/1 values given by their counts: `ones` (runs, strata) of `sizes`
    (strata,) values each."""
    if np.all(sizes == sizes[0]):
        n = int(sizes[0])
        totals = binomial_pmf(ones.ravel(), n).reshape(*ones.shape, n + 1)
        support, pmf = sum_distributions(totals, n, 0)
        return _mean_of_draws(drawn_totals(pmf, support, draws, rng))
    runs = [[np.repeat([1.0, 0.0], [o, n - o]) for o, n in zip(row, sizes.tolist(), strict=True)]
            for row in ones.tolist()]  # fmt: skip
    return replicates(runs, draws, rng)


def sum_distributions(totals: Floats, n: int, low: int, *, power: int = 1) -> tuple[Floats, Floats]:
    """(support, pmf), each (runs, W): the exact distribution of each run's resampled Sum.

    `totals` (runs, strata, L) is, per stratum of n values, the distribution of its resampled
    total over low, low + 1, ...; a run's total is the convolution of its strata's, and its Sum
    that total over n x strata: taken at once through the discrete Fourier transform (exact to
    float rounding; the transform is long enough that nothing wraps round). With `power` n,
    `totals` are the shares of the values themselves (the distribution of one draw), and each
    stratum's total is their n-fold convolution."""
    runs, strata, span = totals.shape
    width = strata * power * (span - 1) + 1
    support = (low * strata + np.arange(width, dtype=np.float64)) / (n * strata)
    if strata == 1 and power == 1:
        return np.broadcast_to(support, (runs, width)), np.asarray(totals[:, 0], np.float64)
    length = 1 << (width - 1).bit_length()  # a power of two: fast transforms
    spectrum = np.prod(_power(np.fft.rfft(totals, length, axis=-1), power), axis=1)
    pmf = np.clip(np.fft.irfft(spectrum, length, axis=-1)[:, :width], 0.0, None)
    return np.broadcast_to(support, (runs, width)), np.asarray(pmf, dtype=np.float64)


def _power(z: NDArray[np.complex128], n: int) -> NDArray[np.complex128]:
    """`z ** n` by repeated squaring: numpy's complex power goes through log and exp."""
    result = np.ones_like(z)
    while n:
        if n & 1:
            result = result * z
        n >>= 1
        if n:
            z = z * z
    return result


def _mean_of_draws(totals: Floats) -> Floats:
    return np.asarray(totals.mean(axis=1), dtype=np.float64)


def interval(reps: Floats, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of the resampled statistics."""
    low, high = intervals(reps, confidence)
    return float(low), float(high)


def intervals(reps: Floats, confidence: float = CONFIDENCE) -> tuple[Floats, Floats]:
    """Percentile intervals along the first axis (the resamples): one per remaining entry."""
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(reps, [tail, 100 - tail], axis=0)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
