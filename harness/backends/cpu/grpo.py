"""GRPO for the CPU policy: group-relative advantages, a KL leash, no critic.

Read top to bottom, one optimiser step does this:

1. **Sample a group per instance.** For each instance of the batch, `group_size` (n = 8)
   episodes are played by the current policy with sampled actions (`rollout.rollout`), each with
   its own random agent-priority order. Every agent decision (observation, legal-action mask,
   action) is recorded; one decision is the CPU policy's "token".
2. **Score them as text.** Each episode is written as an answer in the prompt's format and
   scored by `mapf_env.reward` -- the same parser, verifier and reward an LLM's answer gets,
   with the trainer's running valid rate (`RunningValidRate`) weighting accuracy against
   length. An invalid episode that kept the rules -- it failed only by a conflict or by not
   reaching every goal -- additionally earns `progress_reward` x the share of the agents' BFS
   distance to their goals it covered: with almost no valid episodes at the start, this small
   shaping term is what gives a group any spread to learn from. An answer that broke the format
   or the movement rules (the free learner's slips, holes, the grid's edge) earns none, so the
   shaping never pays for a jump towards the goal or a path written without its start.
3. **Group-normalise.** Within each instance's group, advantage = (reward - mean) / std. A
   group whose rewards do not differ (all valid and equally good, or all identical failures)
   carries no signal and is dropped, decisions and all, so it neither dilutes the mean nor
   pulls the policy towards its reference for nothing.
4. **Policy-gradient loss with a KL penalty.** The episode's advantage is given to every one
   of its agents' decisions. Loss = -mean(A * log pi(a|o)) + kl_coef * mean(KL(pi || pi_ref)),
   averaged over decisions (the token-level mean). The KL is exact over the 5 actions (cheap
   here, and without the variance of a sampled estimator), against a reference policy frozen
   at the start of the round. One gradient step per batch of rollouts: the data is on-policy,
   so the PPO ratio is 1 and clipping would never act; it is therefore left out. The free
   learner's t = 0 decisions carry a second token, the agent's writing slip: its log-probability
   is added to the move's and its exact KL to the move's, with the same advantage.
5. **Step.** Adam, gradient norm clipped at `grad_clip`. Fused Adam (ATen's own kernel, whose
   square root is the CPU's correctly rounded instruction): the default one takes
   ``exp_avg_sq.sqrt()`` of each parameter through MKL's vector math, whose results depend on
   the CPU vendor (`harness.backends.cpu.vendor_kernels`).

There is no value network: the group mean is the baseline.

How a step spends its time (a 1000-instance round, n = 8, on 2 cores): about half in the
rollout, whose forward passes are kept for the update (`AgentPolicy.forward_keeping`), so the
update runs no second forward pass of the policy, only the reference's and the backward pass
(`AgentPolicy.accumulate_grad`), chunk by chunk (`CHUNK_ROWS`). Scoring the texts (Python) runs
in a thread beside the reference pass (torch), which needs no reward (`overlap`); identical
texts of one instance are scored once; on a round's first step the policy is its own reference
and that pass is skipped. With one chunk per step, all of this reproduces the straightforward
implementation (forward again under autograd) bit for bit.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import torch

from envdesign_common import RunningValidRate
from harness.backends.cpu.policy import (
    ACTIONS,
    Activations,
    AgentPolicy,
    accumulate,
    concat,
    probabilities,
)
from harness.backends.cpu.rollout import Rollout, StepRecord, autocast, rollout
from harness.backends.cpu.settings import CpuLearnerSettings
from mapf_env import FailureType, Instance, RewardBreakdown, reward
from run_records import Precision, TrainStep

RULE_KEEPING = frozenset({None, FailureType.CONFLICT, FailureType.GOAL})
"""Verdicts of answers that kept the format and the movement rules: only invalid ones of these
earn the progress bonus (step 2)."""

CHUNK_ROWS = 32768
"""Decisions per pass of the update: whole time steps, concatenated, until at least this many.

Large enough for efficient matrix products; small enough (in bf16) that each activation tensor
stays under glibc's 32 MB mmap ceiling, so it is reused rather than faulted in afresh."""

SWITCH_INTERVAL = 1e-4
"""Seconds between GIL hand-overs while scoring runs beside the reference pass (see `overlap`)."""

T = TypeVar("T")
U = TypeVar("U")


@dataclass
class Chunk:
    """Consecutive recorded time steps of one rollout, concatenated: the unit of the update."""

    episodes: torch.Tensor  # (N,) the episode of each decision
    mask: torch.Tensor  # (N, 5)
    actions: torch.Tensor  # (N,)
    kept: Activations  # the policy's activations when it chose
    ref: torch.Tensor  # (N, 5) the reference policy's log-probabilities (N, 5 + SLIPS: free)
    slips: torch.Tensor | None = None  # (N,) writing slip chosen at the row, -1 if none (free)


