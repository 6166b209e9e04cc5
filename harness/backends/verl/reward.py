"""The reward function verl calls for every rollout: mapf_env's reward, nothing else.

Both supported verl lines load this file by path and call, once per response::

    compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...,
                  **reward_kwargs)

* verl 0.6.1 reads ``custom_reward_function.path`` / ``.name`` / ``.reward_kwargs``, imports the
  file with importlib under the module name ``custom_module`` (once per process), and its
  ``NaiveRewardManager`` calls the function in the trainer's driver process, one response after
  another.
* verl 0.9.1 reads the same three keys under ``reward.custom_reward_function`` (the top-level
  key survives only as a legacy alias its v1 trainer does not read), loads the file afresh in
  each of its ``reward.num_workers`` reward-loop workers (Ray actors), and its naive reward
  manager runs the function in a thread pool, many responses at once, while the agent loop
  still generates others (the call-time keywords are the same; ``reward_kwargs`` win over them).

So this module imports only `mapf_env` (installed beside verl), uses no relative imports, keeps
no state between calls but two thread-safe caches of immutable values, and never runs the
model's text: the response is parsed and verified as data.

* ``ground_truth`` is ``reward_model.ground_truth`` of the row `mapf_env.export` wrote: the whole
  solved `Instance` as JSON, so the instance is rebuilt from the row alone. Parsed instances are
  memoised by that string (each prompt is scored n times per step; `Instance` is immutable).
* ``extra_info`` (size, agents, holes, ... as exported; verl adds ``num_turns`` and
  ``rollout_reward_scores``) is not needed and not read. ``data_source`` is only verl's label for
  grouping metrics; any value is accepted.
* The result is `RewardBreakdown.as_dict()`: ``score`` (what verl trains on) plus the terms,
  ``valid``/``optimal`` flags and ``fail_<type>`` one-hots, the same keys for every response,
  which both lines keep as ``reward_extra_info``, average in validation metrics and write into
  the validation dump (`harness.backends.verl.layout`); 0.9.1's rollout dumps leave them out.

The running valid rate (the reward's accuracy weight)
-----------------------------------------------------
A stateless per-call function cannot keep the CPU learner's moving average, so the weight is
fixed for a round: the harness passes the round's valid rate -- its running valid rate at the
end of the previous round, 0 for round 0 -- as ``valid_rate`` in
``custom_reward_function.reward_kwargs`` (a Hydra override written by
`harness.backends.verl.overrides.build_overrides`), and verl hands those kwargs to every call.
It is not a column of the round's parquet on purpose: the dataset stays a pure function of the
generator config and seed (byte-identical across designers and reruns), while the weight
depends on how training went; and it is not an environment variable, which would not be
recorded with the command. The ``RewardConfig`` coefficients travel the same way (the harness
writes all of them, so the command records the whole reward; an unknown name is an error, so a
typo cannot pass silently).

Token counts: verl does not pass the response's token count to the function, so the length
term uses `RewardConfig.chars_per_token` (characters / 4 by default), as the reward documents.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mapf_env import Instance, RewardConfig, instance_from_ground_truth, reward

__all__ = ["compute_score"]


@lru_cache(maxsize=4096)
def _instance(ground_truth: str) -> Instance:
    return instance_from_ground_truth(ground_truth)


@lru_cache(maxsize=64)
def _config(items: tuple[tuple[str, Any], ...]) -> RewardConfig:
    return RewardConfig.model_validate(dict(items))


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: dict[str, Any] | None = None,
    *,
    valid_rate: float = 0.0,
    **reward_config: Any,
) -> dict[str, float]:
    """mapf_env's reward of one response, as verl's reward managers expect it.

    `valid_rate` is the round's accuracy-weight input (see the module docstring); any other
    keyword is a `RewardConfig` field. Raises ValueError for a ground truth that is not an
    exported instance or an unknown reward setting, and lets `AnswerKeyError` through (a plan
    cheaper than the recorded optimum is a broken dataset and must stop the run).
    """
    del data_source, extra_info  # labels only; the instance comes from the ground truth
    if not isinstance(ground_truth, str):
        raise ValueError(
            f"ground_truth is {type(ground_truth).__name__}, not the instance JSON string that "
            "mapf_env.export writes to reward_model.ground_truth"
        )
    try:
        config = _config(tuple(sorted(reward_config.items())))
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"custom_reward_function.reward_kwargs has settings the reward does not take: {err}"
        ) from None
    breakdown = reward(_instance(ground_truth), str(solution_str), config, float(valid_rate))
    return breakdown.as_dict()
