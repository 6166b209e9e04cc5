"""The verl backend: the paper's GRPO recipe in verl, evaluation and serving with vLLM.

Exported here are the pieces that need neither verl nor the experiment model: the settings, one
round's Hydra overrides and the batch arithmetic. The backend itself is
`harness.backends.verl.backend.VerlBackend` (built by `harness.backends.factory.make_backend`;
not imported here, as `harness.experiment` imports this package for `VerlSettings`), with its
process plumbing in `runtime`, `process`, `curves`, `generate`, `serve` and `dry_run`.
verl itself is imported nowhere at module level: the dry run works without it;
`harness.backends.verl.reward` is the file verl loads by path and needs only `mapf_env`.
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
