"""A finished round keeps its Hugging Face weights and drops verl's training state.

The checkpoint directories here are laid out file for file as verl 0.6.1's and 0.9.1's
``_save_checkpoint`` and FSDP checkpoint manager write them (two ranks, the last step whole,
an older step as ``max_actor_ckpt_to_keep`` rotation leaves it: its ``data.pt`` only), plus
links that lead out of the directory; the backend is driven with the stand-ins of
`test_orchestration`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.backends.verl.backend import STATE_FILE, VerlBackend
from harness.backends.verl.layout import TRACKER
from harness.backends.verl.retention import (
    KEPT_PATHS,
    is_kept,
    listing,
    prune_checkpoints,
    prune_rollouts,
    split_footprint,
)
from mapf_env import Instance
from tests.harness.verl.test_orchestration import (
    SMALL,
    STEPS,
    calls,
    experiment,
    fake_logs,
    runtime,
)

HF_FILES = ("config.json", "generation_config.json", "tokenizer.json", "model.safetensors")


def write(path: Path, n_bytes: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * n_bytes)


def verl_checkpoint(root: Path, last: int = 8, world: int = 2) -> Path:
    """A round's ``trainer.default_local_dir`` after its last save, with foreign entries."""
    ckpt = root / "checkpoints"
    write(ckpt / f"global_step_{last // 2}" / "data.pt", 300)  # rotated: actor/ gone
    step = ckpt / f"global_step_{last}"
    write(step / "data.pt", 300)
    actor = step / "actor"
    for rank in range(world):
        write(actor / f"model_world_size_{world}_rank_{rank}.pt", 4000)
        write(actor / f"optim_world_size_{world}_rank_{rank}.pt", 8000)
        write(actor / f"extra_state_world_size_{world}_rank_{rank}.pt", 50)
    write(actor / "fsdp_config.json", 40)
    for name in HF_FILES:
        write(actor / "huggingface" / name, 2000 if name.endswith("safetensors") else 60)
    (ckpt / TRACKER).write_text(str(last))
    write(ckpt / "notes.txt", 10)  # not verl's: left alone
    outside = root / "outside"
    write(outside / "precious.bin", 777)
    (actor / "link-to-file").symlink_to(outside / "precious.bin")
    (actor / "link-to-dir").symlink_to(outside, target_is_directory=True)
    (ckpt / f"global_step_{last // 2}" / "linked").symlink_to(outside)
    return ckpt


def hf(ckpt: Path, last: int = 8) -> Path:
    return ckpt / f"global_step_{last}" / "actor" / "huggingface"


def test_pruning_keeps_the_listed_paths_and_never_leaves_the_directory(tmp_path: Path) -> None:
    ckpt = verl_checkpoint(tmp_path)
    before = listing(ckpt)
    predicted = split_footprint(before, 8)
    done = prune_checkpoints(ckpt, hf(ckpt))
    assert done == predicted  # the budget's rule is the deletion's
    after = listing(ckpt)
    hf_paths = {f"global_step_8/actor/huggingface/{name}" for name in HF_FILES}
    assert set(after) == {TRACKER, "notes.txt"} | hf_paths
    gone = set(before) - set(after)
    assert done.freed_bytes == sum(before[p] for p in gone) and done.freed_files == len(gone)
    assert done.kept_files == len(after) and done.kept_bytes == sum(after.values())
    assert (tmp_path / "outside" / "precious.bin").read_bytes() == b"x" * 777  # links only
    assert not (ckpt / "global_step_4").exists()
    again = prune_checkpoints(ckpt, hf(ckpt))
    assert (again.freed_files, again.kept_files) == (0, len(after))


def test_the_kept_paths_are_what_the_next_round_reads() -> None:
    tracker, weights = (p.format(last=8) for p in KEPT_PATHS)
    assert is_kept(tracker, 8) and is_kept(weights, 8) and is_kept(f"{weights}/config.json", 8)
    assert not is_kept("global_step_8/actor/optim_world_size_4_rank_0.pt", 8)
    assert not is_kept("global_step_8/data.pt", 8)
    assert not is_kept("global_step_4/actor/huggingface/config.json", 8)  # an older step
    assert is_kept("fake_verl_calls.jsonl", 8)  # outside verl's step directories