@dataclass
class Decisions:
    """The kept decisions of a chunk, each with its episode's advantage."""

    mask: torch.Tensor
    actions: torch.Tensor
    advantages: torch.Tensor
    kept: Activations
    ref: torch.Tensor
    slips: torch.Tensor | None = None


@dataclass
class Scored:
    rewards: torch.Tensor  # (E,)
    valid: torch.Tensor  # (E,) bool


def score(
    instances: Sequence[Instance],
    ro: Rollout,
    samples: int,
    valid_rate: float,
    settings: CpuLearnerSettings,
) -> Scored:
    """Step 2: the testbed's reward for each episode's text, plus progress for invalid ones
    that kept the rules (`RULE_KEEPING`).

    Episodes of one instance that wrote the same text get the same reward, so each distinct
    text is scored once (a trained policy repeats itself on small maps).
    """
    rewards, valid = [], []
    shares = ro.progress.tolist()
    seen: dict[tuple[int, str], RewardBreakdown] = {}
    for e, text in enumerate(ro.answers):
        key = (e // samples, text)
        breakdown = seen.get(key)
        if breakdown is None:
            breakdown = seen[key] = reward(instances[key[0]], text, settings.reward, valid_rate)
        keeps_rules = breakdown.failure in RULE_KEEPING
        paid = settings.progress_reward * shares[e]
        bonus = paid if keeps_rules and not breakdown.valid else 0.0
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


def chunks(
    ro: Rollout, policy: AgentPolicy, reference: AgentPolicy | None, precision: Precision
) -> list[Chunk]:
    """The rollout's recorded steps in chunks of about `CHUNK_ROWS` decisions, in order.

    Each gets the reference policy's log-probabilities; `reference` None means `policy` is
    still its own reference (the first step of a round), whose logits the rollout already
    computed.
    """
    out: list[Chunk] = []
    start, rows = 0, 0
    for i, step in enumerate(ro.steps):
        rows += step.actions.numel()
        if rows >= CHUNK_ROWS or i == len(ro.steps) - 1:
            part = ro.steps[start : i + 1]
            episodes = torch.cat([s.episodes for s in part]).repeat_interleave(ro.agents)
            mask = torch.cat([s.mask for s in part])
            kept = concat([s.kept for s in part])
            if reference is None:
                with torch.no_grad():
                    ref = policy.log_probs(kept.logits, mask)
            else:
                with torch.no_grad(), autocast(precision):
                    ref = reference(kept.inputs[0], mask)
            actions = torch.cat([s.actions for s in part])
            out.append(Chunk(episodes, mask, actions, kept, ref, _slips(part)))
            start, rows = i + 1, 0
    return out


def _slips(steps: Sequence[StepRecord]) -> torch.Tensor | None:
    """The rows' writing slips (-1 on rows that chose none); None when no step has any."""
    if all(s.slips is None for s in steps):
        return None
    return torch.cat(
        [s.slips if s.slips is not None else torch.full_like(s.actions, -1) for s in steps]
    )


def decisions(chunk: Chunk, advantages: torch.Tensor) -> Decisions:
    """The chunk's decisions of episodes that kept an advantage (no copy if all did)."""
    per_row = advantages[chunk.episodes]
    keep = ~per_row.isnan()
    if bool(keep.all()):
        return Decisions(chunk.mask, chunk.actions, per_row, chunk.kept, chunk.ref, chunk.slips)
    kept = Activations([x[keep] for x in chunk.kept.inputs], chunk.kept.logits[keep])
    slips = None if chunk.slips is None else chunk.slips[keep]
    return Decisions(
        chunk.mask[keep], chunk.actions[keep], per_row[keep], kept, chunk.ref[keep], slips
    )


def exact_kl(logp: torch.Tensor, ref: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """KL(pi || ref) per decision over the legal actions."""
    diff = torch.where(mask, logp - ref, torch.zeros_like(logp))
    return (probabilities(logp) * diff).sum(-1)


def chosen_and_kl(
    logp: torch.Tensor, part: Decisions, free: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per decision: log pi of what was chosen, and KL(pi || ref).

    The free policy gives every move probability, so its KL runs over all five. On a row where
    it also chose a writing slip, both are the sums over the row's two tokens (move and slip);
    the writing head's outputs on other rows chose nothing and count for neither.
    """
    if not free:
        chosen = logp.gather(1, part.actions[:, None]).squeeze(1)
        return chosen, exact_kl(logp, part.ref, part.mask)
    moves, writing = logp[:, :ACTIONS], logp[:, ACTIONS:]
    chosen = moves.gather(1, part.actions[:, None]).squeeze(1)
    kl = exact_kl(moves, part.ref[:, :ACTIONS], torch.ones_like(part.mask))
    if part.slips is None:
        return chosen, kl
    wrote = part.slips >= 0
    slip = writing.gather(1, part.slips.clamp(min=0)[:, None]).squeeze(1)
    slip_kl = exact_kl(writing, part.ref[:, ACTIONS:], torch.ones_like(writing, dtype=torch.bool))
    zero = torch.zeros_like(chosen)
    return chosen + torch.where(wrote, slip, zero), kl + torch.where(wrote, slip_kl, zero)


def update(
    policy: AgentPolicy,
    optimizer: torch.optim.Optimizer,
    batch: Sequence[Decisions],
    settings: CpuLearnerSettings,
) -> tuple[float, float]:
    """Step 4-5 on the kept decisions; returns (policy-gradient loss, mean KL). No decisions:
    no step. The loss minimised is pg_loss + kl_coef x KL; the two are reported apart, as verl
    reports actor/pg_loss and actor/kl_loss.

    The loss is a mean over all kept decisions, so it is the sum of its chunks' shares, and
    their gradients are accumulated before the one optimiser step: the same step as one pass
    over the whole batch. Each chunk's gradient starts at the logits the rollout kept and is
    carried through the network by `AgentPolicy.accumulate_grad`, with no second forward pass.
    """
    total = sum(part.actions.numel() for part in batch)
    if total == 0:
        return 0.0, 0.0
    optimizer.zero_grad(set_to_none=True)
    pg_sum, kl_sum = 0.0, 0.0
    heads = policy.head_parameters()
    for part in batch:
        logits = part.kept.logits.requires_grad_()
        chosen, kl = chosen_and_kl(policy.log_probs(logits, part.mask), part, policy.free)
        pg = -(part.advantages * chosen).mean()
        share = (pg + settings.kl_coef * kl.mean()) * (part.actions.numel() / total)
        grad, *head_grads = torch.autograd.grad(share, [logits, *heads])
        policy.accumulate_grad(grad, part.kept)
        for param, head_grad in zip(heads, head_grads, strict=True):
            accumulate(param, head_grad)
        pg_sum += float(pg.detach()) * part.actions.numel()
        kl_sum += float(kl.detach().sum())
    torch.nn.utils.clip_grad_norm_(policy.parameters(), settings.grad_clip)
    optimizer.step()
    return pg_sum / total, kl_sum / total


def by_agent_count(instances: Sequence[Instance]) -> dict[int, list[int]]:
    """Indices of the instances grouped by agent count (one rollout per group)."""
    groups: dict[int, list[int]] = defaultdict(list)
    for i, inst in enumerate(instances):
        groups[inst.n_agents].append(i)
    return dict(groups)


def overlap(background: Callable[[], T], foreground: Callable[[], U]) -> tuple[T, U]:
    """Run `background` in a thread while `foreground` runs here; both results.

    Scoring is pure Python and holds the GIL; the reference pass is a few large torch kernels,
    which release it. Side by side they keep both cores of a 2-core machine busy instead of
    one after the other (measured on a mid-round step: 167 ms against 103 + 128 ms). The GIL
    switch interval is shortened meanwhile so that the foreground gets the GIL back between
    kernels in a fraction of a millisecond, not after Python's default 5 ms. Neither result
    depends on the other or on timing, so this changes no number.
    """
    previous = sys.getswitchinterval()
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(background)
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            result = foreground()
        finally:
            sys.setswitchinterval(previous)
        return future.result(), result


def grpo_step(
    policy: AgentPolicy,
    reference: AgentPolicy | None,
    optimizer: torch.optim.Optimizer,
    instances: Sequence[Instance],
    settings: CpuLearnerSettings,
    *,
    generator: torch.Generator,
    running: RunningValidRate,
    step: int,
    epoch: int,
) -> TrainStep:
    """One full GRPO step (1-5) on a batch of instances; its curves as a `TrainStep`.

    `reference` None: the policy has not moved since the reference was frozen (the first step
    of a round), so it is its own reference and the reference pass is skipped.
    """
    started = time.perf_counter()
    n = settings.group_size
    batch: list[Decisions] = []
    rewards, valid = [], []
    for idx in by_agent_count(instances).values():
        group = [instances[i] for i in idx]
        ro = rollout(
            policy, group, samples=n, greedy=False, generator=generator, record=True,
            window=settings.window, horizon_factor=settings.max_steps_factor,
            precision=settings.precision, priority=settings.priority,
        )  # fmt: skip
        scored, parts = overlap(
            partial(score, group, ro, n, running.value, settings),
            partial(chunks, ro, policy, reference, settings.precision),
        )
        advantages = group_advantages(scored.rewards, n)
        batch += [decisions(part, advantages) for part in parts]
        rewards.append(scored.rewards)
        valid.append(scored.valid)
    all_valid = torch.cat(valid)
    running.update(all_valid.tolist())
    loss, kl = update(policy, optimizer, batch, settings)
    return TrainStep(
        step=step,
        epoch=epoch,
        reward=float(torch.cat(rewards).mean()),
        valid_rate=float(all_valid.float().mean()),
        kl=kl,
        loss=loss,
        seconds=time.perf_counter() - started,
    )
