"""The policy network: one MLP shared by every agent, over its own observation.

Sharing one network across agents (and across agent counts) is what lets a policy trained on
2-agent instances act in 5-agent ones: nothing in its input depends on how many agents exist
beyond what its window shows. Illegal moves get a logit of -inf, so they are never sampled and
carry no probability mass for the gradient or the KL to spend.
"""

from __future__ import annotations

import torch
from torch import nn

from harness.backends.cpu.features import feature_size

ACTIONS = 5


class AgentPolicy(nn.Module):
    """Observation -> 5 action logits (WAIT, up, down, left, right)."""

    def __init__(self, window: int, hidden: tuple[int, ...]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = feature_size(window)
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, ACTIONS))
        self.net = nn.Sequential(*layers)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Log-probabilities (float32) with illegal actions at -inf."""
        logits = self.net(obs).float()
        logits = logits.masked_fill(~mask, float("-inf"))
        return torch.log_softmax(logits, dim=-1)


def parameter_count(policy: nn.Module) -> int:
    return sum(p.numel() for p in policy.parameters())
