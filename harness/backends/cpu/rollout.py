"""Vectorised multi-agent rollouts: every agent of every episode in one forward pass per step.

All episodes advance together. At time t the still-running episodes are gathered, all their
agents are encoded (`features.observe`) and pushed through the policy at once, every agent
moves simultaneously, and vertex and edge conflicts are checked with tensor comparisons. An
episode ends when all agents stand on their goals at once (success), when two agents collide
(the episode stops there, the collision is written into the answer, and the verifier rejects
it), or at its horizon. An agent on its goal keeps acting: it may WAIT there, or step aside.

Agents that decide in turn (`AgentPolicy.in_turn`, the experiment's ``cpu.decide: in_turn``)
choose one after another within each time step, in priority order: the first-ranked agent of
every running episode, then the second, each seeing in its claims channel (`features`) the
cells the agents before it have just chosen. It is how an LLM writes its answer -- each agent's
line knowing the lines above it -- and it makes a conflict something an agent can see coming
rather than guess, so conflict resolution becomes a skill the policy learns from the conflicted
instances a designer puts in front of it. It costs one forward pass per rank (of E' rows each)
instead of one of E' x A rows; the decisions are put back in (episode, agent) order for the
update. With ``cpu.priority: farthest`` the agent with the longest way to its goal ranks
first, so the agent that yields is rarely the one whose path sets the makespan.

The free learner's policy (`AgentPolicy.free`) may also step into a hole or off the grid. The
episode then ends at that step, as after a collision, and every path is written up to it, so
the answer holds the hole or off-grid cell and the verifier reports it (*hole*, *bounds*).
Ending there is the FrozenLake rule (an agent that falls in is gone) and keeps every position
within one cell of the grid, where the padded boards still index it. At t = 0 it also samples
each agent's writing slip (`writing.Slip`) from the writing head, in greedy rollouts too: greedy
means the most likely move at each step, while the slips stand for the mistakes an LLM makes at
any temperature, and a head whose most likely choice is a correct line would hide them from
every greedy evaluation, the one the designers read.

The answer is then written in the prompt's text format (as `mapf_env.format_plan` writes it),
so it is scored by the same parser, verifier and reward as an LLM's answer. Python loops only
run over time steps (tens) and over the final paths when writing text.

Threads: a time step is some fifty small tensor operations (a few thousand rows each) around
three matrix products. The small ones run on one thread: split across OpenMP threads they
gained nothing on an idle 2-core machine, and on a busy one each operation waited for the
second thread to be scheduled. Only the policy's forward pass uses the configured threads, and
only for a step of at least `PARALLEL_ROWS` rows (the tail of a rollout has far fewer).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field

import torch

from harness.backends.cpu.features import (
    BLOCKED,
    CHANNELS,
    MOVES,
    Boards,
    build_boards,
    observe,
    own_cells,
)
from harness.backends.cpu.policy import ACTIONS, Activations, AgentPolicy, probabilities
from harness.backends.cpu.settings import PriorityOrder
from harness.backends.cpu.writing import write_answer
from mapf_env import Instance
from run_records import Precision

PARALLEL_ROWS = 1024
"""Fewest rows for which a time step's forward pass uses more than one thread: below about 600
rows (2 cores, bf16) OpenMP's start-up costs more than the second thread saves."""


@dataclass
class StepRecord:
    """What the update needs from one time step: the running episodes' agents' choices.

    `kept` holds the observations and what the policy computed from them when it chose
    (`AgentPolicy.forward_keeping`): the data is on-policy, one optimiser step per rollout, so
    the update's backward pass starts from these instead of a second forward pass.
    """

    episodes: torch.Tensor  # (E',) episode index of each row group
    mask: torch.Tensor  # (E'*A, 5)
    actions: torch.Tensor  # (E'*A,)
    kept: Activations  # inputs[0] are the observations (E'*A, F)
    slips: torch.Tensor | None = None  # (E'*A,) the writing head's choices (free, t = 0 only)


@dataclass
class Rollout:
    """Finished episodes: their text answers, progress and (when recorded) their steps."""

    answers: list[str]
    progress: torch.Tensor  # (E,) share of the start-to-goal distance covered, in [0, 1]
    steps: list[StepRecord] = field(default_factory=list)
    agents: int = 2
    slips: torch.Tensor | None = None  # (E, A) each agent's `writing.Slip` (free learner)


def autocast(precision: Precision) -> AbstractContextManager[object]:
    """bf16 autocast on CPU for ``bf16`` (native or emulated, see `run_records.machine`); nothing
    for ``fp32``."""
    if precision == "bf16":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return nullcontext()


def input_dtype(precision: Precision) -> torch.dtype:
    """The dtype observations are stored in: what the first layer reads under `autocast`."""
    return torch.bfloat16 if precision == "bf16" else torch.float32


