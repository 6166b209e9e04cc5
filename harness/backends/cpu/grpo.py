"""GRPO for the CPU policy: group-relative advantages, a KL leash, no critic.

Read top to bottom, one optimiser step does this:

1. **Sample a group per instance.** For each instance of the batch, `group_size` (n = 8)
   episodes are played by the current policy with sampled actions (`rollout.rollout`), each with
   its own random agent-priority order. Every agent decision (observation, legal-action mask,
   action) is recorded; one decision is the CPU policy's "token".
2. **Score them as text.** Each episode is written as an answer in the prompt's format and
   scored by `mapf_env.reward` -- the same parser, verifier and reward an LLM's answer gets,
   with the trainer's running valid rate (`RunningValidRate`) weighting accuracy against
   length. An invalid episode additionally earns `progress_reward` x the share of the agents'
   BFS distance to their goals it covered: with almost no valid episodes at the start, this
   small shaping term is what gives a group any spread to learn from.
3. **Group-normalise.** Within each instance's group, advantage = (reward - mean) / std. A
   group whose rewards do not differ (all valid and equally good, or all identical failures)
   carries no signal and is dropped, decisions and all, so it neither dilutes the mean nor
   pulls the policy towards its reference for nothing.
4. **Policy-gradient loss with a KL penalty.** The episode's advantage is given to every one
   of its agents' decisions. Loss = -mean(A * log pi(a|o)) + kl_coef * mean(KL(pi || pi_ref)),
   averaged over decisions (the token-level mean). The KL is exact over the 5 actions (cheap
   here, and without the variance of a sampled estimator), against a reference policy frozen
   at the start of the round. One gradient step per batch of rollouts: the data is on-policy,
   so the PPO ratio is 1 and clipping would never act; it is therefore left out.
5. **Step.** Adam, gradient norm clipped at `grad_clip`.

There is no value network: the group mean is the baseline.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from harness.backends.base import TrainStep
from harness.backends.cpu.policy import AgentPolicy
from harness.backends.cpu.rollout import Rollout, autocast, rollout
from harness.backends.cpu.settings import CpuLearnerSettings
from mapf_env import Instance, RunningValidRate, reward


@dataclass
class Decisions:
    """Every kept agent decision of a batch, with its episode's advantage."""

    obs: torch.Tensor
    mask: torch.Tensor
    actions: torch.Tensor
    advantages: torch.Tensor


@dataclass
class Scored:
    rewards: torch.Tensor  # (E,)
    valid: torch.Tensor  # (E,) bool


def score(
    instances: Sequence[Instance], ro: Rollout, samples: int, valid_rate: float, progress: float
) -> Scored:
    """Step 2: the testbed's reward for each episode's text, plus progress for invalid ones."""
    rewards, valid = [], []
    for e, text in enumerate(ro.answers):
        breakdown = reward(instances[e // samples], text, valid_rate=valid_rate)
        bonus = 0.0 if breakdown.valid else progress * float(ro.progress[e])
        rewards.append(breakdown.total + bonus)
        valid.append(breakdown.valid)
    return Scored(torch.tensor(rewards), torch.tensor(valid))


def group_advantages(rewards: torch.Tensor, samples: int) -> torch.Tensor:
    """Step 3: (E,) advantages; NaN marks episodes of groups with no spread (dropped)."""
    groups = rewards.reshape(-1, samples)
    std = groups.std(1, keepdim=True)
    adv = (groups - groups.mean(1, keepdim=True)) / std.clamp(min=1e-6)
    adv = torch.where(std > 1e-6, adv, torch.full_like(adv, float("nan")))
    return adv.reshape(-1)


def decisions(ro: Rollout, advantages: torch.Tensor) -> Decisions:
    """The recorded decisions of episodes that kept an advantage, each with its advantage."""
    obs, mask, actions, adv = [], [], [], []
    for step in ro.steps:
        per_row = advantages[step.episodes].repeat_interleave(ro.agents)
        keep = ~per_row.isnan()
        obs.append(step.obs[keep])
        mask.append(step.mask[keep])
        actions.append(step.actions[keep])
        adv.append(per_row[keep])
    return Decisions(torch.cat(obs), torch.cat(mask), torch.cat(actions), torch.cat(adv))


def merge(parts: Sequence[Decisions]) -> Decisions:
    return Decisions(
        torch.cat([p.obs for p in parts]),
        torch.cat([p.mask for p in parts]),
        torch.cat([p.actions for p in parts]),
        torch.cat([p.advantages for p in parts]),
    )


def exact_kl(logp: torch.Tensor, ref: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """KL(pi || ref) per decision over the legal actions."""
    diff = torch.where(mask, logp - ref, torch.zeros_like(logp))
    return (logp.exp() * diff).sum(-1)


def update(
    policy: AgentPolicy,
    reference: AgentPolicy,
    optimizer: torch.optim.Optimizer,
    batch: Decisions,
    settings: CpuLearnerSettings,
) -> tuple[float, float]:
    """Step 4-5 on the kept decisions; returns (loss, mean KL). No decisions: no step."""
    if batch.actions.numel() == 0:
        return 0.0, 0.0
    with autocast(settings.bf16):
        logp = policy(batch.obs, batch.mask)
        with torch.no_grad():
            ref = reference(batch.obs, batch.mask)
    chosen = logp.gather(1, batch.actions[:, None]).squeeze(1)
    kl = exact_kl(logp, ref, batch.mask)
    loss = -(batch.advantages * chosen).mean() + settings.kl_coef * kl.mean()
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), settings.grad_clip)
    optimizer.step()
    return float(loss.detach()), float(kl.detach().mean())


def by_agent_count(instances: Sequence[Instance]) -> dict[int, list[int]]:
    """Indices of the instances grouped by agent count (one rollout per group)."""
    groups: dict[int, list[int]] = defaultdict(list)
    for i, inst in enumerate(instances):
        groups[inst.n_agents].append(i)
    return dict(groups)


def grpo_step(
    policy: AgentPolicy,
    reference: AgentPolicy,
    optimizer: torch.optim.Optimizer,
    instances: Sequence[Instance],
    settings: CpuLearnerSettings,
    *,
    generator: torch.Generator,
    running: RunningValidRate,
    step: int,
    epoch: int,
) -> TrainStep:
    """One full GRPO step (1-5) on a batch of instances; its curves as a `TrainStep`."""
    started = time.perf_counter()
    n = settings.group_size
    parts, rewards, valid = [], [], []
    for idx in by_agent_count(instances).values():
        group = [instances[i] for i in idx]
        ro = rollout(
            policy, group, samples=n, greedy=False, generator=generator, record=True,
            window=settings.window, horizon_factor=settings.max_steps_factor, bf16=settings.bf16,
        )  # fmt: skip
        scored = score(group, ro, n, running.value, settings.progress_reward)
        parts.append(decisions(ro, group_advantages(scored.rewards, n)))
        rewards.append(scored.rewards)
        valid.append(scored.valid)
    all_valid = torch.cat(valid)
    running.update(all_valid.tolist())
    loss, kl = update(policy, reference, optimizer, merge(parts), settings)
    return TrainStep(
        step=step,
        epoch=epoch,
        reward=float(torch.cat(rewards).mean()),
        valid_rate=float(all_valid.float().mean()),
        kl=kl,
        loss=loss,
        seconds=time.perf_counter() - started,
    )
