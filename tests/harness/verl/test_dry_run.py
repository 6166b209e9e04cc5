"""``harness compare ... --backend verl --dry-run``: the paper's recipe printed, nothing run."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app

runner = CliRunner()
PAPER_KEYS = [
    "algorithm.adv_estimator=grpo",
    "algorithm.use_kl_in_reward=false",
    "actor_rollout_ref.rollout.n=8",
    "actor_rollout_ref.actor.optim.lr=2e-06",
    "actor_rollout_ref.actor.optim.lr_scheduler_type=constant",
    "actor_rollout_ref.actor.use_kl_loss=true",
    "actor_rollout_ref.actor.kl_loss_coef=0.001",
    "actor_rollout_ref.actor.kl_loss_type=low_var_kl",
    "actor_rollout_ref.actor.entropy_coeff=0.0",
    "data.max_prompt_length=1536",
    "data.max_response_length=5120",
    "actor_rollout_ref.actor.ppo_mini_batch_size=128",
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4",
    "actor_rollout_ref.rollout.tensor_model_parallel_size=2",
    "actor_rollout_ref.rollout.gpu_memory_utilization=0.55",
    "actor_rollout_ref.model.enable_gradient_checkpointing=true",
    "actor_rollout_ref.ref.fsdp_config.param_offload=true",
    "+data.apply_chat_template_kwargs.enable_thinking=true",
    "trainer.n_gpus_per_node=4",
    "trainer.total_epochs=3",
    "trainer.resume_mode=auto",
    "actor_rollout_ref.model.path=Qwen/Qwen3-4B",
    "+custom_reward_function.reward_kwargs.valid_rate=0.0",
    "NCCL_CUMEM_ENABLE=0",
    "RAY_ADDRESS=local",
    "-m verl.trainer.main_ppo",
    "-m harness.backends.verl.generate",
    "-m vllm.entrypoints.cli.main",
    "--reasoning-parser qwen3",
    "--served-model-name Qwen3-4B-rl-round0",
    '"temperature": 0.0',
]


def test_the_dry_run_prints_the_papers_recipe_and_runs_nothing(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    args = ["compare", "--designers", "self,random,base", "--preset", "paper_qwen3_4b",
            "--backend", "verl", "--dry-run", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    text = result.output
    for key in PAPER_KEYS:
        assert key in text, key
    assert text.count("### train round 0") == 3
    assert "93 steps" in text and "1024 samples per mini-batch" in text
    assert "'self' reads the served policy model" in text
    assert "'base' reads the served base model" in text
    assert "--served-model-name Qwen/Qwen3-4B" in text
    assert "'random' reads" not in text
    assert not out.exists()


def test_with_a_ray_address_rounds_are_submitted_as_jobs(tmp_path: Path) -> None:
    args = ["compare", "--designers", "self", "--preset", "paper_qwen3_4b", "--dry-run",
            "--ray-address", "http://head:8265", "--out", str(tmp_path)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "-m ray.scripts.scripts" in result.output and "submit" in result.output
    assert "--address http://head:8265" in result.output
    assert "--submission-id envdesign-self-seed-0-r000-" in result.output
    assert '"NCCL_CUMEM_ENABLE": "0"' in result.output and "RAY_ADDRESS=local" not in result.output


def test_a_cpu_dry_run_lists_the_runs(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", "--designers", "random,hand", "--dry-run",
                                 "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "launches no commands" in result.output and "hand / seed 0" in result.output
