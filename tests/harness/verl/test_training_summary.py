"""The verl backend's round summary, from what verl 0.6.1 writes (the stand-in `fake_verl.py`).

The summary must agree with verl's own files: the file logger's metrics (reward, KL, policy
loss), the rollout dumps (valid rate, and the accuracy weight the reward function computed)
and the reward kwargs the trainer was started with (the round's valid rate).
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import fmean
from typing import Any, cast

import pytest

from harness.backends.verl.backend import VerlBackend
from mapf_env import Instance
from run_records import TrainingSummary
from tests.harness.verl.test_orchestration import (
    SMALL,
    STEPS,
    calls,
    experiment,
    fake_logs,
    runtime,
)


@pytest.fixture(autouse=True)
def _no_scripted_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_logs(tmp_path, monkeypatch)


def backend(tmp_path: Path, **verl: Any) -> VerlBackend:
    section = cast(dict[str, Any], SMALL["verl"])
    exp = experiment(verl={**section, "keep_rollouts": True, **verl})
    return VerlBackend(exp, tmp_path / "run" / "self" / "seed-0", runtime())


def metrics(backend: VerlBackend, n: int) -> list[dict[str, float]]:
    path = backend.round_dir(n) / "metrics" / "attempt-1.jsonl"
    return [json.loads(line)["data"] for line in path.read_text().splitlines()]


def dumped(backend: VerlBackend, n: int, key: str, step: str = "*") -> list[float]:
    """The values of `key` the reward function returned in round `n` (its rollout dumps), at
    verl step `step` or at every step."""
    paths = (backend.round_dir(n) / "rollouts").glob(f"{step}.jsonl")
    return [json.loads(line)[key] for path in paths for line in path.read_text().splitlines()]


def train(backend: VerlBackend, data: tuple[Instance, ...]) -> TrainingSummary:
    summary = backend.train_round(data, epochs=2, seed=3).summary
    assert summary is not None
    return summary


def test_two_rounds_are_summarised_from_verls_metrics_and_dumps(
    tmp_path: Path, data: tuple[Instance, ...]
) -> None:
    verl = backend(tmp_path)
    first, second = train(verl, data), train(verl, data)
    logged = metrics(verl, 0)
    assert first.steps == len(logged) == STEPS
    assert (first.epochs, first.samples, first.group_size) == (2, 16, 2)
    assert (first.learning_rate, first.kl_coef) == (2e-6, 1e-3)
    assert {m["actor/lr"] for m in logged} == {first.learning_rate}  # what verl was given
    assert first.reward_mean == pytest.approx(fmean(m["critic/score/mean"] for m in logged))
    scale = verl.plan(len(data)).grad_accumulation  # verl 0.6.1 logs the losses scaled down
    assert (first.kl_end, first.policy_loss_end) == pytest.approx(
        (logged[-1]["actor/kl_loss"] * scale, logged[-1]["actor/pg_loss"] * scale))  # fmt: skip
    assert first.valid_rate_start == fmean(dumped(verl, 0, "valid", step="1"))
    assert first.valid_rate_end == fmean(dumped(verl, 0, "valid", step=str(STEPS)))
    # the reward's weight: what the trainer was started with and the reward function computed
    for n, summary in enumerate((first, second)):
        assert summary.reward_valid_rate == calls(verl, n)[0]["valid_rate"]
        weights = dumped(verl, n, "accuracy_weight")
        assert weights and weights == pytest.approx([summary.accuracy_weight] * len(weights))
    assert first.reward_valid_rate == 0.0 < second.reward_valid_rate
    assert second.accuracy_weight > first.accuracy_weight


def test_a_kl_in_the_reward_is_read_from_its_own_key(
    tmp_path: Path, data: tuple[Instance, ...]
) -> None:
    verl = backend(tmp_path, use_kl_in_reward=True)
    summary = train(verl, data)
    last = metrics(verl, 0)[-1]
    assert "actor/kl_loss" not in last  # verl 0.6.1 logs the loss's KL only when it is in it
    assert summary.kl_end == last["actor/reward_kl_penalty"] > 0
    assert summary.kl_coef == last["actor/reward_kl_penalty_coeff"]
