"""The training distribution shows at the benchmark level: 3/4/5-agent valid and optimal rates.

The issue asks that clearly different generator configurations give clearly different valid
*and* optimal rates on the 3/4/5-agent benchmarks. Two configurations differing only in
`wait_ratio` are trained from the same fresh policy on the same seeds:

- balanced: every size 3..10 with an equal share, hole_ratio 0.2, wait_ratio 0.5 (the
  benchmarks' average wait share);
- all-wait: the same sizes and holes with wait_ratio 1.0 -- every instance needs conflict
  resolution, the mix a conflict-chasing designer drifts to (the old `evidence` rules did).

All-wait training loses on both rates, and far more on the optimal one: its policy learns to
wait and detour where it need not, so even its valid answers are rarely optimal.

Measured (CPU learner, 2 threads, greedy answers on all 3150 instances of the three suites,
valid / optimal rate, balanced vs all-wait; `python -m tests.harness.test_training_distribution`;
fp32 with MKL pinned, bf16 emulated on an AVX2 CPU):

    precision  seed  balanced         all-wait         gaps (valid / optimal)
    fp32       0     0.302 / 0.271    0.103 / 0.030    0.199 / 0.242
    fp32       1     0.280 / 0.238    0.089 / 0.015    0.190 / 0.223
    fp32       2     0.294 / 0.209    0.235 / 0.097    0.059 / 0.112
    fp32       3     0.214 / 0.138    0.198 / 0.057    0.016 / 0.082
    bf16       0     0.183 / 0.117    0.093 / 0.017    0.090 / 0.100
    bf16       1     0.222 / 0.155    0.128 / 0.026    0.094 / 0.129
    bf16       2     0.280 / 0.244    0.180 / 0.046    0.100 / 0.198
    bf16       3     0.275 / 0.219    0.116 / 0.024    0.158 / 0.195

Two-seed gaps (valid / optimal): fp32 seeds 0+1 0.195 / 0.233, seeds 2+3 0.038 / 0.097; bf16
seeds 0+1 0.092 / 0.115, seeds 2+3 0.129 / 0.197. Optimal answers were 0.64-0.90 of the valid
ones after balanced training and 0.17-0.41 after all-wait training, on every seed. The valid-rate
effect is the weaker one at this budget: its margin is a claim of direction more than of size.

On one seed the valid-rate gap ranged from 0.016 to 0.199, and pinning MKL's kernels alone
(another float summation order, as another CPU has) moved seed 3's from 0.164 to 0.016: one
seed cannot carry a margin. The tests therefore train on two seeds (`SEEDS`) and pool their
answers, and assert about half the smallest two-seed gap measured over seed pairs and
precisions. It takes about a minute on 2 cores in fp32, about twice that in emulated bf16.

Small batches and a higher learning rate than the learner's defaults get the policy past its
first plateau within four short epochs; the size axis alone (small maps only vs balanced) was
measured too, and at this budget it does not separate reliably (the policy's BFS features
carry over across sizes), so it is not asserted here.
"""

from __future__ import annotations

import pytest

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.evaluate import validation_report
from mapf_env import EnvConfig, EvalReport, generate, load_suite
from mapf_env.report import RateCounts
from run_records import Precision

SETTINGS = CpuLearnerSettings(batch_size=32, lr=3e-3, group_size=4, threads=2)
SAMPLES = 1200
EPOCHS = 4
SEEDS = (0, 1)
SUITES = ("3agents", "4agents", "5agents")
CONFIGS = {
    "balanced": EnvConfig.uniform(hole_ratio=0.2, wait_ratio=0.5, samples=SAMPLES),
    "all_wait": EnvConfig.uniform(hole_ratio=0.2, wait_ratio=1.0, samples=SAMPLES),
}
VALID_GAP = 0.02
"""About half the smallest two-seed valid-rate gap measured (0.038: fp32, seeds 2 and 3)."""
OPTIMAL_GAP = 0.045
"""About half the smallest two-seed optimal-rate gap measured (0.097: fp32, seeds 2 and 3)."""


def train_and_score(config: EnvConfig, seed: int, precision: Precision) -> dict[str, EvalReport]:
    """Train a fresh policy on `config`'s data for `EPOCHS` epochs; greedy reports per suite."""
    data = generate(config, seed, workers=1).instances
    backend = CpuBackend(SETTINGS.model_copy(update={"precision": precision}))
    backend.initialise(seed)
    for epoch in range(EPOCHS):
        backend.train_round(data, epochs=1, seed=seed * 100 + epoch)
    return {
        name: validation_report(backend, [item.instance for item in load_suite(name).items], seed)
        for name in SUITES
    }


Scored = dict[str, list[dict[str, EvalReport]]]
"""Per configuration, per training seed, each suite's greedy report."""


def pooled(runs: list[dict[str, EvalReport]], suites: tuple[str, ...] = SUITES) -> RateCounts:
    """Valid and optimal counts over every instance of `suites`, over all the runs."""
    cells = [run[name].overall for run in runs for name in suites]
    return RateCounts(n=sum(c.n for c in cells), valid=sum(c.valid for c in cells),
                      optimal=sum(c.optimal for c in cells))  # fmt: skip


@pytest.fixture(scope="module")
def scored(learner_precision: Precision) -> Scored:
    return {
        name: [train_and_score(config, seed, learner_precision) for seed in SEEDS]
        for name, config in CONFIGS.items()
    }


def test_configurations_differ_in_valid_rate(scored: Scored) -> None:
    rates = {name: pooled(runs).valid_rate for name, runs in scored.items()}
    assert rates["balanced"] > rates["all_wait"] + VALID_GAP, rates


def test_all_wait_training_loses_on_optimal_rate(scored: Scored) -> None:
    rates = {name: pooled(runs).optimal_rate for name, runs in scored.items()}
    assert rates["balanced"] > rates["all_wait"] + OPTIMAL_GAP, rates
    # Not only fewer valid answers: a smaller share of them is optimal, on every agent count.
    for suite in SUITES:
        balanced = pooled(scored["balanced"], (suite,))
        all_wait = pooled(scored["all_wait"], (suite,))
        assert balanced.optimal * all_wait.valid > all_wait.optimal * balanced.valid, suite


def measure(seeds: list[int], precisions: list[Precision]) -> None:
    """Print the gaps the margins come from, per seed and precision, with timings."""
    import time

    for precision in precisions:
        for seed in seeds:
            started = time.perf_counter()
            rates = {n: pooled([train_and_score(c, seed, precision)]) for n, c in CONFIGS.items()}
            (bv, bo), (wv, wo) = ((r.valid_rate, r.optimal_rate) for r in rates.values())
            print(
                f"{precision} seed {seed}: {bv:.3f} / {bo:.3f}  vs  {wv:.3f} / {wo:.3f}   "
                f"gaps {bv - wv:.3f} / {bo - wo:.3f}  ({time.perf_counter() - started:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    import sys

    from tests.harness.measuring import seeds_and_precisions

    measure(*seeds_and_precisions(sys.argv[1:]))
