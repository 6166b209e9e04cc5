"""Speed of the CPU learner: a round at the paper's budget, a small round, a benchmark eval.

Three figures, each beside a reference measured in the same run, so the ratios hold across
machines even when the absolute seconds do not:

* one round at the paper's budget (4000 instances, n = 8, 3 epochs) from a fresh policy, in
  fp32, the default precision (target <= 25 s on 2 cores), against its target;
* a 1000-instance round (n = 8, 3 epochs; target <= 5 s) in fp32, against the same round with
  ``precision="bf16"``: the cost or gain of asking for bf16 (it pays only on CPUs with native
  bf16, avx512_bf16 or amx_bf16; elsewhere torch emulates it, and the header says which);
* the same fp32 round against itself with torch's own products (MKL) instead of the pinned
  OpenBLAS tiles that compute alike on every x86-64 CPU with AVX2 and any thread count
  (`harness.backends.cpu.products`): what that reproducibility costs;
* the learner's vendor-neutral kernels against the MKL ones that compute differently on Intel
  and AMD CPUs (`harness.backends.cpu.vendor_kernels`), on the same inputs: fused Adam against
  torch's default Adam (whose square root is MKL's), softmax against ``exp`` for the
  probabilities: what the same bits on every vendor's CPU cost;
* greedy evaluation of all 3,150 benchmark instances (3/4/5 agents; target <= 30 s), against
  the same rollout without vectorisation (one instance per rollout) on a small sample, per
  instance.

Training data is generated before the clocks start: generation is the testbed's cost, not the
learner's. Run alone: ``python benchmarks/bench_cpu_learner.py [--quick]``.

``--learners`` measures what the two learners learn instead of how fast: the masked policy
(``policy: mlp``) and the free one (``policy: mlp-free``, every failure type possible), each from
a fresh policy over the paper's budget (3 rounds of 4000 instances x 3 epochs; ``--rounds``,
``--samples``, ``--epochs`` change it), on the same data (`random_config(round)`). After every
round it prints the greedy validation valid and optimal rates and the failure mix (share of
answers per failing check, the evidence designers read), and at round 0 and after the last
round the mix of sampled answers too (what GRPO trains on).

Beside each wall-clock time the table gives the CPU time the process spent (all its threads),
and the load average is printed before and after: on a machine shared with other work the
wall times swing by tens of percent, while the CPU seconds show whether the work itself changed
(on an idle 2-core machine, wall time is below CPU time, as the matrix products use both cores).
"""

from __future__ import annotations

import argparse
import copy
import os
import resource
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

import torch
from bench_console import bench_console
from rich.table import Table

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.backends.cpu import backend as learner_backend
from harness.backends.cpu import grpo as learner_grpo
from harness.backends.cpu import policy as learner_policy
from harness.backends.policy_names import CPU_POLICIES
from harness.evaluate import validation_report
from mapf_env import EvalReport, Instance, generate, load_suite, random_config, verify
from mapf_env.report import FAILURE_TYPES
from run_records import Precision, current_machine, native_bf16
from tasks.mapf_frozenlake import MapfFrozenLake
from tasks.mapf_frozenlake.scoring import judge

