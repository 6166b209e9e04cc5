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
optimal rate, balanced vs all-wait; `python -m tests.harness.test_training_distribution`; on an
Intel Xeon with AVX-512 and AMX, fp32 learner fingerprint 0b35eaf604c61408; bf16 native (AMX),
and bf16 with oneDNN held to AVX2 (``ONEDNN_MAX_CPU_ISA=AVX2``), the path of a CPU without
native bf16, which reproduced an AMD EPYC's earlier bf16 figures to the third digit):

    precision     seed  balanced         all-wait         gaps (valid / optimal)
    fp32          0     0.297 / 0.247    0.213 / 0.070    0.084 / 0.177
    fp32          1     0.124 / 0.050    0.079 / 0.026    0.045 / 0.024
    fp32          2     0.278 / 0.246    0.156 / 0.035    0.122 / 0.211
    fp32          3     0.235 / 0.164    0.117 / 0.028    0.118 / 0.136
    fp32          4     0.281 / 0.233    0.112 / 0.022    0.169 / 0.211
    fp32          5     0.312 / 0.271    0.135 / 0.029    0.177 / 0.242
    bf16 native   0     0.258 / 0.181    0.118 / 0.027    0.140 / 0.154
    bf16 native   1     0.275 / 0.231    0.100 / 0.024    0.174 / 0.207
    bf16 native   2     0.277 / 0.175    0.185 / 0.057    0.092 / 0.119
    bf16 native   3     0.278 / 0.231    0.138 / 0.038    0.140 / 0.193
    bf16 native   4     0.294 / 0.270    0.217 / 0.072    0.077 / 0.198
    bf16 native   5     0.306 / 0.253    0.242 / 0.113    0.064 / 0.140
    bf16 AVX2     0     0.296 / 0.214    0.249 / 0.084    0.047 / 0.129
    bf16 AVX2     1     0.159 / 0.108    0.135 / 0.034    0.024 / 0.074
    bf16 AVX2     2     0.231 / 0.128    0.079 / 0.019    0.151 / 0.110
    bf16 AVX2     3     0.262 / 0.206    0.100 / 0.023    0.162 / 0.183

On one seed the valid-rate gap ranges from 0.024 to 0.177, and a machine that sums in another
order moves it like another seed would: with the learner's products unpinned, an Intel and an
AMD CPU gave gaps 1.5 points apart, enough to fail a two-seed test. So
the tests pool four seeds (`SEEDS`): the four-seed gaps are valid 0.092 (fp32), 0.137 (bf16
native), 0.096 (bf16 AVX2) and optimal 0.137, 0.168, 0.124. Each threshold is about a third
of the smallest of its three: the effect clears it by at least 6 (valid) and 8 (optimal)
points, four times the spread seen between machines. fp32 computes the same bits on every
x86-64 CPU with AVX2 (`harness.backends.cpu.products`), so there the margin is against seeds
alone; bf16 differs between CPUs with and without native bf16, which is why both were measured.
Optimal answers were 0.40-0.92 of the valid ones after balanced training and 0.20-0.47 after
all-wait training, and on every seed and setup the balanced share was the higher (by 0.07 at
the least: fp32 seed 1). It takes about two minutes on 2 cores in each
precision.

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
VALID_GAP = 0.03
"""About a third of the smallest four-seed valid-rate gap measured (0.092: fp32)."""
OPTIMAL_GAP = 0.04
"""About a third of the smallest four-seed optimal-rate gap measured (0.124: bf16 AVX2)."""


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
