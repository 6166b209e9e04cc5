"""`CpuBackend`: the `Backend` the round loop drives when no GPU is at hand.

It trains a real policy -- a shared per-agent MLP over an egocentric window -- by GRPO on the
round's instances with the testbed's reward, and answers in the prompt's text format, so the
whole train -> eval -> design loop of the paper runs on a 2-core laptop in minutes.

It is not a language model, so it cannot serve an OpenAI-compatible endpoint: `endpoint`
returns None, and the `self` / `base` designers (which ask the trained checkpoint to write the
next configuration) are unavailable with this backend unless the user gives them an endpoint
of their own.

Determinism: every random draw (initial weights, priority orders, sampled actions, batch
order) comes from a `torch.Generator` seeded by the caller, and every fp32 kernel is pinned to
code that runs alike on any x86-64 CPU with AVX2 and any thread count (`products`,
`run_records.machine`), so the same seed gives the same bits there. `machine` says what ran
(precision, CPU, kernels, versions, threads) and the learner's fingerprint
(`harness.backends.cpu.fingerprint`), which every run record keeps and boards pool by.
"""

from __future__ import annotations

import copy
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import torch

from designers import Endpoint
from envdesign_common import RunningValidRate, atomic_write_bytes, atomic_writer
from harness.backends.base import RoundTraining, require_solved
from harness.backends.cpu.fingerprint import learner_machine
from harness.backends.cpu.grpo import by_agent_count, grpo_step
from harness.backends.cpu.policy import AgentPolicy
from harness.backends.cpu.rollout import rollout
from harness.backends.cpu.settings import CpuLearnerSettings
from mapf_env import Instance, accuracy_weight
from run_records import MachineRecord, TrainStep, summarise

EVAL_CHUNK = 4096
"""Episodes per evaluation rollout: bounds memory on large suites."""


def adam(policy: torch.nn.Module, lr: float) -> torch.optim.Adam:
    """The learner's optimiser: Adam, fused (see `harness.backends.cpu.grpo`, step 5)."""
    return torch.optim.Adam(policy.parameters(), lr=lr, fused=True)