def acting_copy(policy: AgentPolicy, dtype: torch.dtype) -> AgentPolicy:
    """The policy with its weights already in `dtype`, for the forward passes of one rollout.

    Under autocast every forward pass casts every weight to bf16 again; a rollout makes tens
    of small passes with the same weights, and at the tail's few hundred rows the casts cost
    more than the products. Casting once gives the same bf16 weights, hence the same numbers.
    Only the network is cast: the free policy's `fall` offset stays float32, as the update
    reads it.
    """
    if dtype == torch.float32:
        return policy
    actor = copy.deepcopy(policy).requires_grad_(False)
    actor.net.to(dtype)
    return actor


@contextmanager
def threads(count: int) -> Iterator[None]:
    """Run the block with `count` torch threads, then restore the previous count."""
    before = torch.get_num_threads()
    if count == before:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _conflicts(old: torch.Tensor, new: torch.Tensor) -> torch.Tensor:
    """Cells before/after a step -> (E',) bool: a vertex or edge conflict.

    Cells are (E', A) flat indices, or (E', A, 2) (row, col) pairs.
    """
    if new.dim() == 3:
        base = int(torch.cat([old, new]).max()) + 1
        old, new = old[..., 0] * base + old[..., 1], new[..., 0] * base + new[..., 1]
    a = new.shape[1]
    other = ~torch.eye(a, dtype=torch.bool)
    same = new[:, :, None] == new[:, None, :]
    swap = new[:, :, None] == old[:, None, :]
    edge = swap & swap.transpose(1, 2)
    return ((same | edge) & other).flatten(1).any(1)


def _choose(logp: torch.Tensor, greedy: bool, generator: torch.Generator | None) -> torch.Tensor:
    if greedy:
        return logp.argmax(-1)
    return torch.multinomial(probabilities(logp), 1, generator=generator).squeeze(1)


def _priorities(
    episodes: int, agents: int, generator: torch.Generator, first: torch.Tensor | None = None
) -> torch.Tensor:
    """A random priority rank per agent per episode, from the seeded generator; with `first`
    (E, A) start distances, the farthest agent ranks first and ties are broken at random."""
    keys = torch.rand(episodes, agents, generator=generator)
    if first is not None:
        keys = keys - first.clamp(max=1000.0)
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
    precision: Precision,
    priority: PriorityOrder = "random",
) -> Rollout:
    """`samples` episodes per instance (all with the same agent count), answered as text.

    With `record`, every time step's decisions are kept for the update (`StepRecord`). A free
    policy plays by the rules in the module docstring.
    """
    free = policy.free
    matmul_threads = torch.get_num_threads()
    with threads(1):
        boards = build_boards(instances, samples, window, horizon_factor)
        far = None
        if priority == "farthest":
            every = torch.arange(boards.episodes)
            far = boards.dist[own_cells(boards, every, boards.starts)]
        prio = _priorities(boards.episodes, boards.agents, generator, far)
        moves = MOVES[:, 0] * boards.side + MOVES[:, 1]  # flat cell change of each action
        dtype = input_dtype(precision)
        actor = acting_copy(policy, dtype)
        pos = boards.starts.clone()
        history = [pos.clone()]
        ends = boards.horizon.clone()
        live = torch.arange(boards.episodes)
        steps: list[StepRecord] = []
        slips: torch.Tensor | None = None
        t = 0
        while live.numel() > 0:
            old = pos[live]
            obs, mask = observe(boards, live, old, prio[live], t, dtype, policy.in_turn)
            kept: Activations | None = None
            if policy.in_turn:
                logp, kept, chosen = _decide_in_turn(
                    actor,
                    boards,
                    obs,
                    mask,
                    old,
                    prio[live],
                    moves,
                    greedy,
                    generator,
                    record,
                    matmul_threads,
                )
            else:
                parallel = matmul_threads if obs.shape[0] >= PARALLEL_ROWS else 1
                with threads(parallel), torch.no_grad():
                    if record:
                        logp, kept = actor.forward_keeping(obs, mask)
                    else:
                        logp = actor(obs, mask)
                chosen = _choose(logp[:, :ACTIONS] if free else logp, greedy, generator)
            slipped = None
            if free and t == 0:  # every episode is live at t = 0
                slipped = _choose(logp[:, ACTIONS:], False, generator)
                slips = slipped.reshape(boards.episodes, boards.agents)
            if kept is not None:
                steps.append(StepRecord(live, mask, chosen, kept, slipped))
            new = old + moves[chosen].reshape(old.shape)
            pos[live] = new
            history.append(pos.clone())
            t += 1
            done = (
                _conflicts(old, new)
                | (new == boards.goals[live]).all(-1)
                | (boards.horizon[live] <= t)
            )
            if free:
                done |= (boards.dist[own_cells(boards, live, new)] == BLOCKED).any(-1)
            ends[live[done]] = t
            live = live[~done]
        answers = _answers(boards, history, ends, slips)
        return Rollout(answers, _progress(boards, pos), steps, boards.agents, slips)


