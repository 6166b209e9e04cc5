"""The learner's fingerprint: a checksum of what a fixed, tiny training computes here.

Two machines that print the same fingerprint computed the same bits for the same seed through
every operation a run uses (building the policy, rollouts with sampled and greedy actions, the
reward, the GRPO update, Adam), so their runs may share a board; two that print different ones
did not, and a board keeps their runs apart (`leaderboards.compat`). It is computed, not
inferred from CPU flags or versions, so it also catches what no flag names.

The computation: a fresh policy (the free learner, whose writing head and hole moves use every
kind of operation the masked one does and more) from seed 0, one GRPO step on 16 instances of
the shipped validation suite (two of each size) with 8 sampled answers each, then greedy
answers to the same 16. It hashes the trained weights and the answers' text. It runs in the
precision and on the threads of the run; in fp32 its result does not depend on the thread count
(`harness.backends.cpu.products`), which `tests/harness/test_cpu_fingerprint.py` checks. About
a tenth of a second on 2 cores (a second with the first imports); computed once per process,
precision and thread count.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import cache
from typing import Protocol

import torch

from harness.backends.cpu import openblas
from harness.backends.cpu.settings import CpuLearnerSettings
from mapf_env import Instance, load_suite
from run_records import MachineRecord, Precision, current_machine

DIGITS = 16
"""Hex digits kept (64 bits): two computations that differ share a fingerprint with odds of
1 in 2**64."""

PER_SIZE = 2
"""Validation instances of each size the fixed computation trains and answers on."""


def fingerprint_instances() -> list[Instance]:
    """`PER_SIZE` instances of each size of the shipped validation suite, in suite order."""
    taken: dict[int, int] = {}
    out = []
    for item in load_suite("validation").items:
        size = item.instance.size
        if taken.get(size, 0) < PER_SIZE:
            taken[size] = taken.get(size, 0) + 1
            out.append(item.instance)
    return out


class Learner(Protocol):
    """What the fixed computation asks of the CPU learner (`CpuBackend`, which passes its own
    class in: this module cannot import the backend that records its result)."""

    @property
    def policy(self) -> torch.nn.Module: ...

    def train_round(self, instances: Sequence[Instance], *, epochs: int, seed: int) -> object: ...

    def respond(
        self, instances: Sequence[Instance], *, samples: int, greedy: bool, seed: int
    ) -> list[list[str]]: ...


@cache
def learner_fingerprint(
    learner: Callable[[CpuLearnerSettings], Learner], precision: Precision, threads: int
) -> str:
    """The fingerprint of `learner` (the CPU backend's class) computing in `precision` on
    `threads` torch threads in this process (fp32 gives the same for any `threads`; bf16 need
    not)."""
    instances = fingerprint_instances()
    settings = CpuLearnerSettings(
        precision=precision, actions="free", batch_size=len(instances), seed=0, threads=threads
    )
    before = torch.get_num_threads()
    try:
        with torch.random.fork_rng():
            backend = learner(settings)
            backend.train_round(instances, epochs=1, seed=0)
            answers = backend.respond(instances, samples=1, greedy=True, seed=0)
    finally:
        torch.set_num_threads(before)
    digest = hashlib.sha256()
    for name, tensor in sorted(backend.policy.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().to(torch.float64).numpy().tobytes())
    for texts in answers:
        digest.update("\n".join(texts).encode())
    return digest.hexdigest()[:DIGITS]


def learner_machine(
    learner: Callable[[CpuLearnerSettings], Learner], precision: Precision, threads: int
) -> MachineRecord:
    """This process's machine record for `learner` in `precision` on `threads`: what ran, what
    computed its fp32 products, and its fingerprint."""
    return current_machine(
        precision, threads,
        products=openblas.describe() if precision == "fp32" else None,
        fingerprint=learner_fingerprint(learner, precision, threads),
    )  # fmt: skip
