"""The GRPO reward for one response: correctness first, concision as the policy earns it.

The paper's reward has an accuracy term (1 only when all eight checks pass) and a length term
against redundant output, mixed by a weight that moves from concision toward correctness as the
policy improves; it does not publish the formula. This module's formula, with every coefficient
in `RewardConfig`::

    accuracy = 0                                        if the answer is invalid
             = 1                                        if optimal, or valid with no optimum known
             = clip(1 - gap_coef * (cost - opt) / max(opt, 1), valid_floor, 1)   otherwise

    L        = n_tokens if the caller knows it, else ceil(len(response) / chars_per_token)
    length   = 1                                        if L <= budget_tokens
             = max(0, 1 - (L - B) / ((zero_multiple - 1) * B))   otherwise (B = budget_tokens)
    length   = 0 unless the response passes `length_gate` (default: it is parsable)

    w        = w_min + (w_max - w_min) * clip(valid_rate, 0, 1)
    total    = w * accuracy + (1 - w) * length                  (always in [0, 1])

Why these shapes:

* Accuracy grades valid-but-costlier plans by their relative cost gap, so GRPO can rank two
  valid answers in one group; ``valid_floor`` keeps any valid plan well above every invalid one.
  ``gap_coef = 0`` recovers the paper's binary accuracy (valid -> 1).
* Length is linear between the budget and ``zero_multiple`` budgets, so each redundant token
  costs the same; it is measured on the whole response, reasoning included, because that is
  what the paper's length term shrank (about 7,464 -> 622 tokens). Characters / 4 approximates
  Qwen-style tokenizers on this mostly-ASCII output; pass ``n_tokens`` when the trainer has
  the real count (verl does: ``valid_response_length``).
* The length term is gated on the answer being parsable: an ungated length term would pay an
  empty reply ``1 - w`` and teach the policy to say nothing.
* ``valid_rate`` is the trainer's running valid rate (`envdesign_common.RunningValidRate`):
  early on, when the base model rambles past the response limit, concision weighs most; as
  answers become valid, the weight moves to correctness.

`reward` never raises on any response string. The one error it lets through is the verifier's
`AnswerKeyError` (a valid plan cheaper than the recorded optimum), which is a broken instance,
not a bad response, and must stop the run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mapf_env.instance import Instance
from mapf_env.verifier import FailureType, Verdict, verify

__all__ = [
    "DEFAULT_CONFIG",
    "RewardBreakdown",
    "RewardConfig",
    "accuracy_weight",
    "reward",
]


class RewardConfig(BaseModel):
    """Every coefficient of the reward; the formula is in this module's docstring."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gap_coef: float = Field(
        default=1.0,
        ge=0.0,
        description="Accuracy lost per unit of relative cost gap (cost - opt) / opt; 0 = binary.",
    )
    valid_floor: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="Least accuracy a valid plan gets, however costly.",
    )
    budget_tokens: int = Field(
        default=1024,
        gt=0,
        description="Response length (tokens) that earns the full length term.",
    )
    zero_multiple: float = Field(
        default=4.0,
        gt=1.0,
        description="Length term reaches 0 at this multiple of budget_tokens.",
    )
    chars_per_token: float = Field(
        default=4.0,
        gt=0.0,
        description="Characters per token when the caller gives no token count; 1 = characters.",
    )
    length_gate: Literal["any", "parsed", "valid"] = Field(
        default="parsed",
        description="Which responses may earn the length term: all, parsable ones, valid ones.",
    )
    w_min: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="Accuracy weight at valid rate 0 (the rest goes to the length term).",
    )
    w_max: float = Field(
        default=0.95,
        ge=0.0,
        le=1.0,
        description="Accuracy weight at valid rate 1.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> RewardConfig:
        if self.w_min > self.w_max:
            raise ValueError(
                f"w_min ({self.w_min}) must not exceed w_max ({self.w_max}): the weight moves "
                "toward correctness as the valid rate rises"
            )
        return self


DEFAULT_CONFIG = RewardConfig()


@dataclass(frozen=True, slots=True)
class RewardBreakdown:
    """The reward's named terms and the verdict behind them.

    A slots dataclass for the same reason as `Verdict`: one per rollout, all fields computed.
    """

    accuracy: float
    length: float
    accuracy_weight: float
    total: float
    response_tokens: int
    """The length L the length term saw (real tokens if given, else approximated)."""
    verdict: Verdict

    @property
    def valid(self) -> bool:
        return self.verdict.valid

    @property
    def optimal(self) -> bool | None:
        return self.verdict.optimal

    @property
    def failure(self) -> FailureType | None:
        return self.verdict.failure

    def as_dict(self) -> dict[str, float]:
        """Flat floats for logging, with the same keys for every response.

        ``score`` repeats ``total`` because verl's reward managers read the reward from that key
        of a dict-valued score and log the other keys; ``fail_<type>`` one-hots average into
        failure rates over a batch.
        """
        out = {
            "score": self.total,
            "total": self.total,
            "accuracy": self.accuracy,
            "length": self.length,
            "accuracy_weight": self.accuracy_weight,
            "response_tokens": float(self.response_tokens),
            "valid": float(self.verdict.valid),
            "optimal": float(self.verdict.optimal is True),
        }
        failure = self.verdict.failure
        for kind in FailureType:
            out[f"fail_{kind.value}"] = float(failure is kind)
        return out


def _accuracy(verdict: Verdict, config: RewardConfig) -> float:
    if not verdict.valid:
        return 0.0
    opt, cost = verdict.optimal_cost, verdict.cost
    if verdict.optimal is not False or opt is None or cost is None:
        return 1.0  # optimal, or valid with nothing to compare against
    gap = (cost - opt) / max(opt, 1)
    return min(1.0, max(config.valid_floor, 1.0 - config.gap_coef * gap))


def _length(tokens: int, verdict: Verdict, config: RewardConfig) -> float:
    gate = config.length_gate
    if (gate == "parsed" and verdict.failure is FailureType.PARSE) or (
        gate == "valid" and not verdict.valid
    ):
        return 0.0
    budget = config.budget_tokens
    if tokens <= budget:
        return 1.0
    return max(0.0, 1.0 - (tokens - budget) / ((config.zero_multiple - 1.0) * budget))


def accuracy_weight(valid_rate: float, config: RewardConfig = DEFAULT_CONFIG) -> float:
    """Weight of the accuracy term; a NaN or out-of-range rate is clipped, never trusted."""
    rate = 0.0 if math.isnan(valid_rate) else min(1.0, max(0.0, valid_rate))
    return config.w_min + (config.w_max - config.w_min) * rate


def reward(
    instance: Instance,
    response: str,
    config: RewardConfig | None = None,
    valid_rate: float = 0.0,
    *,
    n_tokens: int | None = None,
) -> RewardBreakdown:
    """Score one response; `valid_rate` is the trainer's running valid rate in [0, 1]."""
    cfg = DEFAULT_CONFIG if config is None else config
    verdict = verify(instance, response)
    tokens = (
        max(0, n_tokens) if n_tokens is not None else math.ceil(len(response) / cfg.chars_per_token)
    )
    acc = _accuracy(verdict, cfg)
    length = _length(tokens, verdict, cfg)
    w = accuracy_weight(valid_rate, cfg)
    total = w * acc + (1.0 - w) * length
    return RewardBreakdown(acc, length, w, total, tokens, verdict)
