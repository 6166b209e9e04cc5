"""Boards over many runs: reading spread over processes with verdicts shared between runs, and
a bootstrap that resamples only the runs the seed level drew, from their exact distributions."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from leaderboards import load_runs
from leaderboards.bootstrap import binary_replicates, replicates, rng_for, seed_draws
from leaderboards.readers import PARALLEL_FROM, load_run

COPIES = 5


def test_many_runs_are_read_in_order_with_each_verdict_held_once(
    compare_root: Path, tmp_path: Path
) -> None:
    originals = sorted(p.parent for p in compare_root.glob("**/result.json"))
    for copy in range(COPIES):
        for n, original in enumerate(originals):
            shutil.copytree(original, tmp_path / f"copy-{copy}" / f"run-{n}")
    seen: list[tuple[int, int]] = []
    loaded = load_runs([tmp_path], on_progress=lambda done, total: seen.append((done, total)))
    assert len(loaded) == COPIES * len(originals) >= PARALLEL_FROM, "read by a pool of processes"
    assert [r.path for r in loaded] == sorted(r.path for r in loaded)
    assert seen[-1] == (len(loaded), len(loaded)) and len(seen) == len(loaded)
    for run in loaded:
        alone = load_run(run.path)
        assert run.record == alone.record, "sharing verdicts changes no value"
    first, again = loaded[0], loaded[len(originals)]  # the same run, copied twice
    for name, suite in first.record.suites.items():
        twin = again.record.suites[name].verdicts
        assert all(a is b for a, b in zip(suite.verdicts, twin, strict=True)), name


def _plain(runs: list[list[np.ndarray]], draws: np.ndarray, seed: int) -> np.ndarray:
    """The two-level bootstrap written out: every drawn run's strata resampled value by value."""
    rng = np.random.default_rng(seed)
    out = np.zeros(draws.shape[0])
    for b, row in enumerate(draws):
        out[b] = np.mean([np.mean([rng.choice(v, v.size).mean() for v in runs[i]]) for i in row])
    return out


def _strata(
    rng: np.random.Generator, runs: int, sizes: list[int], paired: bool
) -> list[list[np.ndarray]]:
    out = []
    for _ in range(runs):
        strata = []
        for n in sizes:
            values = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(float)
            if paired:
                values = values - (rng.random(n) < 0.4)
            strata.append(values)
        out.append(strata)
    return out


@pytest.mark.parametrize(("sizes", "paired"), [([30, 30, 30], False), ([30, 29, 31], False),
                                               ([30, 30, 30], True), ([20, 25], True)])  # fmt: skip
def test_the_resampled_statistics_follow_plain_resampling(sizes: list[int], paired: bool) -> None:
    rng = np.random.default_rng(7)
    runs = _strata(rng, 4, sizes, paired)
    draws = seed_draws(rng_for("test-seeds"), len(runs), 3000)
    fast = replicates(runs, draws, rng_for("test", *sizes, paired))
    plain = _plain(runs, draws, 11)
    assert fast.shape == (3000,)
    quantiles = [2.5, 25, 50, 75, 97.5]
    spread = float(np.std(plain))
    assert np.percentile(fast, quantiles) == pytest.approx(
        np.percentile(plain, quantiles), abs=0.15 * spread)  # fmt: skip
    assert np.mean(fast) == pytest.approx(np.mean(plain), abs=0.08 * spread)
    if not paired:  # 0/1 values given as counts resample alike
        ones = np.array([[int(v.sum()) for v in strata] for strata in runs])
        counted = binary_replicates(ones, np.array(sizes), draws, rng_for("test", *sizes))
        assert np.percentile(counted, quantiles) == pytest.approx(
            np.percentile(plain, quantiles), abs=0.15 * spread)  # fmt: skip


def test_a_run_the_seed_level_never_drew_costs_nothing_and_moves_nothing() -> None:
    rng = np.random.default_rng(3)
    runs = _strata(rng, 3, [40, 40], False)
    draws = np.zeros((500, 3), dtype=np.int64)  # only run 0 is ever drawn
    one = replicates(runs, draws, rng_for("only-0"))
    changed = [runs[0], [np.ones(40), np.ones(40)], [np.zeros(40), np.zeros(40)]]
    assert np.array_equal(one, replicates(changed, draws, rng_for("only-0")))
