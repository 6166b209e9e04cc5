"""What the CPU learner computes here, in a few lines to compare between CPUs.

    python tests/harness/cross_cpu_probe.py
    qemu-x86_64 -cpu Haswell-v4 .venv/bin/python tests/harness/cross_cpu_probe.py

Prints the fp32 fingerprint (the free policy), then, for the masked policy, a digest of the
weights and of the greedy answers to `PER_SIZE` validation instances of each size after a
short training: two rounds of 64 generated instances, each round's configuration drawn afresh.
`test_cross_cpu.py` runs it natively and on emulated CPUs and holds the lines equal.
"""

from __future__ import annotations

import hashlib

import torch

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from harness.backends.cpu.fingerprint import learner_fingerprint
from mapf_env import SIZES, generate, load_suite, random_config

SAMPLES = 64
PER_SIZE = 10


def main() -> None:
    print("fingerprint", learner_fingerprint(CpuBackend, "fp32", 1))
    backend = CpuBackend(CpuLearnerSettings(threads=1, batch_size=32, seed=0))
    for round_ in range(2):
        config = random_config(round_, samples=SAMPLES)
        backend.train_round(generate(config, seed=round_).instances, epochs=1, seed=round_)
    weights = hashlib.sha256()
    for name, tensor in sorted(backend.policy.state_dict().items()):
        weights.update(name.encode() + tensor.detach().to(torch.float64).numpy().tobytes())
    print("weights", weights.hexdigest()[:16])
    instances = []
    for size in SIZES:
        instances += [
            i.instance for i in load_suite("validation").items if i.instance.size == size
        ][:PER_SIZE]
    answers = backend.respond(instances, samples=1, greedy=True, seed=0)
    text = "\n\n".join(a[0] for a in answers)
    print("answers", hashlib.sha256(text.encode()).hexdigest()[:16], "of", len(answers))


if __name__ == "__main__":
    main()
