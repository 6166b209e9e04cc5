"""The model's size read from disk, one verl checkpoint's bytes and a comparison's disk budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.backends.verl.footprint import (
    cached_snapshot,
    checkpoint_footprint,
    describe_disk,
    disk_budget,
    hf_hub_cache,
    hub_offline,
    model_size,
)
from harness.backends.verl.settings import VerlSettings, verl_section
from harness.experiment import ExperimentConfig
from tests.harness.doctor_fakes import QWEN3_4B_BYTES, SNAPSHOT, build_hf_cache, safetensors_header

EMBED = 151936 * 2560
"""The elements of the first fake shard's one tensor; the second holds 2560."""


def verl_experiment(**fields: object) -> ExperimentConfig:
    data = {"backend": "verl", "policy": "Qwen/Qwen3-4B", "designers": ["random", "uniform"]}
    return ExperimentConfig.from_mapping({**data, **fields})


# --- where the hub cache is -------------------------------------------------------------------


def test_the_cache_follows_huggingface_precedence() -> None:
    assert hf_hub_cache({"XDG_CACHE_HOME": "/x"}) == Path("/x/huggingface/hub")
    assert hf_hub_cache({"HF_HOME": "/h", "XDG_CACHE_HOME": "/x"}) == Path("/h/hub")
    assert hf_hub_cache({"HF_HOME": "/h", "HUGGINGFACE_HUB_CACHE": "/old"}) == Path("/old")
    assert hf_hub_cache({"HF_HUB_CACHE": "/new", "HUGGINGFACE_HUB_CACHE": "/old"}) == Path("/new")
    assert hf_hub_cache({}) == Path("~/.cache/huggingface/hub").expanduser()


@pytest.mark.parametrize(
    ("env", "offline"),
    [({}, False), ({"HF_HUB_OFFLINE": "1"}, True), ({"HF_HUB_OFFLINE": "yes"}, True),
     ({"HF_HUB_OFFLINE": "0"}, False), ({"TRANSFORMERS_OFFLINE": "TRUE"}, True)],
)  # fmt: skip
def test_offline_mode_reads_like_huggingface(env: dict[str, str], offline: bool) -> None:
    assert hub_offline(env) is offline


# --- the parameter count from the files -------------------------------------------------------


def test_a_cached_model_is_counted_from_its_safetensors_headers(tmp_path: Path) -> None:
    snapshot = build_hf_cache(tmp_path / "hub")
    size = model_size("Qwen/Qwen3-4B", env={"HF_HOME": str(tmp_path)})
    assert cached_snapshot("Qwen/Qwen3-4B", {"HF_HOME": str(tmp_path)}) == snapshot
    assert size.params == EMBED + 2560
    assert size.complete and size.tokenizer
    assert size.location == snapshot and size.missing == ()
    assert "safetensors headers" in size.source
    assert size.shape is not None
    assert (size.shape.layers, size.shape.kv_heads, size.shape.head_dim) == (36, 8, 128)
    assert size.shape.max_positions == 40960
    # keys and values, bf16, 36 layers x 8 KV heads x 128 per token; TP 2 halves the heads
    assert size.shape.kv_bytes_per_token() == 2 * 36 * 8 * 128 * 2 == 147456
    assert size.shape.kv_bytes_per_token(tensor_parallel=2) == 73728
    assert size.shape.kv_bytes_per_token(tensor_parallel=16) == 2 * 36 * 1 * 128 * 2


def test_without_the_shards_the_index_total_size_is_read_at_the_config_dtype(
    tmp_path: Path,
) -> None:
    build_hf_cache(tmp_path, present=("model-00002-of-00002.safetensors",))
    size = model_size("Qwen/Qwen3-4B", env={"HF_HUB_CACHE": str(tmp_path)})
    assert size.params == QWEN3_4B_BYTES // 2 == 4_022_468_096
    assert "total_size at bfloat16" in size.source
    assert not size.complete
    assert size.missing == ("model-00001-of-00002.safetensors",)


def test_without_a_tokenizer_the_model_does_not_load_offline(tmp_path: Path) -> None:
    build_hf_cache(tmp_path, tokenizer=False)
    size = model_size("Qwen/Qwen3-4B", env={"HF_HUB_CACHE": str(tmp_path)})
    assert size.params == EMBED + 2560 and size.complete  # the weights are all there
    assert not size.tokenizer


