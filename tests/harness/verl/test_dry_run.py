"""``harness compare ... --backend verl --dry-run``: the paper's recipe printed, nothing run."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from typer.testing import CliRunner

from harness.backends.verl.dry_run import dry_run
from harness.backends.verl.runtime import VerlRuntime
from harness.byte_sizes import size
from harness.dry_run import round_zero
from harness.executors.base import plan
from harness.experiment import ExperimentConfig
from harness_cli import app

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
    # the target (unprobed), the comparison's disk budget, each run's overhead budget
    assert text.count("# target: verl 0.6.1 (0.6 line)") == 3
    assert "auto attention: flash_attention_2 if flash-attn is usable at launch, else sdpa" in text
    assert text.count("\n# disk budget") == 1  # of the whole comparison, before the runs
    assert text.index("# disk budget") < text.index("## run ")
    assert text.count("# overhead budget per round") == 3
    assert text.count("#   training proper: 93 optimiser steps per round") == 3
    # the preset states Qwen3-4B's size (verl.model_params): bf16 policy 8.0 GB, fp32 copy 16.1
    assert "Qwen/Qwen3-4B: 4.02B parameters (as stated in verl.model_params)" in text
    assert (
        "round 0: 2 model load(s), 32.2 GB read: training (actor + reference) of the "
        "policy, 2 x 8.0 GB; serving self (vllm serve) of round 0's model, 1 x 16.1 GB"
    ) in text
    assert (
        "round 0: 2 model load(s), 24.1 GB read: training (actor + reference) of the "
        "policy, 2 x 8.0 GB; serving base (vllm serve) of the policy, 1 x 8.0 GB"
    ) in text
    assert "# disk budget of 3 run(s) x 3 round(s) (verl 0.6): peak" in text
    assert "round 2: 1 model load(s)" in text  # no design step after the last round
    assert "from its dump (validate_in_verl): no vLLM load" in text
    assert "validation/93.jsonl); by vLLM only where that dump lacks an answer" in text
    assert "6 vLLM load(s) of the final model" in text


def test_the_disk_budget_counts_the_runs_that_go_at_once(tmp_path: Path) -> None:
    """One at a time by default; --workers, or every run on a Ray cluster (shared run
    directories), holds that many runs' last-round checkpoints at once."""
    base = ["compare", "--designers", "self,random,base", "--preset", "paper_qwen3_4b",
            "--dry-run", "--out", str(tmp_path)]  # fmt: skip
    peaks = {}
    for extra in ([], ["--workers", "2"], ["--executor", "ray", "--ray-address", "auto"]):
        result = runner.invoke(app, [*base, *extra])
        assert result.exit_code == 0, result.output
        (line,) = [x for x in result.output.splitlines() if x.startswith("# disk budget")]
        peaks[" ".join(extra[:2])] = line.split(": peak ")[1].split(", final")[0]
    assert peaks == {"": "193.1 GB (one run at a time)", "--workers 2": "241.4 GB (2 at once)",
                     "--executor ray": "289.7 GB (3 at once)"}  # fmt: skip


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


def test_with_the_model_on_disk_the_budgets_say_what_each_load_reads(tmp_path: Path) -> None:
    model = tmp_path / "tiny"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"torch_dtype": "bfloat16"}))
    header = json.dumps({"w": {"dtype": "BF16", "shape": [1000, 1000],
                               "data_offsets": [0, 2_000_000]}}).encode()  # fmt: skip
    weights = model / "model.safetensors"
    weights.write_bytes(struct.pack("<Q", len(header)) + header + bytes(2_000_000))
    experiment = ExperimentConfig.from_mapping({"backend": "verl", "policy": str(model),
                                                "rounds": 2, "designers": ["self"]})  # fmt: skip
    runs = [round_zero(experiment, tmp_path / "runs", job, serves_models=True)
            for job in plan(experiment)]  # fmt: skip
    text = dry_run(experiment, runs, VerlRuntime(verl_version="0.9.1"))
    policy, trained = size(weights.stat().st_size), size(4 * 1_000_000)  # fp32 HF copy
    assert "0.00B parameters" in text and "disk budget of 1 run(s) x 2 round(s) (verl 0.9)" in text
    assert f"round 0: 2 model load(s), {size(2 * weights.stat().st_size + 4_000_000)} read: " \
        f"training (actor + reference) of the policy, 2 x {policy}; serving self (vllm serve) " \
        f"of round 0's model, 1 x {trained}" in text  # fmt: skip
    assert f"round 1: 1 model load(s), {size(8_000_000)} read: training (actor + reference) " \
        f"of round 0's model, 2 x {trained}" in text  # fmt: skip
    assert "# target: verl 0.9.1 (0.9 line)" in text