class CpuBackend:
    """GRPO on a small torch policy; see the module docstring."""

    name = "cpu"

    def __init__(self, settings: CpuLearnerSettings | None = None) -> None:
        self.settings = settings or CpuLearnerSettings()
        torch.set_num_threads(self.settings.threads or os.cpu_count() or 1)
        self.initialise(self.settings.seed)

    def _fresh_policy(self, seed: int) -> AgentPolicy:
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            return AgentPolicy(
                self.settings.window,
                self.settings.hidden,
                free=self.settings.actions == "free",
                slip_rate=self.settings.slip_rate,
                fall_logit=self.settings.fall_logit,
                in_turn=self.settings.decide == "in_turn",
            )

    def initialise(self, seed: int) -> None:
        """A fresh policy from `seed`, its frozen base copy, a new optimiser and valid-rate EMA."""
        self.policy = self._fresh_policy(seed)
        self.base = copy.deepcopy(self.policy).requires_grad_(False)
        self.optimizer = adam(self.policy, self.settings.lr)
        self.running = RunningValidRate()
        self.steps_done = 0

    def train_round(
        self,
        instances: Sequence[Instance],
        *,
        epochs: int,
        seed: int,
        on_step: Callable[[TrainStep], None] | None = None,
    ) -> RoundTraining:
        """GRPO for `epochs` passes over `instances`, against a reference frozen now."""
        require_solved(instances)
        started = time.perf_counter()
        reference = copy.deepcopy(self.policy).requires_grad_(False)
        generator = torch.Generator().manual_seed(seed)
        size = self.settings.batch_size
        steps: list[TrainStep] = []
        weighed = self.running.value  # the valid rate the reward weighs the last step with
        for epoch in range(epochs):
            order = torch.randperm(len(instances), generator=generator).tolist()
            for lo in range(0, len(order), size):
                batch = [instances[i] for i in order[lo : lo + size]]
                weighed = self.running.value  # grpo_step scores with it, then updates it
                # On the round's first step the policy has not moved: it is its own reference.
                step = grpo_step(
                    self.policy, reference if steps else None, self.optimizer, batch,
                    self.settings, generator=generator, running=self.running,
                    step=self.steps_done, epoch=epoch,
                )  # fmt: skip
                self.steps_done += 1
                steps.append(step)
                if on_step is not None:
                    on_step(step)
        s = self.settings
        summary = summarise(
            steps, epochs=epochs, samples=len(instances), group_size=s.group_size,
            learning_rate=s.lr, kl_coef=s.kl_coef, valid_rate=weighed,
            accuracy_weight=accuracy_weight(weighed, s.reward),
        )  # fmt: skip
        return RoundTraining(
            steps=tuple(steps),
            epochs=epochs,
            samples=len(instances),
            seconds=time.perf_counter() - started,
            summary=summary,
        )

    def respond(
        self, instances: Sequence[Instance], *, samples: int = 1, greedy: bool = True, seed: int = 0
    ) -> list[list[str]]:
        """`samples` answers per instance; greedy answers differ only by priority order (and,
        for the free learner, by its writing slips, which are sampled in greedy rollouts too:
        see `harness.backends.cpu.rollout`)."""
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        generator = torch.Generator().manual_seed(seed)
        out: list[list[str]] = [[] for _ in instances]
        chunk = max(1, EVAL_CHUNK // samples)
        for idx in by_agent_count(instances).values():
            for lo in range(0, len(idx), chunk):
                part = idx[lo : lo + chunk]
                ro = rollout(
                    self.policy, [instances[i] for i in part], samples=samples, greedy=greedy,
                    generator=generator, record=False, window=self.settings.window,
                    horizon_factor=self.settings.max_steps_factor,
                    precision=self.settings.precision, priority=self.settings.priority,
                )  # fmt: skip
                for k, i in enumerate(part):
                    out[i] = ro.answers[k * samples : (k + 1) * samples]
        return out

    def save(self, directory: Path) -> None:
        """Weights, base weights, optimiser state and settings, so a run resumes exactly.

        Both files are written atomically and durably before this returns (the round record
        that vouches for them comes after): a save killed or cut short by a full disk leaves
        the old file or none, never half of one.
        """
        state = {
            "policy": self.policy.state_dict(),
            "base": self.base.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "running": self.running.value,
            "running_updates": self.running.updates,
            "steps_done": self.steps_done,
        }
        with atomic_writer(directory / "cpu_policy.pt") as f:
            torch.save(state, f)
        settings = self.settings.model_dump_json(indent=2).encode("utf-8")
        atomic_write_bytes(directory / "cpu_settings.json", settings)

    def load(self, directory: Path) -> None:
        """Restore what `save` wrote; the saved settings replace the current ones (settings
        saved before `actions` existed read as the masked learner they trained)."""
        raw = json.loads((directory / "cpu_settings.json").read_text())
        self.settings = CpuLearnerSettings.model_validate(raw)
        state = torch.load(directory / "cpu_policy.pt", weights_only=True)
        self.initialise(self.settings.seed)
        self.policy.load_state_dict(state["policy"])
        self.base.load_state_dict(state["base"])
        self.optimizer.load_state_dict(state["optimizer"])
        for group in self.optimizer.param_groups:  # a saved group's options replace ours
            group["fused"], group["foreach"] = True, None
        self.running = RunningValidRate(initial=float(state["running"]))
        self.running.updates = int(state["running_updates"])
        self.steps_done = int(state["steps_done"])

    def machine(self) -> MachineRecord:
        """How this backend computes: its precision, this CPU and its kernels, versions,
        threads, what computes its fp32 products, and its fingerprint."""
        return learner_machine(type(self), self.settings.precision, torch.get_num_threads())

    def endpoint(self, which: Literal["policy", "base"]) -> Endpoint | None:
        """None: a small MLP cannot serve chat completions (see the module docstring)."""
        return None
