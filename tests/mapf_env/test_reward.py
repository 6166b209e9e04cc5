"""The reward formula, its configuration, its bounds, and the running valid rate."""

from __future__ import annotations

import json
import math
from pathlib import Path as FsPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from envdesign_common import RunningValidRate
from mapf_env.instance import Instance
from mapf_env.prompt import format_plan
from mapf_env.reward import RewardConfig, accuracy_weight, reward
from mapf_env.verifier import FailureType

GOLDEN = FsPath(__file__).resolve().parents[1] / "golden" / "responses"
GOLDEN_INSTANCES = sorted(
    {Instance.model_validate(json.loads(f.read_text())["instance"]) for f in GOLDEN.glob("*.json")},
    key=lambda i: i.id or "",
)
TOP = ((0, 0), (0, 1), (0, 2))
ROUND = ((0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0), (0, 0))


def ring(with_optimum: bool = True) -> Instance:
    """The golden 3x3 ring (hole in the middle, agents swap top corners; optimal SOC 8)."""
    instance = next(i for i in GOLDEN_INSTANCES if i.id == "golden-ring-3x3")
    return instance if with_optimum else instance.without_optimum()


OPTIMAL = format_plan((TOP, ROUND))
PLUS_ONE = format_plan((((0, 0), (0, 0), (0, 1), (0, 2)), ROUND))  # SOC 9 vs 8
COLLIDE = format_plan((TOP, ((0, 2), (0, 1), (0, 0))))


def test_optimal_short_answer_scores_one_at_any_valid_rate() -> None:
    for rate in (0.0, 0.5, 1.0):
        r = reward(ring(), OPTIMAL, valid_rate=rate)
        assert (r.accuracy, r.length, r.total) == (1.0, 1.0, 1.0)


def test_suboptimal_accuracy_follows_the_relative_gap() -> None:
    assert reward(ring(), PLUS_ONE).accuracy == pytest.approx(1 - 1 / 8)
    cfg = RewardConfig(gap_coef=10.0, valid_floor=0.4)
    assert reward(ring(), PLUS_ONE, cfg).accuracy == 0.4


def test_gap_coef_zero_is_the_papers_binary_accuracy() -> None:
    assert reward(ring(), PLUS_ONE, RewardConfig(gap_coef=0.0)).accuracy == 1.0


def test_valid_without_optimum_gets_full_accuracy() -> None:
    r = reward(ring(False), PLUS_ONE)
    assert r.accuracy == 1.0 and r.optimal is None


def test_invalid_answer_earns_only_the_length_term() -> None:
    r = reward(ring(), COLLIDE, valid_rate=0.0)
    cfg = RewardConfig()
    assert r.failure is FailureType.CONFLICT
    assert (r.accuracy, r.length) == (0.0, 1.0)
    assert r.total == pytest.approx(1 - cfg.w_min)


def test_unparsable_reply_earns_nothing_so_silence_does_not_pay() -> None:
    for text in ("", "ok"):
        assert reward(ring(), text).total == 0.0
    assert reward(ring(), "", RewardConfig(length_gate="any")).length == 1.0


def test_valid_gate_withholds_length_from_invalid_answers() -> None:
    assert reward(ring(), COLLIDE, RewardConfig(length_gate="valid")).total == 0.0


def test_length_decays_linearly_to_zero_at_the_multiple() -> None:
    cfg = RewardConfig(budget_tokens=100, zero_multiple=3.0, chars_per_token=1.0)
    padded = "x" * (150 - len(OPTIMAL)) + "\n" + OPTIMAL  # 151 characters
    assert reward(ring(), padded, cfg).length == pytest.approx(1 - 51 / 200)
    assert reward(ring(), OPTIMAL, cfg, n_tokens=300).length == 0.0
    assert reward(ring(), OPTIMAL, cfg, n_tokens=200).length == 0.5


def test_tokens_are_approximated_from_characters() -> None:
    r = reward(ring(), "a" * 9 + "\n" + OPTIMAL, RewardConfig(chars_per_token=4.0))
    assert r.response_tokens == math.ceil((10 + len(OPTIMAL)) / 4)


def test_weight_moves_toward_correctness_and_clips_the_rate() -> None:
    cfg = RewardConfig(w_min=0.2, w_max=0.8)
    assert accuracy_weight(0.5, cfg) == pytest.approx(0.5)
    assert accuracy_weight(-3.0, cfg) == 0.2
    assert accuracy_weight(7.0, cfg) == 0.8
    assert accuracy_weight(float("nan"), cfg) == 0.2
    long_valid = reward(ring(), OPTIMAL, cfg, valid_rate=0.0, n_tokens=10**6)
    assert long_valid.total == pytest.approx(0.2)
    assert reward(ring(), OPTIMAL, cfg, valid_rate=1.0, n_tokens=10**6).total == pytest.approx(0.8)


@pytest.mark.parametrize(
    "bad",
    [
        {"gap_coef": -1.0},
        {"valid_floor": 1.5},
        {"budget_tokens": 0},
        {"zero_multiple": 1.0},
        {"chars_per_token": 0.0},
        {"w_min": 0.9, "w_max": 0.5},
        {"w_max": 1.1},
        {"length_gate": "sometimes"},
        {"unknown": 1},
    ],
)
def test_config_rejects_out_of_range_values(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        RewardConfig.model_validate(bad)


def test_config_fields_are_documented() -> None:
    assert all(f.description for f in RewardConfig.model_fields.values())


def test_as_dict_is_flat_floats_with_the_same_keys_for_every_answer() -> None:
    dicts = [reward(ring(), t).as_dict() for t in (OPTIMAL, PLUS_ONE, COLLIDE, "")]
    assert len({tuple(d) for d in dicts}) == 1
    assert all(isinstance(v, float) for d in dicts for v in d.values())
    assert dicts[0]["score"] == dicts[0]["total"] == 1.0
    assert dicts[2]["fail_conflict"] == 1.0 and dicts[3]["fail_parse"] == 1.0
    assert sum(v for k, v in dicts[2].items() if k.startswith("fail_")) == 1.0


@settings(max_examples=200)
@given(
    st.sampled_from(GOLDEN_INSTANCES),
    st.text(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.none() | st.integers(-5, 10**7),
)
def test_reward_never_raises_and_stays_in_bounds(
    instance: Instance, text: str, rate: float, n_tokens: int | None
) -> None:
    r = reward(instance, text, valid_rate=rate, n_tokens=n_tokens)
    for term in (r.accuracy, r.length, r.accuracy_weight, r.total):
        assert 0.0 <= term <= 1.0
    assert (r.accuracy > 0) == r.valid


class TestRunningValidRate:
    def test_ema_of_batch_rates(self) -> None:
        rate = RunningValidRate(alpha=0.5)
        assert rate.update([True, True, False, False]) == 0.25
        assert rate.update(1.0) == pytest.approx(0.625)
        assert rate.updates == 2

    def test_empty_batch_changes_nothing(self) -> None:
        rate = RunningValidRate(alpha=0.5, initial=0.3)
        assert rate.update([]) == 0.3 and rate.updates == 0

    @pytest.mark.parametrize("kwargs", [{"alpha": 0.0}, {"alpha": 1.5}, {"initial": -0.1}])
    def test_rejects_bad_settings(self, kwargs: dict[str, float]) -> None:
        with pytest.raises(ValueError):
            RunningValidRate(**kwargs)

    def test_rejects_a_rate_outside_zero_one(self) -> None:
        with pytest.raises(ValueError):
            RunningValidRate().update(float("nan"))
