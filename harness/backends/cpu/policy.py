"""The policy network: one MLP shared by every agent, over its own observation.

Sharing one network across agents (and across agent counts) is what lets a policy trained on
2-agent instances act in 5-agent ones: nothing in its input depends on how many agents exist
beyond what its window shows. Illegal moves get a logit of -inf, so they are never sampled and
carry no probability mass for the gradient or the KL to spend.

The free learner's policy (``free=True``) masks nothing. A move into a hole or off the grid
keeps its logit plus `fall`: one learned offset shared by every such move, which starts at
`fall_logit` (-2 by default). A fresh network's logits hardly depend on what it sees (they
differ by about 0.1 between moves, the same in every state), so with no offset a fresh policy
walks whichever way its largest bias points and falls in on about three answers in four,
which hides every failure the verifier checks later (*illegal_move*, *conflict*, *goal*). At
-2 about half of a fresh policy's sampled answers fall in and the other failures show beside
them; its greedy answers do not fall in at first. Adam moves one scalar by about the learning
rate a step at most, so `fall` stays mostly a prior: the network, which sees the blocked
cells, learns the rest (greedy answers fell into a hole on 4.5-5.5% of the validation set after one
paper-budget round, and on none after two, seeds 0-2). The network also has `SLIPS` more outputs:
the writing head, whose softmax (separate from the moves') picks how each agent's line is
written (`writing.Slip`), read once per agent off its first observation. It shares the trunk
with the moves, as an LLM writes its format with the same weights that plan, and starts with
the writing logits' weights at zero and their bias at the chosen slip rate, so a fresh policy
slips at exactly that rate.

Training never runs this network twice on the same observations: a rollout keeps what the
forward pass computed (`Activations`), and the update turns the loss's gradient with respect to
the logits into parameter gradients with `accumulate_grad`, the backward pass of the same
Linear/ReLU stack written out as matrix products. Re-running the forward pass under autograd
(the usual way) cost about a fifth of a training round.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from harness.backends.cpu import products
from harness.backends.cpu.features import feature_size
from harness.backends.cpu.writing import SLIPS, Slip

ACTIONS = 5


@dataclass
class Activations:
    """What the backward pass needs from one forward pass, for N observations.

    `inputs[i]` is the input of the i-th Linear layer: the observations, then each hidden
    ReLU output; `logits` are the network's raw action scores (float32, before the legal-move
    mask), then the writing head's where the network has one.
    """

    inputs: list[torch.Tensor]
    logits: torch.Tensor


class AgentPolicy(nn.Module):
    """Observation -> 5 action logits (WAIT, up, down, left, right); with `free`, the writing
    head's `SLIPS` logits after them (see the module docstring). With `in_turn` it reads the
    claims channel too (`features`): its rollouts decide in priority order."""

    def __init__(
        self,
        window: int,
        hidden: tuple[int, ...],
        *,
        free: bool = False,
        slip_rate: float = 0.03,
        fall_logit: float = -2.0,
        in_turn: bool = False,
    ) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = feature_size(window, claims=in_turn)
        for h in hidden:
            layers += [Linear(width, h), nn.ReLU()]
            width = h
        out = Linear(width, ACTIONS + (SLIPS if free else 0))
        if free:
            with torch.no_grad():
                out.weight[ACTIONS:] = 0.0
                out.bias[ACTIONS:] = initial_slip_logits(slip_rate)
        layers.append(out)
        self.net = nn.Sequential(*layers)
        self.free = free
        self.in_turn = in_turn
        if free:
            self.fall = nn.Parameter(torch.tensor(float(fall_logit)))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Log-probabilities (float32) of the moves (and slips): see `log_probs`."""
        return self.log_probs(self.net(obs).float(), mask)

    def log_probs(self, logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The network's raw `logits` as log-probabilities; `mask` marks the legal moves.

        Masked: illegal moves at -inf (`log_probs`). Free: `mask` is not used, every move
        keeps its probability, and the writing head's columns get a log-softmax of their own.
        """
        if not self.free:
            return log_probs(logits, mask)
        moves = logits[:, :ACTIONS] + self.fall.float() * (~mask)
        writing = logits[:, ACTIONS:]
        return torch.cat([torch.log_softmax(moves, -1), torch.log_softmax(writing, -1)], -1)

    def head_parameters(self) -> list[nn.Parameter]:
        """Parameters `log_probs` applies after the network (the free policy's `fall`), whose
        gradients the update takes by autograd beside `accumulate_grad`'s."""
        return [self.fall] if self.free else []

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
        return self.log_probs(logits, mask), Activations(inputs, logits)

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
            accumulate(layer.weight, product(g.t(), x))
            accumulate(layer.bias, g.sum(0))
            if i > 0:  # through the ReLU whose output x is: autograd's own fused kernel
                grad = torch.ops.aten.threshold_backward(product(g, layer.weight.to(x.dtype)), x, 0)


class Linear(nn.Linear):
    """`nn.Linear` whose float32 products are `products.linear`'s, the same bits on every
    x86-64 CPU with AVX2 and any thread count (see `harness.backends.cpu.products`); bf16
    (autocast or bf16 weights) stays with torch. Its parameters and state dict are nn.Linear's."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if in_fp32(x, self.weight):
            return products.linear(x, self.weight, self.bias)
        return super().forward(x)


def in_fp32(x: torch.Tensor, weight: torch.Tensor) -> bool:
    """Whether a product of `x` and `weight` is computed in float32 (not autocast to bf16)."""
    return (
        x.dtype == torch.float32
        and weight.dtype == torch.float32
        and not torch.is_autocast_enabled("cpu")
    )


def product(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` of the backward pass: `products.matmul` in float32, torch's in bf16."""
    return products.matmul(a, b) if in_fp32(a, b) else a @ b


def log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-softmax over the legal actions (float32 logits), illegal ones at -inf: the masked
    policy's `AgentPolicy.log_probs`."""
    return torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)


def probabilities(logp: torch.Tensor) -> torch.Tensor:
    """exp(`logp`) for log-probabilities normalised over the last dimension, by softmax.

    Not ``logp.exp()``: torch hands the float32 exp of contiguous memory to MKL's vector math
    library, whose kernels are chosen by CPU vendor and instruction set and are not correctly
    rounded, so the same seed would sample other actions on another CPU. Softmax runs ATen's
    own vectorised exp, pinned with the rest of ATen (`run_records.pin_cpu_kernels`); the
    normalisation it adds changes nothing but rounding, since the row already sums to one.
    `harness.backends.cpu.vendor_kernels` lists what must not be called and why.
    """
    return torch.softmax(logp, dim=-1)


def initial_slip_logits(slip_rate: float) -> torch.Tensor:
    """Writing-head bias whose softmax is `slip_rate` for each slip, the rest for none.

    The logarithms are Python's (the C library's, the same code on every x86-64 CPU with
    FMA), not torch's, which would go to MKL's vector math (see `probabilities`).
    """
    if not 0.0 < slip_rate * (SLIPS - 1) < 1.0:
        raise ValueError(
            f"slip_rate {slip_rate} leaves no room for correct lines: use a value in (0, 0.2)"
        )
    probs = [slip_rate] * SLIPS
    probs[Slip.NONE] = 1.0 - slip_rate * (SLIPS - 1)
    return torch.tensor([math.log(p) for p in probs], dtype=torch.float32)


def accumulate(param: torch.Tensor, grad: torch.Tensor) -> None:
    """Add `grad` to `param.grad` (float32), creating it on the first call of a step."""
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
