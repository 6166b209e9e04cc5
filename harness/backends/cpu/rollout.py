"""Vectorised multi-agent rollouts: every agent of every episode in one forward pass per step.

All episodes advance together. At time t the still-running episodes are gathered, all their
agents are encoded (`features.observe`) and pushed through the policy at once, every agent
moves simultaneously, and vertex and edge conflicts are checked with tensor comparisons. An
episode ends when all agents stand on their goals at once (success), when two agents collide
(the episode stops there, the collision is written into the answer, and the verifier rejects
it), or at its horizon. An agent on its goal keeps acting: it may WAIT there, or step aside.

The answer is then written in the prompt's text format (`mapf_env.format_plan`), so it is
scored by the same parser, verifier and reward as an LLM's answer. Python loops only run over
time steps (tens) and over the final paths when writing text.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

import torch

from harness.backends.cpu.features import MOVES, Boards, build_boards, observe
from harness.backends.cpu.policy import AgentPolicy
from mapf_env import MAX_SIZE, Instance, format_plan

CELL_BASE = MAX_SIZE + 1
"""Cells are encoded as row * CELL_BASE + col while paths are turned into text."""


@dataclass
class StepRecord:
    """What the update needs from one time step: the running episodes' agents' choices."""

    episodes: torch.Tensor  # (E',) episode index of each row group
    obs: torch.Tensor  # (E'*A, F)
    mask: torch.Tensor  # (E'*A, 5)
    actions: torch.Tensor  # (E'*A,)


@dataclass
class Rollout:
    """Finished episodes: their text answers, progress and (when recorded) their steps."""

    answers: list[str]
    progress: torch.Tensor  # (E,) share of the start-to-goal distance covered, in [0, 1]
    steps: list[StepRecord] = field(default_factory=list)
    agents: int = 2


def autocast(enabled: bool) -> AbstractContextManager[object]:
    """bf16 autocast on CPU when asked for and the CPU has native bf16, else nothing."""
    if enabled and cpu_has_bf16():
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return nullcontext()


def cpu_has_bf16() -> bool:
    """True when the CPU has avx512_bf16 or amx_bf16 (bf16 is slower than fp32 without them)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="ignore") as f:
            flags = f.read()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def _conflicts(old: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
    """(E', A, 2) positions before/after a step -> (E',) bool: a vertex or edge conflict."""
    a = new.shape[1]
    other = ~torch.eye(a, dtype=torch.bool)[None]
    same = (new[:, :, None, :] == new[:, None, :, :]).all(-1)
    swap = (new[:, :, None, :] == old[:, None, :, :]).all(-1)
    edge = swap & swap.transpose(1, 2)
    return ((same | edge) & other).flatten(1).any(1)


def _choose(logp: torch.Tensor, greedy: bool, generator: torch.Generator | None) -> torch.Tensor:
    if greedy:
        return logp.argmax(-1)
    return torch.multinomial(logp.exp(), 1, generator=generator).squeeze(1)


def _priorities(episodes: int, agents: int, generator: torch.Generator) -> torch.Tensor:
    """A random priority rank per agent per episode, from the seeded generator."""
    keys = torch.rand(episodes, agents, generator=generator)
    return keys.argsort(1).argsort(1)


def rollout(
    policy: AgentPolicy,
    instances: Sequence[Instance],
    *,
    samples: int,
    greedy: bool,
    generator: torch.Generator,
    record: bool,
    window: int,
    horizon_factor: float,
    bf16: bool,
) -> Rollout:
    """`samples` episodes per instance (all with the same agent count), answered as text."""
    boards = build_boards(instances, samples, window, horizon_factor)
    prio = _priorities(boards.episodes, boards.agents, generator)
    pos = boards.starts.clone()
    history = [pos.clone()]
    ends = boards.horizon.clone()
    active = torch.ones(boards.episodes, dtype=torch.bool)
    steps: list[StepRecord] = []
    goals = boards.goals
    t = 0
    while bool(active.any()):
        live = active.nonzero().squeeze(1)
        obs, mask = observe(boards, live, pos[live], prio[live], t)
        with torch.no_grad(), autocast(bf16):
            logp = policy(obs, mask)
        actions = _choose(logp, greedy, generator)
        old = pos[live]
        new = old + MOVES[actions].reshape(old.shape)
        pos[live] = new
        history.append(pos.clone())
        t += 1
        if record:
            steps.append(StepRecord(live, obs, mask, actions))
        done = (
            _conflicts(old, new)
            | (new == goals[live]).all(-1).all(-1)
            | (boards.horizon[live] <= t)
        )
        finished = live[done]
        ends[finished] = t
        active[finished] = False
    answers = _answers(history, ends, boards.pad)
    return Rollout(answers, _progress(boards, pos), steps, boards.agents)


def _progress(boards: Boards, final: torch.Tensor) -> torch.Tensor:
    """Mean over agents of the share of their BFS start distance they covered."""
    e, a = final.shape[0], final.shape[1]
    side = boards.side
    dist = boards.dist.reshape(e, a, side * side)
    start = torch.gather(dist, 2, (boards.starts[..., 0] * side + boards.starts[..., 1])[..., None])
    end = torch.gather(dist, 2, (final[..., 0] * side + final[..., 1])[..., None])
    share = torch.where(start > 0, 1.0 - end / start.clamp(min=1.0), torch.ones_like(start))
    return share.clamp(0.0, 1.0).squeeze(2).mean(1)


def _answers(history: list[torch.Tensor], ends: torch.Tensor, pad: int) -> list[str]:
    """Each episode's paths (t = 0..end) written in the prompt's answer format.

    Cells travel as one small integer each and are looked up in a table of ready-made
    ``(row, col)`` tuples: converting (E, A, T, 2) coordinates to nested Python lists took
    longer than the rollout itself.
    """
    stacked = torch.stack(history, 0) - pad  # (T+1, E, A, 2)
    ids = (stacked[..., 0] * CELL_BASE + stacked[..., 1]).permute(1, 2, 0)  # (E, A, T+1)
    table = [(i // CELL_BASE, i % CELL_BASE) for i in range(CELL_BASE * CELL_BASE)]
    out = []
    for paths, end in zip(ids.to(torch.int16).numpy().tolist(), ends.tolist(), strict=True):
        plan = [[table[i] for i in path[: end + 1]] for path in paths]
        out.append(format_plan(plan))
    return out
