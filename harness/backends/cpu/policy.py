"""The policy network: one MLP shared by every agent, over its own observation.

Sharing one network across agents (and across agent counts) is what lets a policy trained on
2-agent instances act in 5-agent ones: nothing in its input depends on how many agents exist
beyond what its window shows. Illegal moves get a logit of -inf, so they are never sampled and
carry no probability mass for the gradient or the KL to spend.

Training never runs this network twice on the same observations: a rollout keeps what the
forward pass computed (`Activations`), and the update turns the loss's gradient with respect to
the logits into parameter gradients with `accumulate_grad`, the backward pass of the same
Linear/ReLU stack written out as matrix products. Re-running the forward pass under autograd
(the usual way) cost about a fifth of a training round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from harness.backends.cpu.features import feature_size

ACTIONS = 5


@dataclass
class Activations:
    """What the backward pass needs from one forward pass, for N observations.

    `inputs[i]` is the input of the i-th Linear layer: the observations, then each hidden
    ReLU output; `logits` are the raw action scores (float32, before the legal-move mask).
    """

    inputs: list[torch.Tensor]
    logits: torch.Tensor


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
        return log_probs(self.net(obs).float(), mask)

    def linears(self) -> list[nn.Linear]:
        return [m for m in self.net if isinstance(m, nn.Linear)]

    def forward_keeping(
        self, obs: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, Activations]:
        """`forward`, and the activations `accumulate_grad` needs later (call without grad).

        The same operations in the same order as `forward`, so the log-probabilities are
        identical to it.
        """
        inputs = [obs]
        x = obs
        for module in self.net:
            x = module(x)
            if isinstance(module, nn.ReLU):
                inputs.append(x)
        logits = x.float()
        return log_probs(logits, mask), Activations(inputs, logits)

    def accumulate_grad(self, grad_logits: torch.Tensor, kept: Activations) -> None:
        """Add d(loss)/d(parameters) to each parameter's `.grad`, given d(loss)/d(logits).

        The backward pass of Linear -> ReLU -> ... -> Linear, as autograd would run it over a
        forward pass under the same autocast: each layer's products are taken in the dtype its
        input was kept in (bf16 under autocast, where the weights were cast to it too), and the
        gradients are accumulated in float32. A ReLU passes gradient where its output is > 0.
        """
        layers = self.linears()
        if len(layers) != len(kept.inputs) or len(self.net) != 2 * len(layers) - 1:
            raise ValueError("accumulate_grad expects the Linear/ReLU stack built in __init__")
        grad = grad_logits
        for i in reversed(range(len(layers))):
            layer, x = layers[i], kept.inputs[i]
            g = grad.to(x.dtype)
            _accumulate(layer.weight, g.t() @ x)
            _accumulate(layer.bias, g.sum(0))
            if i > 0:  # through the ReLU whose output x is: autograd's own fused kernel
                grad = torch.ops.aten.threshold_backward(g @ layer.weight.to(x.dtype), x, 0)


def log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-softmax over the legal actions (float32 logits), illegal ones at -inf."""
    return torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)


def _accumulate(param: torch.Tensor, grad: torch.Tensor) -> None:
    if param.grad is None:
        param.grad = grad.float()
    else:
        param.grad.add_(grad)


def concat(parts: Sequence[Activations]) -> Activations:
    """Activations of several forward passes, stacked in order (one pass: itself, no copy)."""
    if len(parts) == 1:
        return parts[0]
    layers = len(parts[0].inputs)
    return Activations(
        [torch.cat([p.inputs[i] for p in parts]) for i in range(layers)],
        torch.cat([p.logits for p in parts]),
    )


def parameter_count(policy: nn.Module) -> int:
    return sum(p.numel() for p in policy.parameters())