def test_a_truncated_shard_falls_back_to_the_index(tmp_path: Path) -> None:
    snapshot = build_hf_cache(tmp_path)
    (snapshot / "model-00001-of-00002.safetensors").write_bytes(b"version https://git-lfs")
    size = model_size("Qwen/Qwen3-4B", env={"HF_HUB_CACHE": str(tmp_path)})
    assert size.params == QWEN3_4B_BYTES // 2 and "total_size" in size.source


def test_a_snapshot_without_refs_main_is_not_what_offline_loading_finds(tmp_path: Path) -> None:
    build_hf_cache(tmp_path, ref=False)
    size = model_size("Qwen/Qwen3-4B", env={"HF_HUB_CACHE": str(tmp_path)})
    assert size.params is None and size.location is None and not size.complete
    assert f"not in the cache {tmp_path}" in size.source


def test_a_local_directory_with_one_safetensors_file(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"torch_dtype": "float32"}))
    (tmp_path / "vocab.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(
        safetensors_header({"a": ("F32", [3, 4]), "b": ("F32", [5])})
    )
    size = model_size(str(tmp_path))
    assert size.params == 17 and size.complete and size.shape is None


def test_an_unknown_size_says_why_and_a_given_count_wins(tmp_path: Path) -> None:
    env = {"HF_HUB_CACHE": str(tmp_path)}
    unknown = model_size("Qwen/Qwen3-4B", env=env)
    assert unknown.params is None
    assert unknown.describe() == (
        f"Qwen/Qwen3-4B: parameter count unknown (no local copy: not a directory, not in the "
        f"cache {tmp_path})"
    )
    given = model_size("Qwen/Qwen3-4B", env=env, params=4_000_000_000)
    assert given.params == 4_000_000_000
    assert given.describe().endswith("4.00B parameters (as given)")
    build_hf_cache(tmp_path, config={"torch_dtype": "bfloat16"}, present=())
    index_only = model_size("Qwen/Qwen3-4B", env=env)
    assert index_only.params == QWEN3_4B_BYTES // 2 and index_only.shape is None
    assert (tmp_path / "models--Qwen--Qwen3-4B" / "snapshots" / SNAPSHOT).is_dir()


# --- one checkpoint -------------------------------------------------------------------------


def test_a_checkpoint_of_a_billion_parameters() -> None:
    f = checkpoint_footprint(1_000_000_000, VerlSettings())
    assert f.model == 4_000_000_000  # fp32 shards
    assert f.optimizer == 8_000_000_000  # Adam's two fp32 moments
    assert f.extra == 4 * 1_048_576  # a MiB per rank, 4 GPUs
    assert f.hf_model == 4_000_000_000  # the fp32 state dict saved as the Hugging Face copy
    assert f.training_state == 12_004_194_304
    assert f.total == 16_004_194_304


def test_save_contents_without_optimizer_and_extra() -> None:
    f = checkpoint_footprint(10, VerlSettings(save_contents=("model", "hf_model")))
    assert (f.model, f.optimizer, f.extra, f.hf_model, f.total) == (40, 0, 0, 40, 80)


# --- the comparison -------------------------------------------------------------------------

# The default recipe with 4000 rows: 4000 // 128 = 31 steps an epoch, 3 epochs = 93 steps,
# a save every 31 steps = 3 saves, max_actor_ckpt_to_keep 1. Datasets: (4000 + 400
# validation rows) x 512 bytes = 2,252,800. One step's rollout dump: 128 prompts x 8 samples x
# (1536 + 5120 tokens) x 4 bytes = 27,262,976. A checkpoint of 1e9 parameters: 16,004,194,304;
# its Hugging Face copy 4,000,000,000.
KEPT = 4_000_000_000 + 2_252_800  # a finished round: its Hugging Face copy and datasets
ROUND = 16_004_194_304 + 2_252_800 + 27_262_976  # a round training, one checkpoint on disk


def test_the_budget_of_two_runs_of_three_rounds() -> None:
    experiment = verl_experiment()
    budget = disk_budget(experiment, checkpoint_footprint(1_000_000_000, verl_section(experiment)))
    assert budget.runs == 2 and budget.rounds == 3 and budget.checkpoints_in_flight == 1
    assert budget.kept_per_round == KEPT == 4_002_252_800
    assert budget.run_peak == 2 * KEPT + ROUND == 24_038_215_680
    assert budget.run_final == 3 * KEPT == 12_006_758_400
    assert budget.peak == 12_006_758_400 + 24_038_215_680  # one run done, the other's last round
    assert budget.final == 24_013_516_800
    both = disk_budget(experiment, budget.footprint, concurrent=2)
    assert both.peak == 2 * 24_038_215_680 and both.final == budget.final


