"""Observation encoding: what one agent sees at one time step, for all agents at once.

Each agent sees a `window` x `window` egocentric patch (7x7 by default) with seven channels:

0. blocked -- a hole or off the grid (the grid is padded with blocked cells);
1. other agents that move before it in this episode's random priority order;
2. other agents that move after it;
3. its own goal;
4. the other agents' goals;
5. parked agents -- other agents resting on their own goal;
6. the BFS distance-to-goal field, relative to its own cell (clipped to +-3, blocked = +1).

plus scalars: goal offset, own BFS distance, time used, map size, its priority rank and whether
it is on its goal. The BFS channel is what made learning fast: the network needs only to learn
"go downhill unless someone is in the way". The random priority order breaks the symmetry of
identical agents that would otherwise mirror each other into conflicts, and it lets a policy
trained on 2 agents rank any number of them.

Actions are WAIT, up, down, left, right; moves into a hole or off the grid are masked out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from mapf_env import HOLE, Instance

CHANNELS = 7
SCALARS = 8
MAX_PRIORITY = 8.0
UNREACHABLE = 1000.0
MOVES = torch.tensor([[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]], dtype=torch.long)
"""Row/column change of each action: WAIT, up, down, left, right."""


def feature_size(window: int) -> int:
    return CHANNELS * window * window + SCALARS


def bfs_distances(instance: Instance, goal: tuple[int, int]) -> list[list[float]]:
    """Shortest-path distance from every cell to `goal` around holes (UNREACHABLE if none)."""
    n = instance.size
    dist = [[UNREACHABLE] * n for _ in range(n)]
    dist[goal[0]][goal[1]] = 0.0
    queue = deque([goal])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr, nc = r + dr, c + dc
            if (
                0 <= nr < n
                and 0 <= nc < n
                and instance.grid[nr][nc] != HOLE
                and dist[nr][nc] == UNREACHABLE
            ):
                dist[nr][nc] = dist[r][c] + 1.0
                queue.append((nr, nc))
    return dist


@dataclass(frozen=True)
class Boards:
    """The static part of E episodes with A agents each, padded by `pad` blocked cells.

    Cells are addressed in padded coordinates (row + pad, col + pad) so a window never leaves
    the tensor. Episodes repeat instances (n samples per instance), so the tensors are built per
    instance and indexed, never copied per sample.
    """

    pad: int
    side: int
    blocked: torch.Tensor  # (E, side, side) float, 1 = hole or off-grid
    dist: torch.Tensor  # (E, A, side, side) float, BFS distance to agent's goal
    starts: torch.Tensor  # (E, A, 2) long, padded coordinates
    goals: torch.Tensor  # (E, A, 2) long, padded coordinates
    size: torch.Tensor  # (E,) float
    horizon: torch.Tensor  # (E,) long

    @property
    def episodes(self) -> int:
        return int(self.blocked.shape[0])

    @property
    def agents(self) -> int:
        return int(self.starts.shape[1])


def horizon_of(instance: Instance, factor: float) -> int:
    """A step cap: `factor` x the optimal makespan (or 2 x size when unknown), plus 2."""
    bound = instance.optimum.makespan if instance.optimum is not None else 2 * instance.size
    return int(factor * max(bound, 1)) + 2


def build_boards(
    instances: Sequence[Instance], repeat: int, window: int, horizon_factor: float
) -> Boards:
    """Boards for each instance repeated `repeat` times (episode e is instance e // repeat)."""
    pad = window // 2
    side = max(i.size for i in instances) + 2 * pad
    count = len(instances)
    agents = instances[0].n_agents
    if any(i.n_agents != agents for i in instances):
        raise ValueError("build_boards needs instances with one agent count; group them first")
    blocked = torch.ones(count, side, side)
    dist = torch.full((count, agents, side, side), UNREACHABLE)
    for k, inst in enumerate(instances):
        n = inst.size
        rows = [[1.0 if ch == HOLE else 0.0 for ch in row] for row in inst.grid]
        blocked[k, pad : pad + n, pad : pad + n] = torch.tensor(rows)
        for a, goal in enumerate(inst.goals):
            dist[k, a, pad : pad + n, pad : pad + n] = torch.tensor(bfs_distances(inst, goal))
    starts = torch.tensor([list(i.starts) for i in instances], dtype=torch.long) + pad
    goals = torch.tensor([list(i.goals) for i in instances], dtype=torch.long) + pad
    sizes = torch.tensor([float(i.size) for i in instances])
    horizons = torch.tensor([horizon_of(i, horizon_factor) for i in instances], dtype=torch.long)
    index = torch.arange(count).repeat_interleave(repeat)
    return Boards(
        pad,
        side,
        blocked[index],
        dist[index],
        starts[index],
        goals[index],
        sizes[index],
        horizons[index],
    )


def window_offsets(window: int) -> torch.Tensor:
    """(window^2, 2) row/col offsets of the egocentric patch, row-major."""
    r = window // 2
    span = torch.arange(-r, r + 1)
    return torch.stack(torch.meshgrid(span, span, indexing="ij"), dim=-1).reshape(-1, 2)


def _match(cells: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
    """(E, A, W) cells vs (E, B, ...) points -> (E, A, B, W) bool: cell equals point."""
    return cells[:, :, None, :] == points[:, None, :, None]


def _agent_channels(
    flat: torch.Tensor, pos_flat: torch.Tensor, goal_flat: torch.Tensor, prio: torch.Tensor
) -> list[torch.Tensor]:
    """Channels 1-5: agents before / after in priority, own goal, other goals, parked agents.

    `flat` (E', A, W) are the window cells, `pos_flat` / `goal_flat` (E', A) the agents' cells
    and goals, all as flat padded indices.
    """
    a = pos_flat.shape[1]
    other = ~torch.eye(a, dtype=torch.bool)[None, :, :, None]  # (1, A, B, 1)
    at_agent = _match(flat, pos_flat) & other  # (E', A, B, W)
    before = (prio[:, None, :] < prio[:, :, None])[..., None]  # B ranks before A
    parked = (pos_flat == goal_flat)[:, None, :, None]
    at_goal = _match(flat, goal_flat)
    return [
        (at_agent & before).any(2).float(),
        (at_agent & ~before).any(2).float(),
        (at_goal & ~other).any(2).float(),
        (at_goal & other).any(2).float(),
        (at_agent & parked).any(2).float(),
    ]


def observe(
    boards: Boards,
    episodes: torch.Tensor,
    pos: torch.Tensor,
    prio: torch.Tensor,
    t: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Observations (E'*A, F) and legal-action masks (E'*A, 5) of the listed episodes.

    `pos` (E', A, 2) are padded coordinates, `prio` (E', A) the priority rank of each agent.
    """
    e, a = pos.shape[0], pos.shape[1]
    side = boards.side
    window = 2 * boards.pad + 1
    offsets = window_offsets(window)
    cells = pos[:, :, None, :] + offsets[None, None]  # (E', A, W, 2)
    flat = cells[..., 0] * side + cells[..., 1]  # (E', A, W)
    blocked = boards.blocked[episodes].reshape(e, 1, side * side).expand(e, a, side * side)
    blocked_w = torch.gather(blocked, 2, flat)
    dist = boards.dist[episodes].reshape(e, a, side * side)
    dist_w = torch.gather(dist, 2, flat)
    own_flat = pos[..., 0] * side + pos[..., 1]
    own_dist = torch.gather(dist, 2, own_flat[..., None])  # (E', A, 1)
    rel = ((dist_w - own_dist).clamp(-3.0, 3.0) / 3.0).masked_fill(blocked_w > 0, 1.0)

    goals = boards.goals[episodes]
    goal_flat = goals[..., 0] * side + goals[..., 1]
    chans = [blocked_w, *_agent_channels(flat, own_flat, goal_flat, prio), rel]
    patch = torch.stack(chans, dim=2).reshape(e, a, -1)
    scalars = _scalars(boards, episodes, pos, goals, own_dist, prio, t)
    obs = torch.cat([patch, scalars], dim=2).reshape(e * a, -1)
    centre = window * window // 2
    neighbours = torch.tensor([centre, centre - window, centre + window, centre - 1, centre + 1])
    mask = blocked_w[:, :, neighbours] == 0
    return obs, mask.reshape(e * a, 5)


def _scalars(
    boards: Boards,
    episodes: torch.Tensor,
    pos: torch.Tensor,
    goals: torch.Tensor,
    own_dist: torch.Tensor,
    prio: torch.Tensor,
    t: int,
) -> torch.Tensor:
    e, a = pos.shape[0], pos.shape[1]
    size = boards.size[episodes][:, None, None].expand(e, a, 1)
    horizon = boards.horizon[episodes].float()[:, None, None].expand(e, a, 1)
    offset = (goals - pos).float() / 10.0
    on_goal = (goals == pos).all(-1, keepdim=True).float()
    return torch.cat(
        [
            offset,
            own_dist.clamp(max=30.0) / 10.0,
            torch.full_like(size, float(t)) / horizon,
            size / 10.0,
            prio[..., None].float() / MAX_PRIORITY,
            on_goal,
            torch.full_like(size, float(a)) / MAX_PRIORITY,
        ],
        dim=2,
    )
