"""The verl backend's CPU-testable pieces: settings, one round's Hydra overrides, the reward.

verl itself is imported nowhere at module level: the settings and overrides work (and the dry
run prints the recipe) without it; `harness.backends.verl.reward` is the file verl loads by
path and needs only `mapf_env`.
"""

from harness.backends.verl.overrides import (
    MAIN_PPO,
    REWARD_FUNCTION,
    REWARD_MODULE,
    BatchPlan,
    RoundInputs,
    build_overrides,
    final_hf_model,
    hf_model_dir,
    hydra_value,
    latest_step,
    main_ppo_command,
    plan_round,
    shell_command,
)
from harness.backends.verl.settings import VerlSettings

__all__ = [
    "MAIN_PPO",
    "REWARD_FUNCTION",
    "REWARD_MODULE",
    "BatchPlan",
    "RoundInputs",
    "VerlSettings",
    "build_overrides",
    "final_hf_model",
    "hf_model_dir",
    "hydra_value",
    "latest_step",
    "main_ppo_command",
    "plan_round",
    "shell_command",
]