def test_verl_0_9_keeps_the_old_checkpoint_until_the_new_one_is_saved() -> None:
    experiment = verl_experiment()
    f = checkpoint_footprint(1_000_000_000, verl_section(experiment))
    budget = disk_budget(experiment, f, line="0.9", runs=1)
    assert budget.checkpoints_in_flight == 2
    assert budget.run_peak == 2 * KEPT + ROUND + 16_004_194_304


def test_unlimited_checkpoints_and_kept_training_state() -> None:
    every = verl_experiment(verl={"max_actor_ckpt_to_keep": None, "keep_training_state": True})
    f = checkpoint_footprint(1_000_000_000, verl_section(every))
    budget = disk_budget(every, f, runs=1)
    assert budget.checkpoints_in_flight == 3 and budget.checkpoints_kept == 3
    assert budget.kept_per_round == 3 * 16_004_194_304 + 2_252_800
    assert budget.run_final == 3 * budget.kept_per_round
    kept = verl_experiment(verl={"keep_training_state": True})
    assert disk_budget(kept, f, runs=1).kept_per_round == 16_004_194_304 + 2_252_800


def test_kept_rollouts_count_every_step() -> None:
    experiment = verl_experiment(verl={"keep_rollouts": True})
    budget = disk_budget(experiment, checkpoint_footprint(1_000_000_000, verl_section(experiment)))
    assert budget.rollouts_kept_per_round == 93 * 27_262_976
    assert budget.kept_per_round == KEPT + 93 * 27_262_976


def test_the_description_names_the_parts() -> None:
    experiment = verl_experiment(seeds=[0, 1, 2])
    text = describe_disk(experiment, params=4_022_468_096, prefix="# ")
    lines = text.splitlines()
    assert lines[0] == "# Qwen/Qwen3-4B: 4.02B parameters (as given)"
    assert lines[1].startswith("# disk budget of 6 run(s) x 3 round(s) (verl 0.6): peak ")
    assert "a checkpoint 64.4 GB: fp32 shards 16.1 GB + Adam 32.2 GB" in text
    assert "Hugging Face copy (fp32) 16.1 GB" in text
    assert "each round keeps its Hugging Face copy (16.1 GB)" in text
    assert all(line.startswith("# ") for line in lines)


def test_the_description_of_an_unknown_size_says_how_to_give_it(tmp_path: Path) -> None:
    text = describe_disk(verl_experiment(), env={"HF_HUB_CACHE": str(tmp_path)})
    assert text.startswith("disk budget: unknown, Qwen/Qwen3-4B: parameter count unknown")
    assert "hf download Qwen/Qwen3-4B" in text and "--params" in text


def test_batches_that_do_not_work_out_are_named() -> None:
    experiment = verl_experiment(samples_per_round=100)
    with pytest.raises(ValueError, match="no full batch"):
        disk_budget(experiment, checkpoint_footprint(10, verl_section(experiment)))
    assert "not computed" in describe_disk(experiment, params=10)


def test_what_the_budget_keeps_is_what_retention_keeps() -> None:
    """A round's last checkpoint laid out as verl writes it, sized by the footprint: the
    retention rule keeps exactly the Hugging Face copy (and the tracker) the budget keeps."""
    from harness.backends.verl.layout import TRACKER
    from harness.backends.verl.retention import split_footprint

    f = checkpoint_footprint(1_000_000_000, VerlSettings())
    actor = "global_step_93/actor"
    listing = {TRACKER: 2, "global_step_93/data.pt": 1500}
    for shard in (1, 2):
        listing[f"{actor}/huggingface/model-0000{shard}-of-00002.safetensors"] = f.hf_model // 2
    for rank in range(4):
        listing[f"{actor}/model_world_size_4_rank_{rank}.pt"] = f.model // 4
        listing[f"{actor}/optim_world_size_4_rank_{rank}.pt"] = f.optimizer // 4
        listing[f"{actor}/extra_state_world_size_4_rank_{rank}.pt"] = f.extra // 4
    pruned = split_footprint(listing, last=93)
    assert pruned.kept_bytes == f.hf_model + 2
    assert pruned.freed_bytes == f.training_state + 1500
