"""Metrics files built the way verl writes them, from per-micro-batch losses computed here.

`micro_batch_losses` draws, for every rank, PPO epoch, mini-batch and micro-batch of a step
(verl's own split: ``ppo_mini_batch_size * n / world`` samples per rank and mini-batch, in
micro-batches of ``ppo_micro_batch_size_per_gpu``), a token-level loss matrix and mask, and
keeps each micro-batch's token mean (what verl 0.6.1 computes per micro-batch) and its sums
(what verl 0.9.1 normalises by the whole mini-batch). `logged_061` and `logged_091` then apply
each line's scaling and aggregation with the functions of an `Aggregation`: `Replica`, plain
Python written from verl's sources, or (``test_verl_loss_scale.py``) the installed verl's own.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from harness.backends.verl.settings import VerlSettings

TOKENS = 12  # response length of the drawn loss matrices


@dataclass(frozen=True, slots=True)
class MicroLoss:
    """One micro-batch of one rank: its token means and token sums."""

    rank: int
    epoch: int
    mini: int
    pg: float
    kl: float
    pg_sum: float
    kl_sum: float
    tokens: int
    matrices: tuple[Any, ...] = ()
    """(pg loss, kl, mask) as lists of rows: what verl's ``agg_loss`` is given."""


def micro_batch_losses(
    settings: VerlSettings, n: int, *, ppo_epochs: int, seed: int
) -> list[MicroLoss]:
    """Every micro-batch of one training step, as verl's actor splits the step."""
    rng = random.Random(seed)
    world = settings.n_gpus
    per_rank = settings.train_batch_size * n // world
    mini = settings.ppo_mini_batch_size * n // world  # fsdp_workers.py normalisation
    micro = settings.micro_batch_size_per_gpu
    out = []
    for rank in range(world):
        for epoch in range(ppo_epochs):
            for b in range(per_rank // mini):
                for _ in range(mini // micro):
                    out.append(_draw(rng, rank, epoch, b, micro))
    return out


def _draw(rng: random.Random, rank: int, epoch: int, mini: int, samples: int) -> MicroLoss:
    pg = [[rng.gauss(0.0, 1.0) for _ in range(TOKENS)] for _ in range(samples)]
    kl = [[abs(rng.gauss(0.0, 0.01)) for _ in range(TOKENS)] for _ in range(samples)]
    lengths = [rng.randint(1, TOKENS) for _ in range(samples)]
    mask = [[t < length for t in range(TOKENS)] for length in lengths]
    tokens = sum(lengths)
    pg_sum = _masked_sum(pg, mask)
    kl_sum = _masked_sum(kl, mask)
    return MicroLoss(rank, epoch, mini, pg_sum / tokens, kl_sum / tokens, pg_sum, kl_sum, tokens,
                     (pg, kl, mask))  # fmt: skip


def _masked_sum(values: list[list[float]], mask: list[list[bool]]) -> float:
    pairs = (zip(row, keep, strict=True) for row, keep in zip(values, mask, strict=True))
    return sum(v for row in pairs for v, k in row if k)


class Aggregation(Protocol):
    """The verl functions the two lines aggregate metrics with."""

    def append_to_dict(self, data: dict[str, Any], new: dict[str, Any]) -> None: ...
    def concat_ranks(self, per_rank: list[dict[str, Any]]) -> dict[str, Any]: ...
    def reduce_metrics(self, metrics: dict[str, Any]) -> dict[str, Any]: ...
    def summed(self, value: float) -> Any: ...
    def aggregate_dp(self, per_rank: list[Any]) -> float: ...


class Replica:
    """verl's aggregation in plain Python, from its sources (0.6.1 and 0.9.1)."""

    def append_to_dict(self, data: dict[str, Any], new: dict[str, Any]) -> None:
        """``verl.utils.py_functional.append_to_dict`` (0.9.1: Metrics merge into one)."""
        for key, value in new.items():
            if isinstance(value, _Summed):
                data.setdefault(key, _Summed([])).values.extend(value.values)
            else:
                data.setdefault(key, []).append(value)

    def concat_ranks(self, per_rank: list[dict[str, Any]]) -> dict[str, Any]:
        """``DataProto.concat``: each rank's metrics dict becomes one entry of a list."""
        return {key: [m[key] for m in per_rank] for key in per_rank[0]}

    def reduce_metrics(self, metrics: dict[str, Any]) -> dict[str, Any]:
        """``verl.utils.metric.reduce_metrics``: np.mean (keys here hold no max/min)."""
        return {key: float(np.mean(value)) for key, value in metrics.items()}

    def summed(self, value: float) -> Any:
        """0.9.1's ``Metric(value, aggregation=SUM)``."""
        return _Summed([value])

    def aggregate_dp(self, per_rank: list[Any]) -> float:
        """0.9.1's ``Metric.aggregate_dp``: the mean over ranks, summed over micro-batches."""
        values = np.array([m.values for m in per_rank])
        return float(np.sum(np.mean(values, axis=0)))


@dataclass
class _Summed:
    values: list[float]


def logged_061(
    losses: Sequence[MicroLoss], settings: VerlSettings, n: int, agg: Aggregation
) -> dict[str, float]:
    """A step's ``actor/pg_loss`` and ``actor/kl_loss`` as verl 0.6.1 logs them:
    ``dp_actor.update_policy`` stores each micro-batch's loss times ``1 / gradient_accumulation``,
    ``update_actor`` returns the lists per rank, the trainer concatenates and reduces them."""
    accumulation = settings.ppo_mini_batch_size * n // settings.n_gpus
    accumulation //= settings.micro_batch_size_per_gpu
    per_rank = []
    for rank in range(settings.n_gpus):
        metrics: dict[str, Any] = {}
        for m in (m for m in losses if m.rank == rank):
            scale = 1 / accumulation  # loss_scale_factor
            agg.append_to_dict(
                metrics, {"actor/pg_loss": m.pg * scale, "actor/kl_loss": m.kl * scale}
            )
        per_rank.append(metrics)
    return agg.reduce_metrics(agg.concat_ranks(per_rank))


def logged_091(
    losses: Sequence[MicroLoss], settings: VerlSettings, n: int, agg: Aggregation
) -> tuple[dict[str, float], MicroLoss]:
    """A step's losses as verl 0.9.1 logs them, and the true values (pg, kl of the result):
    ``ppo_loss`` divides each micro-batch's token sum by the mini-batch's tokens over all ranks
    times the ranks, marked for summing; ``train_mini_batch`` takes ``aggregate_dp`` per
    mini-batch; the trainer averages over mini-batches. True: each mini-batch's token mean."""
    world = settings.n_gpus
    groups = sorted({(m.epoch, m.mini) for m in losses})
    step: dict[str, Any] = {}
    true_pg, true_kl = [], []
    for epoch, mini in groups:
        batch = [m for m in losses if (m.epoch, m.mini) == (epoch, mini)]
        tokens = sum(m.tokens for m in batch)  # batch_num_tokens, all-reduced over ranks
        true_pg.append(sum(m.pg_sum for m in batch) / tokens)
        true_kl.append(sum(m.kl_sum for m in batch) / tokens)
        per_rank = []
        for rank in range(world):
            metrics: dict[str, Any] = {}
            for m in (m for m in batch if m.rank == rank):
                pg, kl = m.pg_sum / tokens * world, m.kl_sum / tokens * world  # agg_loss
                agg.append_to_dict(metrics, {"pg_loss": agg.summed(pg), "kl_loss": agg.summed(kl)})
            per_rank.append(metrics)
        agg.append_to_dict(step, {f"actor/{key}": agg.aggregate_dp([r[key] for r in per_rank])
                                  for key in ("pg_loss", "kl_loss")})  # fmt: skip
    true = MicroLoss(0, 0, 0, float(np.mean(true_pg)), float(np.mean(true_kl)), 0.0, 0.0, 0)
    return agg.reduce_metrics(step), true


def file_logger_061(path: Path, steps: Sequence[tuple[int, dict[str, Any]]]) -> None:
    """verl 0.6.1's ``FileLogger``: ``open(path, "w")``, ``json.dumps({"step", "data"})``."""
    with open(path, "w") as f:
        for step, data in steps:
            f.write(json.dumps({"step": step, "data": data}) + "\n")


def file_logger_091(path: Path, steps: Sequence[tuple[int, dict[str, Any]]]) -> None:
    """verl 0.9.1's ``FileLogger``: unbuffered bytes of ``orjson.dumps``, which writes a NaN
    as null (json here, NaN mapped the same way)."""
    with open(path, "wb", buffering=0) as f:
        for step, data in steps:
            clean = {
                k: None if isinstance(v, float) and math.isnan(v) else v for k, v in data.items()
            }
            f.write(json.dumps({"step": step, "data": clean}).encode() + b"\n")