@pytest.mark.parametrize("broken", ["no tracker", "no model", "other model", "linked step"])
def test_a_round_that_did_not_finish_is_left_untouched(tmp_path: Path, broken: str) -> None:
    ckpt = verl_checkpoint(tmp_path)
    model = hf(ckpt)
    if broken == "no tracker":
        (ckpt / TRACKER).unlink()
    elif broken == "no model":
        (model / "config.json").unlink()
    elif broken == "other model":
        model = tmp_path / "elsewhere"
    else:  # the last step is a link to a directory elsewhere
        (ckpt / "global_step_8").rename(tmp_path / "moved")
        (ckpt / "global_step_8").symlink_to(tmp_path / "moved", target_is_directory=True)
    before = listing(tmp_path)
    with pytest.raises((FileNotFoundError, ValueError), match=r"nothing pruned|did not finish"):
        prune_checkpoints(ckpt, model)
    assert listing(tmp_path) == before


def test_only_verls_dump_files_are_removed_from_the_rollouts(tmp_path: Path) -> None:
    for name in ("3.jsonl", "12.jsonl", "notes.jsonl", "3.json"):
        write(tmp_path / name, 5)
    assert prune_rollouts(tmp_path).freed_files == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3.json", "notes.jsonl"]


# --- with the backend ---------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_scripted_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_logs(tmp_path, monkeypatch)


def backend(workdir: Path, **verl: Any) -> VerlBackend:
    return VerlBackend(experiment(verl={**SMALL["verl"], **verl}), workdir, runtime())  # type: ignore[dict-item]


def test_save_prunes_the_round_and_it_still_resumes_and_loads(
    tmp_path: Path, data: tuple[Instance, ...]
) -> None:
    workdir = tmp_path / "run" / "self" / "seed-0"
    first = backend(workdir)
    trained = first.train_round(data, epochs=2, seed=3)
    ckpt = first.round_dir(0) / "checkpoints"
    actor = ckpt / f"global_step_{STEPS}" / "actor"
    write(actor / "model_world_size_1_rank_0.pt", 4000)  # what real verl saves beside the
    write(actor / "optim_world_size_1_rank_0.pt", 8000)  # stand-in's Hugging Face config
    write(ckpt / f"global_step_{STEPS}" / "data.pt", 300)
    state = tmp_path / "run" / "self" / "seed-0" / "round-000" / "checkpoint"
    first.save(state)
    assert not (actor / "optim_world_size_1_rank_0.pt").exists()
    assert not (ckpt / f"global_step_{STEPS}" / "data.pt").exists()
    assert (actor / "huggingface" / "config.json").is_file()
    assert (ckpt / "fake_verl_calls.jsonl").is_file()  # the stand-in's own file: not verl's
    log = (first.round_dir(0) / "train.log").read_text()
    assert "retention of training state and rollout dumps: freed 12.3 kB in 3 file(s)" in log

    # a harness restarted after the save: the round counts as trained, nothing reruns
    again = backend(workdir)
    retrained = again.train_round(data, epochs=2, seed=3)
    assert len(calls(again, 0)) == 1
    assert again.current_model == first.current_model
    assert retrained.steps == trained.steps
    loaded = backend(workdir)
    loaded.load(state)
    assert loaded.current_model == first.current_model and loaded.rounds_done == 1
    assert json.loads((state / STATE_FILE).read_text())["rounds_done"] == 1


def test_keep_training_state_keeps_verls_checkpoints(
    tmp_path: Path, data: tuple[Instance, ...]
) -> None:
    verl = backend(tmp_path / "run" / "self" / "seed-0", keep_training_state=True)
    verl.train_round(data, epochs=2, seed=3)
    ckpt = verl.round_dir(0) / "checkpoints"
    write(ckpt / f"global_step_{STEPS}" / "actor" / "optim_world_size_1_rank_0.pt", 8000)
    before = listing(ckpt)
    verl.save(tmp_path / "state")
    assert listing(ckpt) == before
    assert "retention of rollout dumps: freed" in (verl.round_dir(0) / "train.log").read_text()
