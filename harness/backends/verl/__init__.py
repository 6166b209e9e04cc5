"""The verl backend: the paper's GRPO recipe in verl, evaluation and serving with vLLM.

Exported here are the pieces that need neither verl nor the experiment model: the settings, the
target (the verl line and attention a run's trainer gets, `target`), one round's Hydra
overrides, the batch arithmetic, what verl leaves on disk (`layout`) and how the experiment's
task reaches verl's files (`task_feed`: its rows, its reward file). The backend itself is
`harness.backends.verl.backend.VerlBackend` (built by `harness.backends.factory.make_backend`;
not imported here, as `harness.experiment` imports this package for `VerlSettings`), with its
process plumbing in `runtime`, `process`, `curves`, `generate`, `serve` and `dry_run`.
verl itself is imported nowhere at module level: the dry run works without it. The files verl
loads by path are `harness.backends.verl.reward` (MAPF-FrozenLake's, needing only `mapf_env`)
and `harness.backends.verl.task_reward` (any other task's, through the task registry).
"""

from harness.backends.verl.batch_plan import BatchPlan, plan_round
from harness.backends.verl.overrides import (
    DUMP_FILE,
    DUMP_KEYS,
    MAIN_PPO,
    REWARD_FUNCTION,
    REWARD_MODULE,
    REWARD_SECTION,
    VALIDATION_DUMP_EXTRA,
    RoundInputs,
    build_overrides,
    dump_file,
    final_hf_model,
    hf_model_dir,
    hydra_value,
    latest_step,
    main_ppo_command,
    shell_command,
)
from harness.backends.verl.settings import VerlSettings
from harness.backends.verl.target import VerlTarget, resolve_target
from harness.backends.verl.task_feed import TASK_REWARD_MODULE, TaskFeed, feed_problem, task_feed

__all__ = [
    "DUMP_FILE",
    "DUMP_KEYS",
    "MAIN_PPO",
    "REWARD_FUNCTION",
    "REWARD_MODULE",
    "REWARD_SECTION",
    "TASK_REWARD_MODULE",
    "VALIDATION_DUMP_EXTRA",
    "BatchPlan",
    "RoundInputs",
    "TaskFeed",
    "VerlSettings",
    "VerlTarget",
    "build_overrides",
    "dump_file",
    "feed_problem",
    "final_hf_model",
    "hf_model_dir",
    "hydra_value",
    "latest_step",
    "main_ppo_command",
    "plan_round",
    "resolve_target",
    "shell_command",
    "task_feed",
]