BENCH_SUITES = ("3agents", "4agents", "5agents")
MAPF = MapfFrozenLake()


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of `fn()`."""
    started, cpu = time.perf_counter(), cpu_seconds()
    fn()
    return time.perf_counter() - started, cpu_seconds() - cpu


@contextmanager
def torch_products() -> Iterator[None]:
    """The learner's fp32 products by torch (MKL) instead of the pinned OpenBLAS tiles
    (`harness.backends.cpu.products`): the reference for what the pinning costs. MKL's branch
    is the process's (``MKL_CBWR``: COMPATIBLE as the learner pins it, the only branch MKL
    keeps alike on Intel and AMD; run with ``MKL_CBWR=AVX2`` for the fastest one on Intel)."""
    saved = learner_policy.in_fp32
    learner_policy.in_fp32 = lambda x, weight: False
    try:
        yield
    finally:
        learner_policy.in_fp32 = saved


KERNEL_REPEATS = 200
"""Calls of each kernel a kernel-cost row times (after one untimed call)."""


def kernel_costs(backend: CpuBackend) -> dict[str, tuple[float, float, str]]:
    """Seconds of the learner's vendor-neutral kernels against the MKL ones they replace
    (`harness.backends.cpu.vendor_kernels`), on the same inputs: `KERNEL_REPEATS` optimiser
    steps of the trained policy's parameters with its gradients set, fused Adam against
    torch's default; and as many probabilities of one update chunk's log-probabilities
    (`grpo.CHUNK_ROWS` x 5), softmax against ``exp``. A training round would not tell: the two
    compute other numbers, so their rounds play other episodes."""
    policy = copy.deepcopy(backend.policy)
    for p in policy.parameters():
        p.grad = torch.randn(p.shape, generator=torch.Generator().manual_seed(0)) * 1e-3
    logp = torch.log_softmax(torch.randn(learner_grpo.CHUNK_ROWS, 5), -1)

    def repeat(fn: Callable[[], object]) -> float:
        fn()
        return timed(lambda: [fn() for _ in range(KERNEL_REPEATS)])[0]

    fused = learner_backend.adam(policy, 1e-3)
    default = torch.optim.Adam(policy.parameters(), lr=1e-3)
    with torch.no_grad():
        return {
            f"Adam step x {KERNEL_REPEATS}": (
                repeat(fused.step),
                repeat(default.step),
                "default Adam (MKL's sqrt)",
            ),
            f"probabilities x {KERNEL_REPEATS}": (
                repeat(lambda: learner_policy.probabilities(logp)),
                repeat(logp.exp),
                "exp (MKL's)",
            ),
        }


def train_seconds(
    instances: tuple[Instance, ...], *, precision: Precision
) -> tuple[tuple[float, float], CpuBackend]:
    backend = CpuBackend(CpuLearnerSettings(precision=precision))
    seconds = timed(lambda: backend.train_round(instances, epochs=3, seed=0))
    return seconds, backend


def main(quick: bool = False) -> None:
    console = bench_console()
    big, small, sample = (1000, 250, 10) if quick else (4000, 1000, 40)
    paper = generate(random_config(0, samples=big), 0).instances
    round_small = generate(random_config(1, samples=small), 1).instances
    bench = [item.instance for name in BENCH_SUITES for item in load_suite(name).items]
    here = current_machine("bf16", torch.get_num_threads())
    console.print(
        f"bf16 {'native' if native_bf16() else 'emulated'} on {here.cpu_model} "
        f"({', '.join(here.cpu_flags)}); torch kernels {here.cpu_capability}, MKL branch "
        f"{here.mkl_branch}; instances {len(paper)}/{len(round_small)}"
    )

    load_before = os.getloadavg()[0]
    (t_paper, c_paper), trained = train_seconds(paper, precision="fp32")
    (t_small, c_small), _ = train_seconds(round_small, precision="fp32")
    (t_small16, c_small16), _ = train_seconds(round_small, precision="bf16")
    with torch_products():
        (t_mkl, c_mkl), _ = train_seconds(round_small, precision="fp32")
    kernels = kernel_costs(trained)
    answers: list[list[str]] = []
    t_eval, c_eval = timed(lambda: answers.extend(trained.respond(bench)))
    picks = bench[:: max(1, len(bench) // sample)][:sample]
    t_loop, _ = timed(lambda: [trained.respond([inst]) for inst in picks])
    valid = sum(verify(i, a[0]).valid for i, a in zip(bench, answers, strict=True)) / len(bench)

    table = Table(title="CPU learner (2-core targets)")
    for col in ("measure", "seconds", "cpu s", "target s", "reference", "ratio"):
        table.add_column(col)
    table.add_row(
        f"round {len(paper)} x 8 x 3, fresh",
        f"{t_paper:.1f}",
        f"{c_paper:.1f}",
        "25",
        "target",
        f"{t_paper / 25:.2f}x target",
    )
    table.add_row(
        f"round {len(round_small)} x 8 x 3, fp32",
        f"{t_small:.1f}",
        f"{c_small:.1f}",
        "5",
        f"bf16 {t_small16:.1f}s ({c_small16:.1f} cpu s)",
        f"bf16 takes {t_small16 / t_small:.2f}x the time ({c_small16 / c_small:.2f}x cpu)",
    )
    table.add_row(
        f"round {len(round_small)} x 8 x 3, fp32",
        f"{t_small:.1f}",
        f"{c_small:.1f}",
        "5",
        f"torch's products (MKL {here.mkl_branch}) {t_mkl:.1f}s ({c_mkl:.1f} cpu s)",
        f"pinned products take {t_small / t_mkl:.2f}x the time ({c_small / c_mkl:.2f}x cpu)",
    )
    for label, (ours, theirs, reference) in kernels.items():
        table.add_row(
            label, f"{ours:.2f}", "-", "-", f"{reference} {theirs:.2f}s",
            f"vendor-neutral takes {ours / theirs:.2f}x the time",
        )  # fmt: skip
    per_loop = t_loop / len(picks)
    table.add_row(
        f"eval {len(bench)} benchmark, greedy",
        f"{t_eval:.1f}",
        f"{c_eval:.1f}",
        "30",
        f"unvectorised {per_loop * 1000:.1f} ms/inst",
        f"{per_loop * len(bench) / t_eval:.1f}x faster",
    )
    console.print(table)
    console.print(f"benchmark greedy valid rate after one paper round: {valid:.3f}")
    console.print(
        f"load average (1 min) {load_before:.2f} before, {os.getloadavg()[0]:.2f} after, "
        f"on {os.cpu_count()} cores"
    )


SAMPLED = 4
"""Sampled answers per validation instance for the sampled failure mix."""


def sampled_report(backend: CpuBackend, instances: Sequence[Instance]) -> EvalReport:
    """`SAMPLED` sampled answers per instance, folded like the greedy validation report."""
    answers = backend.respond(instances, samples=SAMPLED, greedy=False, seed=1)
    return EvalReport.from_verdicts(
        (inst.size, judge(inst, text))
        for inst, texts in zip(instances, answers, strict=True)
        for text in texts
    )


def report_row(label: str, report: EvalReport, seconds: str) -> list[str]:
    """A table row: valid, optimal (SOC, and makespan where the suite has it), failure shares."""
    rates = report.overall
    span = rates.optimal_makespan_rate
    row = [label, f"{rates.valid_rate:.1%}", f"{rates.optimal_rate:.1%}"]
    row.append("-" if span is None else f"{span:.1%}")
    row += [f"{report.failures[kind] / max(rates.n, 1):.1%}" for kind in FAILURE_TYPES]
    return [*row, seconds]


def learners(rounds: int, samples: int, epochs: int, seed: int) -> None:
    """Learning curve and failure mix of each CPU learner (see the module docstring)."""
    console = bench_console()
    validation = MAPF.suite("validation").items
    asked = [item.item for item in validation]
    data = [generate(random_config(r, samples=samples), r).instances for r in range(rounds)]
    console.print(
        f"{rounds} rounds x {samples} instances x {epochs} epochs, seed {seed}, fp32, "
        f"{torch.get_num_threads()} threads; validation: {len(validation)} instances, greedy "
        f"answers (sampled: {SAMPLED} per instance)"
    )
    for policy, actions in CPU_POLICIES.items():
        backend = CpuBackend(CpuLearnerSettings(actions=actions, seed=seed))
        table = Table(title=f"policy {policy} (actions: {actions})")
        for col in ("round", "valid", "opt. SOC", "opt. makespan", *FAILURE_TYPES, "train s"):
            table.add_column(col)
        table.add_row(*report_row("0", validation_report(MAPF, backend, validation, seed), "-"))
        table.add_row(*report_row("0 sampled", sampled_report(backend, asked), "-"))
        for r, instances in enumerate(data, start=1):
            wall, _ = timed(partial(backend.train_round, instances, epochs=epochs, seed=r))
            report = validation_report(MAPF, backend, validation, seed)
            table.add_row(*report_row(str(r), report, f"{wall:.0f}"))
        table.add_row(*report_row(f"{rounds} sampled", sampled_report(backend, asked), "-"))
        console.print(table)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="smaller speed figures")
    parser.add_argument("--learners", action="store_true", help="learning curves, not speed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=4000, help="instances per round")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.learners:
        learners(args.rounds, args.samples, args.epochs, args.seed)
    else:
        main(quick=args.quick)