def _decide_in_turn(
    actor: AgentPolicy,
    boards: Boards,
    obs: torch.Tensor,
    mask: torch.Tensor,
    old: torch.Tensor,
    prio: torch.Tensor,
    moves: torch.Tensor,
    greedy: bool,
    generator: torch.Generator,
    record: bool,
    matmul_threads: int,
) -> tuple[torch.Tensor, Activations | None, torch.Tensor]:
    """Agents choose one after another in priority order; each sees, in its claims channel,
    the cells the agents before it have just chosen to step to."""
    e, a = old.shape
    width = obs.shape[1]
    w = boards.window * boards.window
    shift = boards.side * boards.side
    rows3 = obs.view(e, a, width)
    mask3 = mask.view(e, a, -1)
    order = prio.argsort(1)  # (E', A): the agent of each rank
    ar = torch.arange(e)
    new = old.clone()
    logps, keeps, chosens = [], [], []
    for r in range(a):
        agent = order[:, r]
        rows = rows3[ar, agent]
        if r > 0:
            claimed = new.gather(1, order[:, :r])
            at = boards.lookup[claimed - old[ar, agent][:, None] + shift]
            flat = (ar * width)[:, None] + CHANNELS * w + at
            rows.view(-1).index_fill_(0, flat[at >= 0], 1.0)
            rows3[ar, agent] = rows
        m = mask3[ar, agent]
        parallel = matmul_threads if e >= PARALLEL_ROWS else 1
        with threads(parallel), torch.no_grad():
            if record:
                lp, kp = actor.forward_keeping(rows, m)
                keeps.append(kp)
            else:
                lp = actor(rows, m)
        ch = _choose(lp[:, :ACTIONS] if actor.free else lp, greedy, generator)
        new[ar, agent] = old[ar, agent] + moves[ch]
        logps.append(lp)
        chosens.append(ch)
    back = (prio * e + ar[:, None]).reshape(-1)  # row (episode, agent) in rank-major order
    logp = torch.cat(logps).index_select(0, back)
    chosen = torch.cat(chosens).index_select(0, back)
    kept = None
    if record:
        kept = Activations(
            [
                torch.cat([k.inputs[i] for k in keeps]).index_select(0, back)
                for i in range(len(keeps[0].inputs))
            ],
            torch.cat([k.logits for k in keeps]).index_select(0, back),
        )
    return logp, kept, chosen


def _progress(boards: Boards, final: torch.Tensor) -> torch.Tensor:
    """Mean over agents of the share of their BFS start distance they covered."""
    episodes = torch.arange(boards.episodes)
    start = boards.dist[own_cells(boards, episodes, boards.starts)]
    end = boards.dist[own_cells(boards, episodes, final)]  # BLOCKED (inf) after a fall: 0
    share = torch.where(start > 0, 1.0 - end / start.clamp(min=1.0), torch.ones_like(start))
    return share.clamp(0.0, 1.0).mean(1)


def _answers(
    boards: Boards, history: list[torch.Tensor], ends: torch.Tensor, slips: torch.Tensor | None
) -> list[str]:
    """Each episode's paths (t = 0..end) written in the prompt's answer format, each agent's
    line with its writing slip where the policy chose any (`writing.write_answer`).

    The text is exactly what `mapf_env.format_plan` writes (a test holds the two together),
    built from a table of ready-made cell strings indexed by flat cell: formatting each cell
    of ~10^6 per round anew, and converting (E, A, T) tensors to nested lists of tuples first,
    took longer than the rollout itself.
    """
    ids = torch.stack(history, 0).permute(1, 2, 0)  # (E, A, T+1) flat cells
    rows, cols = boards.rows_cols(torch.arange(boards.side * boards.side))
    cell = [f"({r},{c})" for r, c in zip(rows.tolist(), cols.tolist(), strict=True)]
    heads = [f"Agent {i}: " for i in range(1, boards.agents + 1)]
    out = []
    episodes = zip(ids.to(torch.int16).numpy().tolist(), ends.tolist(), strict=True)
    if slips is not None:
        for (paths, end), chosen in zip(episodes, slips.tolist(), strict=True):
            out.append(write_answer([path[: end + 1] for path in paths], chosen, cell))
        return out
    for paths, end in episodes:
        lines = [
            head + " ".join([cell[c] for c in path[: end + 1]])
            for head, path in zip(heads, paths, strict=True)
        ]
        out.append("\n".join(lines))
    return out
