"""The loss curves at their true scale, through the installed verl's own functions.

`test_curves.py` checks the same with plain-Python replicas of verl's aggregation; here the
per-micro-batch losses go through the installed line's ``agg_loss``, ``append_to_dict``,
``DataProto.concat`` (0.6.1) or ``Metric`` (0.9.1), ``reduce_metrics`` and ``FileLogger``, so
a verl release that aggregates otherwise fails here, in the verl CI jobs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from verl.trainer.ppo.core_algos import agg_loss
from verl.utils import py_functional
from verl.utils.metric import reduce_metrics
from verl.utils.tracking import FileLogger

from harness.backends.verl.curves import RoundCurves, logged_loss_scale
from harness.backends.verl.versions import VerlLine
from tests.harness.verl.cases import MAPF_FEED
from tests.harness.verl.loss_logs import MicroLoss, logged_061, logged_091, micro_batch_losses
from tests.harness.verl.test_curves import PLAN, SETTINGS, N


class Installed:
    """`loss_logs.Aggregation` with the installed verl's functions."""

    def append_to_dict(self, data: dict[str, Any], new: dict[str, Any]) -> None:
        py_functional.append_to_dict(data, new)

    def concat_ranks(self, per_rank: list[dict[str, Any]]) -> dict[str, Any]:
        from verl.protocol import DataProto

        parts = [DataProto(meta_info={"metrics": metrics}) for metrics in per_rank]
        return dict(DataProto.concat(parts).meta_info["metrics"])

    def reduce_metrics(self, metrics: dict[str, Any]) -> dict[str, Any]:
        return {key: float(value) for key, value in reduce_metrics(metrics).items()}

    def summed(self, value: float) -> Any:
        from verl.utils.metric import AggregationType, Metric

        return Metric(aggregation=AggregationType.SUM, value=value)

    def aggregate_dp(self, per_rank: list[Any]) -> float:
        from verl.utils.metric import Metric

        return float(Metric.aggregate_dp(per_rank))


def _tensors(m: MicroLoss) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    pg, kl, mask = m.matrices
    return torch.tensor(pg), torch.tensor(kl), torch.tensor(mask, dtype=torch.float32)


def test_verls_own_micro_batch_losses_are_the_drawn_ones(verl_line: VerlLine) -> None:
    """The drawn token means (0.6.1) and globally normalised sums (0.9.1) are what this verl's
    ``agg_loss`` computes from the same matrices."""
    losses = micro_batch_losses(SETTINGS, N, ppo_epochs=1, seed=3)
    for m in losses[:4]:
        pg, kl, mask = _tensors(m)
        if verl_line == "0.6":
            assert agg_loss(pg, mask, "token-mean").item() == pytest.approx(m.pg)
            assert agg_loss(kl, mask, "token-mean").item() == pytest.approx(m.kl)
        else:
            batch = [x for x in losses if (x.epoch, x.mini) == (m.epoch, m.mini)]
            tokens = sum(x.tokens for x in batch)
            world = SETTINGS.n_gpus
            value = agg_loss(pg, mask, "token-mean", dp_size=world, batch_num_tokens=tokens)
            assert value.item() == pytest.approx(m.pg_sum / tokens * world)


def test_the_installed_verls_metrics_file_reads_at_the_true_scale(
    verl_line: VerlLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    losses = micro_batch_losses(SETTINGS, N, ppo_epochs=2, seed=4)
    if verl_line == "0.6":
        logged = logged_061(losses, SETTINGS, N, Installed())
        true = (sum(m.pg for m in losses) / len(losses), sum(m.kl for m in losses) / len(losses))
    else:
        logged, micro = logged_091(losses, SETTINGS, N, Installed())
        true = (micro.pg, micro.kl)
    read = RoundCurves(tmp_path, MAPF_FEED, steps_before=0, running=lambda: 0.0,
                       loss_scale=logged_loss_scale(verl_line, PLAN))  # fmt: skip
    read.metrics_dir.mkdir()
    monkeypatch.setenv("VERL_FILE_LOGGER_PATH", str(read.metrics_file(1)))
    logger = FileLogger("project", "experiment")
    logger.log(data={**logged, "critic/score/mean": 0.5}, step=1)
    logger.finish()
    (step,) = read.poll(1)
    assert (step.loss, step.kl) == pytest.approx(true)
