"""The training distribution shows at the benchmark level: 3/4/5-agent valid and optimal rates.

The issue asks that clearly different generator configurations give clearly different valid
*and* optimal rates on the 3/4/5-agent benchmarks. Two configurations differing only in
`wait_ratio` are trained from the same fresh policy on the same seeds:

- balanced: every size 3..10 with an equal share, hole_ratio 0.2, wait_ratio 0.5 (the
  benchmarks' average wait share);
- all-wait: the same sizes and holes with wait_ratio 1.0 -- every instance needs conflict
  resolution, the mix a conflict-chasing designer drifts to.

All-wait training loses on both rates, and far more on the optimal one: its policy learns to
wait and detour where it need not, so even its valid answers are rarely optimal.

Measured (CPU learner, greedy answers on all 3150 instances of the three suites, valid /
optimal rate, balanced vs all-wait; `python -m tests.harness.test_training_distribution`; fp32
learner fingerprint db74825b55b7edcc, which every x86-64 CPU with AVX2 computes; bf16 native on
an AMD EPYC with avx512_bf16, and bf16 with oneDNN held to AVX2 (``ONEDNN_MAX_CPU_ISA=AVX2``),
the path of a CPU without native bf16):

    precision     seed  balanced         all-wait         gaps (valid / optimal)
    fp32          0     0.286 / 0.225    0.202 / 0.052    0.084 / 0.173
    fp32          1     0.249 / 0.182    0.137 / 0.028    0.111 / 0.154
    fp32          2     0.279 / 0.164    0.060 / 0.013    0.219 / 0.151
    fp32          3     0.306 / 0.269    0.133 / 0.030    0.174 / 0.239
    fp32          4     0.272 / 0.156    0.117 / 0.022    0.155 / 0.134
    fp32          5     0.294 / 0.230    0.220 / 0.049    0.074 / 0.181
    bf16 native   0     0.251 / 0.177    0.230 / 0.105    0.021 / 0.071
    bf16 native   1     0.327 / 0.284    0.181 / 0.050    0.146 / 0.234
    bf16 native   2     0.212 / 0.159    0.206 / 0.061    0.006 / 0.098
    bf16 native   3     0.284 / 0.247    0.154 / 0.057    0.130 / 0.189
    bf16 native   4     0.306 / 0.259    0.221 / 0.069    0.085 / 0.191
    bf16 native   5     0.319 / 0.287    0.096 / 0.021    0.223 / 0.266
    bf16 AVX2     0     0.297 / 0.248    0.232 / 0.102    0.065 / 0.146
    bf16 AVX2     1     0.282 / 0.203    0.087 / 0.017    0.195 / 0.186
    bf16 AVX2     2     0.236 / 0.185    0.074 / 0.014    0.162 / 0.171
    bf16 AVX2     3     0.304 / 0.244    0.086 / 0.022    0.218 / 0.223

On one seed the valid-rate gap ranges from 0.006 to 0.223, and a CPU that computes bf16
otherwise moves it as another seed would: on seed 0 the two bf16 setups differ by 4.4 points.
So the tests pool four seeds (`SEEDS`): the four-seed gaps are valid 0.147 (fp32), 0.076 (bf16
native), 0.160 (bf16 AVX2) and optimal 0.179, 0.148, 0.182. Each threshold is about a third of
the smallest of its three: the effect clears it by at least 5 (valid) and 9 (optimal) points.
fp32 computes the same bits on every x86-64 CPU with AVX2 (`harness.backends.cpu.products`,
`harness.backends.cpu.vendor_kernels`), so there the margin is against seeds alone; bf16
differs between CPUs with and without native bf16, which is why both were measured.
Optimal answers were 0.57-0.90 of the valid ones after balanced training and 0.19-0.46 after
all-wait training, and on every seed and setup the balanced share was the higher (by 0.25 at
the least: bf16 native seed 0). It takes about two minutes on 2 cores in each precision.

Small batches and a higher learning rate than the learner's defaults get the policy past its
first plateau within four short epochs; the size axis alone (small maps only vs balanced) was
measured too, and at this budget it does not separate reliably (the policy's BFS features
carry over across sizes), so it is not asserted here.
"""

from __future__ import annotations

import pytest

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.evaluate import validation_report
from mapf_env import EnvConfig, EvalReport, generate
from mapf_env.report import RateCounts
from run_records import Precision
from tasks.mapf_frozenlake import MapfFrozenLake

pytestmark = pytest.mark.learning

SETTINGS = CpuLearnerSettings(batch_size=32, lr=3e-3, group_size=4, threads=2)
SAMPLES = 1200
EPOCHS = 4
SEEDS = (0, 1, 2, 3)
SUITES = ("3agents", "4agents", "5agents")
MAPF = MapfFrozenLake()
CONFIGS = {
    "balanced": EnvConfig.uniform(hole_ratio=0.2, wait_ratio=0.5, samples=SAMPLES),
    "all_wait": EnvConfig.uniform(hole_ratio=0.2, wait_ratio=1.0, samples=SAMPLES),
}
VALID_GAP = 0.025
"""About a third of the smallest four-seed valid-rate gap measured (0.076: bf16 native)."""
OPTIMAL_GAP = 0.05
"""About a third of the smallest four-seed optimal-rate gap measured (0.148: bf16 native)."""


def train_and_score(config: EnvConfig, seed: int, precision: Precision) -> dict[str, EvalReport]:
    """Train a fresh policy on `config`'s data for `EPOCHS` epochs; greedy reports per suite."""
    data = generate(config, seed, workers=1).instances
    backend = CpuBackend(SETTINGS.model_copy(update={"precision": precision}))
    backend.initialise(seed)
    for epoch in range(EPOCHS):
        backend.train_round(data, epochs=1, seed=seed * 100 + epoch)
    return {name: validation_report(MAPF, backend, MAPF.suite(name).items, seed) for name in SUITES}


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
